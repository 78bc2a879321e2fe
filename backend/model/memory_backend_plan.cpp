// MemoryBackend's planning: the upstream's `plan` (seed/memory_backend_reindented.py lines 194-259), over storage
// kept across calls (PlanScratch). Line numbers in comments refer to that file; the porting rules are those of
// memory_backend.cpp (plan takes no lock and fires no barrier).
#include <algorithm>
#include <iterator>
#include <span>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "backend/model/memory_backend.h"
#include "backend/model/mig_geometry.h"
#include "backend/model/name_head.h"
#include "backend/model/packing.h"
#include "backend/model/pyrepr.h"

namespace allocsim::backend {

namespace {

// The upstream's `','.join(f'{k}:{v}' for k, v in sorted(layout.items()))`, into `out` through `sorted` (both
// reused across calls).
void layout_string_into(const OrderedMap<std::string, int>& layout, OrderedMap<std::string_view, int>& sorted,
                        std::string& out) {
  sorted.assign(layout.begin(), layout.end());
  std::sort(sorted.begin(), sorted.end());
  out.clear();
  for (const auto& [profile, count] : sorted)
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}{}:{}"), out.empty() ? "" : ",", profile, count);
}

// The next element of `v` for this call, where `used` counts this call's elements: an earlier call's element
// (with its heap storage) when there is one, else a new one. The caller overwrites every field it keeps. In check
// mode a new one is poisoned as plan_into poisons the earlier ones (porting rule 3), so that the first execution
// fails on a forgotten assignment as the later ones do.
template <class T>
T& next_slot(std::vector<T>& v, size_t& used) {
  if (used == v.size()) {
    v.emplace_back();
    if (check_mode()) poison(v.back());
  }
  return v[used++];
}

// `v.resize(n)`, its new elements poisoned in check mode (as next_slot's), for a list whose elements the caller
// assigns field by field.
template <class T>
void resize_fresh(std::vector<T>& v, size_t n) {
  const size_t had = v.size();
  v.resize(n);
  if (check_mode())
    for (size_t i = had; i < n; ++i) poison(v[i]);
}

// Python's `m[key] = ...` over storage reused across calls: among this call's `used` entries a key is found
// and its value returned as it is; otherwise the next slot takes the key (`*fresh` set) and keeps an earlier
// call's value, which the caller overwrites.
template <class K, class V, class Q>
V& reuse_put(OrderedMap<K, V>& m, size_t& used, const Q& key, bool* fresh = nullptr) {
  for (size_t i = 0; i < used; ++i)
    if (m[i].first == key) return m[i].second;
  auto& slot = next_slot(m, used);
  slot.first = key;
  if (fresh != nullptr) *fresh = true;
  return slot.second;
}

// The upstream's `by_node` and its other per-node dicts are hashed; here a plan finds a node's index in its
// scratch through `by_name` (sorted by head, then name: backend/model/name_head.h), so that a plan over N nodes costs
// O(N log N) rather than O(N^2).

// The first entry of `by_name` not before (head, name): the order is by head, then by the whole name.
std::vector<PlanScratch::Named>::const_iterator find_slot(const PlanScratch& s, uint64_t head, std::string_view name) {
  return std::lower_bound(s.by_name.begin(), s.by_name.end(), name, [head](const PlanScratch::Named& e, auto n) {
    return e.head != head ? e.head < head : e.name < n;
  });
}

uint32_t index_of(const PlanScratch& s, std::string_view name) {
  const auto it = find_slot(s, name_head(name), name);
  return it != s.by_name.end() && it->name == name ? it->index : PlanScratch::kNoNode;
}

// `name`'s index in `s.nodes`, appended (in first-seen order) if new. `last` is the previous device's index:
// a snapshot lists a node's devices one after another, so most devices need no search.
uint32_t add_node(PlanScratch& s, std::string_view name, uint32_t last) {
  if (last < s.nodes.size() && s.nodes[last] == name) return last;
  const uint64_t head = name_head(name);
  const auto it = find_slot(s, head, name);
  if (it != s.by_name.end() && it->name == name) return it->index;
  const auto k = static_cast<uint32_t>(s.nodes.size());
  s.by_name.insert(it, PlanScratch::Named{head, name, k});
  s.nodes.push_back(name);
  s.node_devices.push_back(0);
  return k;
}

// For each of `s.nodes`, the value of the first entry of `m` under its name, as find_in(m, name) returns it;
// nullptr where none. The maps list nodes in device order, so the entry after a match is usually the next.
template <class V>
void index_by_name(const OrderedMap<std::string, V>& m, const PlanScratch& s, std::vector<const V*>& out) {
  out.assign(s.nodes.size(), nullptr);
  uint32_t next = 0;
  for (const auto& [key, value] : m) {
    const uint32_t k = next < s.nodes.size() && same_name(s.nodes[next], key) ? next : index_of(s, key);
    if (k == PlanScratch::kNoNode) continue;
    if (out[k] == nullptr) out[k] = &value;
    next = k + 1;
  }
}

// Line 210's `sharing in (CLASS_TIME_SLICED, CLASS_MPS, CLASS_UNKNOWN, CLASS_MIG)`, as views. This runs for every
// node at every plan, and most nodes are physical: a length none of the four has (a bit of kLengths) decides
// without a comparison.
constexpr std::string_view kSharesOrSlices[] = {kClassTimeSliced, kClassMps, kClassUnknown, kClassMig};
constexpr uint64_t kLengths = [] {
  uint64_t bits = 0;
  for (const std::string_view c : kSharesOrSlices) bits |= uint64_t{1} << c.size();  // each is under 64 bytes
  return bits;
}();
bool is_share_or_slice(std::string_view sharing) {
  if (sharing.size() >= 64 || (kLengths >> sharing.size() & 1) == 0) return false;
  for (const std::string_view c : kSharesOrSlices)
    if (sharing == c) return true;
  return false;
}

// Python's `seq[:n]` for a list of length `size`.
size_t slice_end(size_t size, int n) {
  if (n >= 0) return std::min(size, static_cast<size_t>(n));
  const size_t drop = static_cast<size_t>(-static_cast<long>(n));
  return drop >= size ? 0 : size - drop;
}

// Porting rule 3 (check mode): what plan_into's steps reuse from an earlier call is poisoned first: PlanScratch's
// per-call lists (not the device index, kept for the very same device list by design) and `out`'s FeasiblePlan.
void poison_reused(PlanScratch& s, PlanOutcome& out) {
  poison(s.free);
  // The ranks reversed: still distinct and within the index, so a stale read orders the hosts wrongly instead of
  // sizing the packing's table by a poisoned number.
  for (size_t i = 0; i < s.free_rank.size(); ++i) s.free_rank[i] = static_cast<uint32_t>(s.free_rank.size() - 1 - i);
  poison(s.excluded);
  poison(s.node_owner);
  poison(s.node_sharing);
  poison(s.node_occupied);
  poison(s.exclusive);
  poison(s.sharers);
  poison(s.wanted);
  poison(s.packed);
  poison(s.taken);
  poison(s.layouts);
  poison(s.sorted_layout);
  poison(s.reasons);
  if (FeasiblePlan* plan = std::get_if<FeasiblePlan>(&out)) poison(*plan);
}

// Porting rule 6 (check mode): every device of a plan is the upstream's: a whole device is one of the snapshot's
// (line 226), a MIG slice is `DeviceIdentity(node, None, None, 'MIG-...', product, bytes, profile)` with its node's
// product (line 247).
void check_plan(const FeasiblePlan& plan, const InventorySnapshot& snapshot, const BackendState& state) {
  for (const auto& [workload, devices] : plan.assignments)
    for (const DeviceIdentity& d : devices) {
      if (!d.mig_profile) {
        ALLOCSIM_PORT_CHECK(std::find(snapshot.devices.begin(), snapshot.devices.end(), d) != snapshot.devices.end(),
                            "6 (a planned whole device that is not the snapshot's)");
        continue;
      }
      const NodeFixture* node = d.node ? state.node(*d.node) : nullptr;
      ALLOCSIM_PORT_CHECK(node != nullptr && !d.ordinal && !d.uuid && d.mig_uuid && d.product == node->product &&
                              d.memory_bytes,
                          "6 (a planned MIG slice unlike the upstream's DeviceIdentity)");
    }
}

}  // namespace

// -- planning (lines 194-259) ---------------------------------------------------------------------------

PlanOutcome MemoryBackend::plan(Caller& c, const std::vector<WorkloadRequest>& requests,
                                const InventorySnapshot& snapshot) {
  PlanOutcome out;
  plan_into(c, requests, snapshot, out);
  return out;
}

// What plan_into's steps share within one call: the arguments, the FeasiblePlan being filled in `out`'s storage,
// and how many of each reused list's slots this call has filled (entries past a count are an earlier call's).
struct MemoryBackend::PlanCall {
  const std::vector<WorkloadRequest>& requests;
  const InventorySnapshot& snapshot;
  FeasiblePlan* plan = nullptr;
  size_t n_free = 0;
  size_t n_excluded = 0;
  size_t n_assigned = 0;
  size_t n_geometry = 0;
  bool packed = false;
};

// The upstream's `plan` (lines 194-259), over storage kept across calls: its dicts and lists live in PlanScratch
// (holding views where the upstream holds references) and in `out`'s own FeasiblePlan, whose entries are overwritten
// in place so that their strings and device lists keep their capacity. Same insertion orders, same texts. Its
// steps are the upstream's own blocks, in its order.
void MemoryBackend::plan_into(Caller& c, const std::vector<WorkloadRequest>& requests,
                              const InventorySnapshot& snapshot, PlanOutcome& out) {
  PlanScratch& s = plan_scratch_.get();
  if (check_mode()) poison_reused(s, out);
  s.reasons.clear();
  if (snapshot.completeness != std::string_view(kCompletenessComplete)) {  // a view: no strlen per plan
    out = Infeasible{{"occupancy unknown: the pod listing failed, so no device can be assumed idle"}};
    return;
  }
  if (!s.indexed.same_list(snapshot.devices)) {
    plan_index_devices(snapshot);
  }
  PlanCall call{requests, snapshot};
  plan_free_nodes(call);
  call.plan = std::get_if<FeasiblePlan>(&out);
  if (call.plan == nullptr) call.plan = &out.emplace<FeasiblePlan>();
  plan_whole_devices(call);
  if (!s.sharers.empty()) {
    plan_mig_sharers(call);
  }
  // Lines 256-259: the reasons, else the plan with the excluded nodes as its notes.
  if (!s.reasons.empty()) {
    out = Infeasible{std::move(s.reasons)};
    return;
  }
  FeasiblePlan* plan = call.plan;
  plan->assignments.resize(call.n_assigned);
  plan->geometry.resize(call.n_geometry);
  plan->snapshot_generation = snapshot.generation;
  plan->plan_id = c.next_id("plan");
  resize_keeping(plan->notes, call.n_excluded, spare_texts_);
  for (size_t i = 0; i < call.n_excluded; ++i) plan->notes[i] = s.excluded[i];
  if (check_mode()) check_plan(*plan, snapshot, s_.untracked());  // check mode: fields no call changes
  ALLOCSIM_PORT_CHECK_SLOW(!poisoned(out), kRulePoisonLeft);
}

// Lines 198-201, the upstream's `by_node` dict of device lists: its keys in first-seen order, and each device's key. It
// depends on the devices alone, so plan_into builds it once per device list: every inventory of a pool hands out
// the same one.
inline void MemoryBackend::plan_index_devices(const InventorySnapshot& snapshot) {
  PlanScratch& s = plan_scratch_.get();
  s.indexed = snapshot.devices;
  s.nodes.clear();
  s.device_node.clear();
  s.node_devices.clear();
  s.by_name.clear();
  uint32_t last = PlanScratch::kNoNode;
  for (const auto& device : s.indexed) {
    uint32_t k = PlanScratch::kNoNode;
    if (device.node) {
      k = add_node(s, *device.node, last);
      ++s.node_devices[k];
      last = k;
    }
    s.device_node.push_back(k);
  }
  // by_name's order, (head, name), is the names' byte order (a head is a zero-padded big-endian prefix), as the
  // upstream's `sorted(remaining)` in the packing: a node's rank there orders it for pack_whole_devices_into.
  s.rank.resize(s.nodes.size());
  for (size_t pos = 0; pos < s.by_name.size(); ++pos) s.rank[s.by_name[pos].index] = static_cast<uint32_t>(pos);
}

// Lines 202-216: `free` (free devices per node this flow may plan on) and `excluded` (why the others are not).
inline void MemoryBackend::plan_free_nodes(PlanCall& call) {
  PlanScratch& s = plan_scratch_.get();
  const InventorySnapshot& snapshot = call.snapshot;
  const std::vector<WorkloadRequest>& requests = call.requests;
  index_by_name(snapshot.owners, s, s.node_owner);
  index_by_name(snapshot.sharing, s, s.node_sharing);
  index_by_name(snapshot.occupancy, s, s.node_occupied);
  s.free_rank.clear();
  for (uint32_t k = 0; k < s.nodes.size(); ++k) {
    const std::string_view node = s.nodes[k];
    const std::string* owner = s.node_owner[k];
    if (owner && !owner->empty() && !requests.empty() && *owner != requests[0].flow_id) {
      std::string& why = next_slot(s.excluded, call.n_excluded);
      why.clear();
      fmt::format_to(std::back_inserter(why), FMT_COMPILE("{}: owned by {}"), node, *owner);
      continue;  // another flow's node is not ours to plan on
    }
    // Shares and slices are not whole devices, and unknown evidence is never upgraded to physical;
    // sharers reach MIG through geometry instead (upstream comment, lines 210-213).
    const std::string* sharing = s.node_sharing[k];
    if (sharing && is_share_or_slice(*sharing)) {
      std::string& why = next_slot(s.excluded, call.n_excluded);
      why.clear();
      fmt::format_to(std::back_inserter(why),
                     FMT_COMPILE("{}: {} \u2014 its units are shares or slices, not whole devices"), node, *sharing);
      continue;
    }
    const int* occupied = s.node_occupied[k];
    // `free[node] = ...` with `node` not yet among free's keys (the nodes are distinct): no search.
    s.free_rank.push_back(s.rank[k]);
    auto& slot = next_slot(s.free, call.n_free);
    slot.first = node;
    slot.second = s.node_devices[k] - (occupied ? *occupied : 0);
  }
  s.free.resize(call.n_free);
  // `excluded` keeps its slots past this call's count: a shrink would free their texts (docs/DESIGN.md §5, "Storage
  // reused across executions").
}

// Lines 217-228: the whole-device requests packed per host (pack_whole_devices), each given the first devices of
// its host that no earlier assignment holds.
inline void MemoryBackend::plan_whole_devices(PlanCall& call) {
  PlanScratch& s = plan_scratch_.get();
  const InventorySnapshot& snapshot = call.snapshot;
  const std::span<const std::string> excluded(s.excluded.data(), call.n_excluded);
  auto& assignments = call.plan->assignments;
  s.exclusive.clear();
  s.sharers.clear();
  for (const auto& r : call.requests) {
    if (r.sharing == kSharingExclusive || r.sharing == kSharingCooperative || r.sharing == kSharingAccountingOnly)
      s.exclusive.push_back(&r);
    if (r.sharing == kSharingIsolatedMig) s.sharers.push_back(&r);
  }
  s.wanted.clear();
  for (const auto* r : s.exclusive) s.wanted.emplace_back(r->workload_id, r->device_count);
  call.packed = pack_whole_devices_into(s.wanted, s.free, s.free_rank, s.pack, s.packed);
  if (!call.packed) {
    s.reasons.push_back(fmt::format(
        "no per-host packing places every whole-device request on one node (free per node: {}; excluded: {})",
        py::dict(s.free), excluded.empty() ? std::string("none") : py::list(excluded)));
    return;
  }
  for (const auto& [workload_id, node] : s.packed) {
    const WorkloadRequest* request =
        // An init-capture: clang 14 (the sanitize and fuzz build) cannot capture a structured binding by [&].
        *std::find_if(s.exclusive.begin(), s.exclusive.end(),
                      [&id = workload_id](const auto* r) { return r->workload_id == id; });
    const uint32_t k = index_of(s, node);
    s.taken.clear();
    for (size_t i = 0; i < snapshot.devices.size(); ++i) {
      if (s.device_node[i] != k) continue;
      const DeviceIdentity& d = snapshot.devices[i];
      bool assigned = false;
      for (size_t a = 0; a < call.n_assigned; ++a) {
        const auto& devices = assignments[a].second;
        assigned = assigned || std::find(devices.begin(), devices.end(), d) != devices.end();
      }
      if (!assigned) s.taken.push_back(&d);
    }
    s.taken.resize(slice_end(s.taken.size(), request->device_count));
    std::vector<DeviceIdentity>& devices = reuse_put(assignments, call.n_assigned, workload_id);
    devices.resize(s.taken.size());
    for (size_t j = 0; j < s.taken.size(); ++j) devices[j] = *s.taken[j];
  }
}

// Lines 229-255: each MIG sharer on the first free node no whole-device request took, with the smallest profile
// that holds it; then each such node's layout checked and written as the plan's geometry.
inline void MemoryBackend::plan_mig_sharers(PlanCall& call) {
  PlanScratch& s = plan_scratch_.get();
  if (opt_.authority != kAuthorityManagedMig && opt_.authority != kAuthorityDra) {
    s.reasons.push_back(opt_.authority + " cannot provide isolated MIG slices");
    return;
  }
  size_t n_layouts = 0;
  for (const WorkloadRequest* request : s.sharers) {
    // The first free node in `free`'s (insertion) order that no whole-device request took.
    const std::string_view* mig_node = nullptr;
    if (call.packed)
      for (const auto& [n, units] : s.free) {
        bool taken = false;
        for (const auto& [w, host] : s.packed) taken = taken || host == n;
        if (!taken && units > 0) {
          mig_node = &n;
          break;
        }
      }
    if (mig_node == nullptr) {
      s.reasons.push_back("no free card for MIG sharer " + request->workload_id);
      continue;
    }
    const std::string_view node = *mig_node;
    const std::string& product = s_.product(node);  // products never change: no footprint
    const double gib =
        static_cast<double>(request->minimum_usable_memory_bytes.value_or(0)) / static_cast<double>(kGiB);
    const MigProfile* profile = smallest_profile(product, gib);
    if (profile == nullptr) {
      s.reasons.push_back(fmt::format("no MIG profile on {} holds {:g} GiB", product, gib));
      continue;
    }
    bool fresh = false;
    OrderedMap<std::string, int>& layout = reuse_put(s.layouts, n_layouts, node, &fresh);
    if (fresh) layout.clear();
    const int* had = find_in(layout, profile->name);
    const int count = put_in(layout, profile->name, (had ? *had : 0) + 1);
    std::vector<DeviceIdentity>& devices = reuse_put(call.plan->assignments, call.n_assigned, request->workload_id);
    resize_fresh(devices, 1);
    DeviceIdentity& d = devices[0];
    d.node = node;
    d.ordinal.reset();
    d.uuid.reset();
    if (!d.mig_uuid) d.mig_uuid.emplace();
    d.mig_uuid->clear();
    fmt::format_to(std::back_inserter(*d.mig_uuid), FMT_COMPILE("MIG-{}-{}-{}"), node, profile->name, count);
    d.product = product;
    d.memory_bytes = int64_t{profile->memory_gib} * kGiB;
    d.mig_profile = profile->name;
  }
  for (size_t i = 0; i < n_layouts; ++i) {
    const auto& [node, layout] = s.layouts[i];
    for (const auto& p : check_layout(s_.product(node), layout)) s.reasons.push_back(node + ": " + p);
    layout_string_into(layout, s.sorted_layout, reuse_put(call.plan->geometry, call.n_geometry, node));
  }
}

}  // namespace allocsim::backend

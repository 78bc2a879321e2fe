// MemoryBackend: the seed's MemoryAllocationBackend, line for line (seed/memory_backend_reindented.py).
// Line numbers in comments refer to that file.
//
// Two porting rules run through this file:
// - The lock is taken exactly where the seed writes `with self._lock:`, and barriers the seed fires
//   outside it are fired with no LockGuard alive.
// - After any barrier, other actors may have run: pointers into s_.nodes / s_.claims are looked up
//   again by name or id (the seed's Python references stay valid across the gap, C++ ones do not).
#include "backend/model/memory_backend.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <iterator>
#include <span>
#include <stdexcept>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/container/small_vector.hpp>

#include "backend/model/errors.h"
#include "backend/model/mig_geometry.h"
#include "backend/model/name_head.h"
#include "backend/model/packing.h"
#include "backend/model/pyrepr.h"

namespace allocsim::backend {

using namespace std::string_view_literals;

namespace {

constexpr const char* kMapName = "videoflow-map";
constexpr const char* kPolicyName = "clusterpolicy";
constexpr const char* kClockName = "clock";
constexpr const char* kPendingName = "pending-geometry";

bool is_truthy(const std::optional<std::string>& s) { return s.has_value() && !s->empty(); }

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? std::string(sep) : "") + items[i];
  return out;
}

// The seed's `','.join(f'{k}:{v}' for k, v in sorted(layout.items()))`, into `out` through `sorted` (both
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
// (with its heap storage) when there is one, else a new one. The caller overwrites every field it keeps.
template <class T>
T& next_slot(std::vector<T>& v, size_t& used) {
  if (used == v.size()) v.emplace_back();
  return v[used++];
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

// The seed's `by_node` and its other per-node dicts are hashed; here a plan finds a node's index in its
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

}  // namespace

// -- state lookups ------------------------------------------------------------------------------

uint64_t StampedLabels::fresh_stamp() {
  // Only ever compared for equality (labels_class): which number a write gets decides nothing else, so a
  // counter shared by the sweep's threads keeps every run deterministic.
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::string_view MemoryBackend::classify_labels(size_t node, const StampedLabels& labels) {
  std::vector<LabelClass>& memo = label_classes_.get();
  if (memo.size() <= node) memo.resize(node + 1);
  LabelClass& m = memo[node];
  m.stamp = labels.stamp();
  m.result = gfd_class(labels.get());
  m.known = true;
  return m.result;
}

std::string NodeFixture::classification() const {
  if (!mig_layout.empty()) return kClassMig;
  return classify_gfd_labels(labels.get());
}

const NodeFixture* BackendState::node(std::string_view name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}
NodeFixture* BackendState::node(std::string_view name) {
  return const_cast<NodeFixture*>(static_cast<const BackendState*>(this)->node(name));
}
const Claim* BackendState::claim(std::string_view id) const {
  for (const auto& c : claims)
    if (c.claim_id == id) return &c;
  return nullptr;
}
Claim* BackendState::claim(std::string_view id) {
  return const_cast<Claim*>(static_cast<const BackendState*>(this)->claim(id));
}

NodeFixture& MemoryBackend::node_at(std::string_view name) {
  if (NodeFixture* n = s_.node(name)) return *n;
  throw std::out_of_range("no node " + std::string(name));
}
Claim& MemoryBackend::claim_at(const std::string& id) {
  if (Claim* c = s_.claim(id)) return *c;
  throw std::out_of_range("no claim " + id);
}

template <class T>
Observation<T> MemoryBackend::known_now(T value, std::optional<std::string> generation) const {
  Observation<T> o;
  o.known = true;
  o.value = std::move(value);
  o.generation = std::move(generation);
  o.observed_at = s_.clock.now();
  return o;
}
template <class T>
Observation<T> MemoryBackend::unknown_now(std::string reason, std::string detail) const {
  Observation<T> o;
  o.reason = std::move(reason);
  o.detail = std::move(detail);
  o.observed_at = s_.clock.now();
  return o;
}

// -- construction, capabilities (lines 132-165) -----------------------------------------------------

MemoryBackend::MemoryBackend(std::vector<NodeFixture> nodes, BackendOptions options) : opt_(std::move(options)) {
  // `{n.name: n for n in nodes}`: a repeated name keeps its first position and its last value.
  for (auto& n : nodes) {
    if (NodeFixture* same = s_.node(n.name))
      *same = std::move(n);
    else
      s_.nodes.push_back(std::move(n));
  }
  devices_for(std::nullopt);
  advertised_ = capabilities();
}

AllocationCapabilities MemoryBackend::capabilities() const {
  const std::string& a = opt_.authority;
  const bool managed = a == kAuthorityManagedMig;
  const bool dra = a == kAuthorityDra;
  AllocationCapabilities caps;
  caps.adapter = "memory-" + a;
  caps.authority = a;
  caps.exclusive_device = true;
  caps.isolated_mig = managed || dra;
  caps.cooperative_sharing = a == kAuthorityLocal;
  caps.memory_enforcement = (managed || dra) ? "hardware" : (a == kAuthorityLocal ? "none" : "accounting");
  caps.multi_device = true;
  caps.topology_verification = false;
  caps.elastic = !managed;
  caps.admission_boundary = true;
  return caps;
}

// -- reads (lines 168-191) ----------------------------------------------------------------------------

void MemoryBackend::fail_reads(Caller& c, const std::string& kind, std::optional<std::string> reason) {
  LockGuard lock(c);
  c.touch(Obj::FailedReads, kind, true);
  if (!reason)
    erase_in(s_.failed_reads, kind);
  else
    put_in(s_.failed_reads, kind, *reason);
}

Observation<InventorySnapshot> MemoryBackend::inventory(Caller& c,
                                                        const std::optional<std::vector<std::string>>& scope_nodes) {
  Observation<InventorySnapshot> out;
  inventory_into(c, scope_nodes, out);
  return out;
}

const DeviceTuple& MemoryBackend::devices_for(const std::optional<std::vector<std::string>>& scope) {
  if (!scope && all_devices_built_) return all_devices_;
  if (scope && scoped_devices_scope_ == scope) return scoped_devices_;
  std::vector<DeviceIdentity> devices;
  for (const auto& n : s_.nodes) {
    if (scope && std::find(scope->begin(), scope->end(), n.name) == scope->end()) continue;
    for (int i = 0; i < n.gpu_count; ++i)
      // {node, ordinal i, uuid "GPU-<node>-<i>", no mig uuid, product, memory bytes, no mig profile}
      devices.push_back(DeviceIdentity{n.name, i, fmt::format("GPU-{}-{}", n.name, i), std::nullopt, n.product,
                                       static_cast<int64_t>(n.memory_gib * static_cast<double>(kGiB)), std::nullopt});
  }
  if (!scope) {
    all_devices_built_ = true;
    return all_devices_ = DeviceTuple(std::move(devices));
  }
  scoped_devices_scope_ = scope;
  return scoped_devices_ = DeviceTuple(std::move(devices));
}

// The seed's `inventory`, written into the caller's storage: the device list is the backend's shared one
// (devices_for), the maps are refilled within their kept capacity; same fields, same order.
void MemoryBackend::inventory_into(Caller& c, const std::optional<std::vector<std::string>>& scope_nodes,
                                   Observation<InventorySnapshot>& out) {
  LockGuard lock(c);
  c.touch(Obj::FailedReads, "nodes", false);
  c.touch(Obj::Clock, kClockName, false);
  if (const std::string* reason = find_in(s_.failed_reads, "nodes")) {
    out.known = false;  // unknown_now("<reason>", "node listing failed")
    out.generation.reset();
    out.reason = *reason;
    out.detail = "node listing failed";
    out.observed_at = s_.clock.now();
    return;
  }
  c.touch(Obj::FailedReads, "pods", false);
  c.touch(Obj::AllNodes, "", false);
  // Line 181's list `nodes` of scoped nodes, as a predicate over s_.nodes (scenario order) rather than a copy.
  const auto scoped = [&scope_nodes](const NodeFixture& n) {
    return !scope_nodes || std::find(scope_nodes->begin(), scope_nodes->end(), n.name) != scope_nodes->end();
  };
  if (c.records_reads())
    for (const auto& n : s_.nodes)
      if (scoped(n)) c.touch(Obj::Node, n.name, false);
  InventorySnapshot& snap = out.value;
  snap.devices = devices_for(scope_nodes);
  const bool partial = find_in(s_.failed_reads, "pods") != nullptr;
  const bool idle_mutant = partial && opt_.mutants.has(Mutant::PartialInventoryIsIdle);
  snap.occupancy.clear();
  if (!partial || idle_mutant)
    for (const auto& n : s_.nodes) {
      if (!scoped(n)) continue;
      int used = 0;
      for (const auto& [workload, units] : n.workloads) used += units;
      snap.occupancy.emplace_back(n.name, idle_mutant ? 0 : used);
    }
  snap.sharing.clear();
  snap.owners.clear();
  int64_t generation = 0;
  for (size_t i = 0; i < s_.nodes.size(); ++i) {
    const NodeFixture& n = s_.nodes[i];
    if (!scoped(n)) continue;
    // n.classification(), with the labels' part memoised (labels_class)
    snap.sharing.emplace_back(n.name, n.mig_layout.empty() ? labels_class(i, n.labels) : kClassMig);
    if (is_truthy(n.owner)) snap.owners.emplace_back(n.name, *n.owner);
    generation += n.resource_version;
  }
  snap.completeness = (partial && !idle_mutant) ? kCompletenessPartial : kCompletenessComplete;
  snap.observed_at = s_.clock.now();
  snap.generation = std::to_string(generation);
  out.known = true;  // known_now(snap, snap.generation)
  out.generation = snap.generation;
  out.reason.clear();
  out.detail.clear();
  out.observed_at = s_.clock.now();
}

// -- planning (lines 194-259) ---------------------------------------------------------------------------

PlanOutcome MemoryBackend::plan(Caller& c, const std::vector<WorkloadRequest>& requests,
                                const InventorySnapshot& snapshot) {
  PlanOutcome out;
  plan_into(c, requests, snapshot, out);
  return out;
}

// The seed's `plan`, over storage kept across calls: its dicts and lists live in PlanScratch (holding views
// where the seed holds references) and in `out`'s own FeasiblePlan, whose entries are overwritten in place so
// that their strings and device lists keep their capacity. Same insertion orders, same texts.
void MemoryBackend::plan_into(Caller& c, const std::vector<WorkloadRequest>& requests,
                              const InventorySnapshot& snapshot, PlanOutcome& out) {
  PlanScratch& s = plan_scratch_.get();
  s.reasons.clear();
  if (snapshot.completeness != std::string_view(kCompletenessComplete)) {  // a view: no strlen per plan
    out = Infeasible{{"occupancy unknown: the pod listing failed, so no device can be assumed idle"}};
    return;
  }
  // The seed's `by_node` dict of device lists: its keys in first-seen order, and each device's key. It depends on
  // the devices alone, so it is built once per device list: every inventory of a pool hands out the same one.
  if (!s.indexed.same_list(snapshot.devices)) {
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
    // seed's `sorted(remaining)` in the packing: a node's rank there orders it for pack_whole_devices_into.
    s.rank.resize(s.nodes.size());
    for (size_t pos = 0; pos < s.by_name.size(); ++pos) s.rank[s.by_name[pos].index] = static_cast<uint32_t>(pos);
  }
  index_by_name(snapshot.owners, s, s.node_owner);
  index_by_name(snapshot.sharing, s, s.node_sharing);
  index_by_name(snapshot.occupancy, s, s.node_occupied);
  size_t n_free = 0;
  size_t n_excluded = 0;
  s.free_rank.clear();
  for (uint32_t k = 0; k < s.nodes.size(); ++k) {
    const std::string_view node = s.nodes[k];
    const std::string* owner = s.node_owner[k];
    if (owner && !owner->empty() && !requests.empty() && *owner != requests[0].flow_id) {
      std::string& why = next_slot(s.excluded, n_excluded);
      why.clear();
      fmt::format_to(std::back_inserter(why), FMT_COMPILE("{}: owned by {}"), node, *owner);
      continue;  // another flow's node is not ours to plan on
    }
    // Shares and slices are not whole devices, and unknown evidence is never upgraded to physical;
    // sharers reach MIG through geometry instead (seed comment, lines 210-213).
    const std::string* sharing = s.node_sharing[k];
    if (sharing && is_share_or_slice(*sharing)) {
      std::string& why = next_slot(s.excluded, n_excluded);
      why.clear();
      fmt::format_to(std::back_inserter(why),
                     FMT_COMPILE("{}: {} \u2014 its units are shares or slices, not whole devices"), node, *sharing);
      continue;
    }
    const int* occupied = s.node_occupied[k];
    // `free[node] = ...` with `node` not yet among free's keys (the nodes are distinct): no search.
    s.free_rank.push_back(s.rank[k]);
    auto& slot = next_slot(s.free, n_free);
    slot.first = node;
    slot.second = s.node_devices[k] - (occupied ? *occupied : 0);
  }
  s.free.resize(n_free);
  // `excluded` keeps its slots past this call's count: a shrink would free their texts (issue 16).
  const std::span<const std::string> excluded(s.excluded.data(), n_excluded);

  FeasiblePlan* plan = std::get_if<FeasiblePlan>(&out);
  if (plan == nullptr) plan = &out.emplace<FeasiblePlan>();
  auto& assignments = plan->assignments;
  size_t n_assigned = 0;
  size_t n_geometry = 0;
  s.exclusive.clear();
  s.sharers.clear();
  for (const auto& r : requests) {
    if (r.sharing == kSharingExclusive || r.sharing == kSharingCooperative || r.sharing == kSharingAccountingOnly)
      s.exclusive.push_back(&r);
    if (r.sharing == kSharingIsolatedMig) s.sharers.push_back(&r);
  }
  s.wanted.clear();
  for (const auto* r : s.exclusive) s.wanted.emplace_back(r->workload_id, r->device_count);
  const bool packed = pack_whole_devices_into(s.wanted, s.free, s.free_rank, s.pack, s.packed);
  if (!packed) {
    s.reasons.push_back(fmt::format(
        "no per-host packing places every whole-device request on one node (free per node: {}; excluded: {})",
        py::dict(s.free), excluded.empty() ? std::string("none") : py::list(excluded)));
  } else {
    for (const auto& [workload_id, node] : s.packed) {
      const WorkloadRequest* request =
          // An init-capture: clang 14 (the fuzz build) cannot capture a structured binding by [&].
          *std::find_if(s.exclusive.begin(), s.exclusive.end(),
                        [&id = workload_id](const auto* r) { return r->workload_id == id; });
      const uint32_t k = index_of(s, node);
      s.taken.clear();
      for (size_t i = 0; i < snapshot.devices.size(); ++i) {
        if (s.device_node[i] != k) continue;
        const DeviceIdentity& d = snapshot.devices[i];
        bool assigned = false;
        for (size_t a = 0; a < n_assigned; ++a) {
          const auto& devices = assignments[a].second;
          assigned = assigned || std::find(devices.begin(), devices.end(), d) != devices.end();
        }
        if (!assigned) s.taken.push_back(&d);
      }
      s.taken.resize(slice_end(s.taken.size(), request->device_count));
      std::vector<DeviceIdentity>& devices = reuse_put(assignments, n_assigned, workload_id);
      devices.resize(s.taken.size());
      for (size_t j = 0; j < s.taken.size(); ++j) devices[j] = *s.taken[j];
    }
  }
  if (!s.sharers.empty()) {
    if (opt_.authority != kAuthorityManagedMig && opt_.authority != kAuthorityDra) {
      s.reasons.push_back(opt_.authority + " cannot provide isolated MIG slices");
    } else {
      size_t n_layouts = 0;
      for (const WorkloadRequest* request : s.sharers) {
        // The first free node in `free`'s (insertion) order that no whole-device request took.
        const std::string_view* mig_node = nullptr;
        if (packed)
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
        const std::string& product = node_at(node).product;  // products never change, and nothing yields here
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
        std::vector<DeviceIdentity>& devices = reuse_put(assignments, n_assigned, request->workload_id);
        devices.resize(1);
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
        for (const auto& p : check_layout(node_at(node).product, layout)) s.reasons.push_back(node + ": " + p);
        layout_string_into(layout, s.sorted_layout, reuse_put(plan->geometry, n_geometry, node));
      }
    }
  }
  if (!s.reasons.empty()) {
    out = Infeasible{std::move(s.reasons)};
    return;
  }
  assignments.resize(n_assigned);
  plan->geometry.resize(n_geometry);
  plan->snapshot_generation = snapshot.generation;
  plan->plan_id = c.next_id("plan");
  resize_keeping(plan->notes, excluded.size(), spare_texts_);
  for (size_t i = 0; i < excluded.size(); ++i) plan->notes[i] = excluded[i];
}

// -- claim storage ------------------------------------------------------------------------------------------

Claim MemoryBackend::new_claim() {
  Claim fresh;  // every field as the seed's `_Claim(...)` starts it
  // Only the buffers of fields try_reserve_into assigns in full right after, and of those it starts empty
  // (cleared here): their old contents never show.
  spare_claims_.take_parts([&fresh](Claim& old) {
    fresh.claim_id.swap(old.claim_id);
    fresh.owner.swap(old.owner);
    fresh.plan = std::move(old.plan);
    fresh.generation.swap(old.generation);
    fresh.nodes.swap(old.nodes);
    fresh.op_id.swap(old.op_id);
    fresh.entry_name.swap(old.entry_name);
    fresh.entry_name.clear();
    fresh.label_versions.swap(old.label_versions);
    fresh.label_versions.clear();
  });
  return fresh;
}

void MemoryBackend::assign_plan(FeasiblePlan& to, const FeasiblePlan& from) {
  static_assert(sizeof(FeasiblePlan) == 136, "FeasiblePlan changed: assign the new field in assign_plan");
  to.assignments = from.assignments;
  to.geometry = from.geometry;
  to.snapshot_generation = from.snapshot_generation;
  to.plan_id = from.plan_id;
  assign_keeping(to.notes, from.notes, spare_texts_);
}

void MemoryBackend::recycle_state() {
  for (Claim& cl : s_.claims) spare_claims_.give(std::move(cl));
  s_.claims.clear();
  for (Mutation& m : s_.audit) spare_mutations_.give(std::move(m));
  s_.audit.clear();
  for (auto& entry : s_.shared_config) spare_entries_.give(std::move(entry));
  s_.shared_config.clear();
  if (s_.pointer_restore) spare_texts_.give(std::move(*s_.pointer_restore));
  s_.pointer_restore.reset();
}

void MemoryBackend::erase_entry(const std::string& entry) {
  for (auto it = s_.shared_config.begin(); it != s_.shared_config.end(); ++it)
    if (it->first == entry) {
      spare_entries_.give(std::move(*it));
      s_.shared_config.erase(it);
      return;
    }
}

// -- reservation (CAS) (lines 262-347) --------------------------------------------------------------------

ClaimObservation MemoryBackend::reserve(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                                        const std::optional<std::string>& expected_generation) {
  std::optional<OwnershipConflict> conflict;
  ClaimObservation obs = try_reserve(c, plan, operation_id, expected_generation, conflict);
  if (conflict) throw std::move(*conflict);
  return obs;
}

ClaimObservation MemoryBackend::try_reserve(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                                            const std::optional<std::string>& expected_generation,
                                            std::optional<OwnershipConflict>& conflict) {
  ClaimObservation obs;
  ReserveLoss loss;
  try_reserve_into(c, plan, operation_id, expected_generation, loss, obs);
  if (loss) conflict.emplace(loss.error());
  return obs;
}

// The seed's `reserve` body. Each of its three `raise OwnershipConflict(...)` is `return lost(...)` here: the
// same effects in the same order, without unwinding the stack (unwinding cost more than the rest of an
// execution, and a lost CAS ends about half of all executions of a two-claimant scenario) and without wording
// the error (ReserveLoss::error() does, for whoever asks).
void MemoryBackend::try_reserve_into(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                                     const std::optional<std::string>& expected_generation, ReserveLoss& loss,
                                     ClaimObservation& out) {
  loss.kind = ReserveLoss::Kind::kNone;
  const auto lost = [&loss](ReserveLoss::Kind kind, const std::string& node) {
    loss.kind = kind;
    loss.node = node;
  };
  const std::string owner = operation_id.substr(0, operation_id.find(':'));
  // Line 265, `sorted({d.node for ... if d.node})`: a vector sorted and deduplicated in place of the set, with
  // inline room for the usual handful of nodes (no heap use per reserve; issue 16).
  boost::container::small_vector<std::string, 4> nodes;
  for (const auto& [workload, devices] : plan.assignments)
    for (const auto& d : devices)
      if (is_truthy(d.node)) nodes.push_back(*d.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::string current;
  {
    LockGuard lock(c);
    c.touch(Obj::AllNodes, "", false);
    int64_t sum = 0;
    for (const auto& n : s_.nodes) {
      if (c.records_reads()) c.touch(Obj::Node, n.name, false);
      sum += n.resource_version;
    }
    current = std::to_string(sum);
  }
  if (expected_generation && *expected_generation != current && !opt_.mutants.has(Mutant::StalePlanApplied)) {
    // The plan was made on an inventory that has since changed: never apply a stale plan (ALLOC-023).
    loss.expected = *expected_generation;
    loss.current = current;
    return lost(ReserveLoss::Kind::kStalePlan, {});
  }
  const std::string claim_id = c.next_id("claim");
  const std::string generation = c.next_id("gen");
  boost::container::small_vector<std::string, 4> stamped;
  for (const std::string& node_name : nodes) {
    // Read and write are two API calls; the barriers between them sit outside the lock so a second
    // claimant can read the same version meanwhile (ALLOC-004). The write re-checks the version.
    std::optional<std::string> seen_owner;
    int64_t seen_version = 0;
    {
      LockGuard lock(c);
      c.touch(Obj::Node, node_name, false);
      const NodeFixture& node = node_at(node_name);
      seen_owner = node.owner;
      seen_version = node.resource_version;
    }
    c.barrier("owner.read.after", FMT_COMPILE("node={} op_id={} version={}"), node_name, operation_id, seen_version);
    if (seen_owner && *seen_owner != owner) {
      {
        LockGuard lock(c);
        rollback(c, {stamped.data(), stamped.size()}, generation, operation_id);
      }
      loss.owner = *seen_owner;
      return lost(ReserveLoss::Kind::kOwned, node_name);
    }
    c.barrier("owner.update.before", FMT_COMPILE("node={} op_id={}"), node_name, operation_id);
    {
      LockGuard lock(c);
      c.touch(Obj::Node, node_name, false);
      // client-side-claim mutant: the write names no resourceVersion, so a lost race goes unnoticed.
      if (!opt_.mutants.has(Mutant::ClientSideClaim) && node_at(node_name).resource_version != seen_version) {
        rollback(c, {stamped.data(), stamped.size()}, generation, operation_id);
        loss.read_version = seen_version;
        loss.write_version = node_at(node_name).resource_version;
        return lost(ReserveLoss::Kind::kVersionChanged, node_name);
      }
      NodeFixture& node = node_at(node_name);
      if (node.owner != owner) {
        c.touch(Obj::Node, node_name, true);
        node.owner = owner;
        node.owner_epoch = generation;
        node.resource_version += 1;
        stamped.push_back(node_name);
        record(c, operation_id, "stamp-owner", node_name, owner);
      }
    }
    c.barrier("owner.update.after", FMT_COMPILE("node={} op_id={}"), node_name, operation_id);
  }

  LockGuard lock(c);
  Claim fresh = new_claim();
  fresh.claim_id = claim_id;
  fresh.owner = owner;
  assign_plan(fresh.plan, plan);
  fresh.generation = generation;
  fresh.nodes.assign(nodes.begin(), nodes.end());
  fresh.op_id = operation_id;
  c.touch(Obj::Claim, "", true);
  c.touch(Obj::Claim, claim_id, true);
  if (Claim* same = s_.claim(claim_id))
    *same = std::move(fresh);  // `self._claims[claim_id] = claim` keeps a reused id's position
  else
    s_.claims.push_back(std::move(fresh));
  c.barrier("claim.create.after", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
  // This step writes the claim again (its entry name and label versions below, its status at the end): a
  // write DPOR and the causal slice must see like any other (docs/DESIGN.md §2, "DPOR must never hide a
  // violation"), or an observe of the claim and this step look independent.
  c.touch(Obj::Claim, claim_id, true);
  if (!plan.geometry.empty() && opt_.authority == kAuthorityManagedMig) {
    // `entry` is the claim's own entry_name (new_claim left it empty, with a spare's buffer): nothing below
    // yields, so no other actor adds a claim and moves it before the block ends.
    const std::string& entry = claim_at(claim_id).entry_name;
    fmt::format_to(std::back_inserter(claim_at(claim_id).entry_name), "{}{}-{}", kEntryPrefix, owner, generation);
    c.touch(Obj::SharedMap, kMapName, true);
    auto published = spare_entries_.take();  // (entry, members) in a spare's buffers, assigned in full
    published.first.assign(entry);
    OrderedMap<std::string, int>& members = published.second;
    members.clear();
    for (const auto& [node_name, layout] : plan.geometry) put_in(members, node_name, 1);
    if (auto* same = find_in(s_.shared_config, entry))
      *same = std::move(members);  // `self._config[entry] = ...` keeps a republished entry's position
    else
      s_.shared_config.push_back(std::move(published));
    s_.shared_config_version += 1;
    s_.shared_tombstone = false;
    s_.shared_map_deleted = false;  // only ever true under the map-deleted-on-last-out mutant
    std::string& detail = text_scratch_.get();
    detail.clear();
    py::dict_into(detail, plan.geometry);
    record(c, operation_id, "publish-entry", entry, detail);
    c.touch(Obj::Pointer, kPolicyName, true);
    if (s_.pointer != kActivePointer) {
      s_.pointer_restore.emplace(spare_texts_.take());  // a spare's buffer, assigned in full next (issue 16)
      *s_.pointer_restore = s_.pointer;
      s_.pointer = kActivePointer;
      s_.pointer_version += 1;
      record(c, operation_id, "point-policy", kPolicyName, kActivePointer);
    }
    for (const auto& [node_name, layout] : plan.geometry) {
      c.touch(Obj::Node, node_name, true);
      NodeFixture& node = node_at(node_name);
      // restore-record-overwritten mutant (ALLOC-033's upstream defect): the seed's `if node.restore_record
      // is None` guard dropped, so a prepare on a node already carrying an allocsim entry records that entry.
      if (!node.restore_record || opt_.mutants.has(Mutant::RestoreRecordOverwritten)) {
        node.restore_record = node.mig_config;
        record(c, operation_id, "record-restore", node_name, node.mig_config);
      }
      node.mig_config = entry;
      // stale-success-readiness mutant: the node keeps showing its previous terminal state.
      if (!opt_.mutants.has(Mutant::StaleSuccessReadiness)) node.mig_state = "pending";
      node.resource_version += 1;
      record(c, operation_id, "label-geometry", node_name, entry);
      const int64_t version = node_at(node_name).resource_version;
      put_in(claim_at(claim_id).label_versions, node_name, version);
      if (opt_.mig_apply_seconds > 0) {
        c.touch(Obj::Clock, kClockName, false);
        c.touch(Obj::Clock, kPendingName, true);
        s_.pending_geometry.push_back({s_.clock.now() + opt_.mig_apply_seconds, node_name, version});
      } else {
        apply_geometry(c, node_name, version);
      }
    }
  }
  claim_at(claim_id).status = kClaimAllocated;
  c.barrier("claim.schedule.after", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
  observe_claim_into(c, claim_at(claim_id), out);
}

void MemoryBackend::rollback(Caller& c, std::span<const std::string> stamped, const std::string& generation,
                             const std::string& operation_id) {
  for (const std::string& node_name : stamped) {
    c.touch(Obj::Node, node_name, false);
    NodeFixture& node = node_at(node_name);
    if (node.owner_epoch == generation) {  // only what *we* stamped, never a newer owner
      c.touch(Obj::Node, node_name, true);
      node.owner.reset();
      node.owner_epoch.reset();
      node.resource_version += 1;
      record(c, operation_id, "release-owner", node_name, "rollback");
    }
  }
}

// -- geometry application (lines 349-378) ----------------------------------------------------------------

void MemoryBackend::fail_geometry(Caller& c, const std::string& node) {
  LockGuard lock(c);
  c.touch(Obj::FailingGeometry, node, true);
  if (std::find(s_.failing_geometry.begin(), s_.failing_geometry.end(), node) == s_.failing_geometry.end())
    s_.failing_geometry.push_back(node);
}

void MemoryBackend::apply_geometry(Caller& c, const std::string& node_name, int64_t version) {
  c.touch(Obj::FailingGeometry, node_name, false);
  c.touch(Obj::Node, node_name, true);
  bool failing =
      std::find(s_.failing_geometry.begin(), s_.failing_geometry.end(), node_name) != s_.failing_geometry.end();
  // Port-only hooks (geometry_hooks.cpp); both maps are empty unless a scenario arms them.
  if (const double* until = find_in(s_.failing_geometry_until, node_name); until && !failing) {
    c.touch(Obj::Clock, kClockName, false);
    failing = s_.clock.now() < *until;
  }
  NodeFixture& node = node_at(node_name);
  node.mig_state = failing ? "failed" : "success";
  node.mig_state_generation = version;
  if (failing) return;
  if (std::find(s_.hollow_geometry.begin(), s_.hollow_geometry.end(), node_name) != s_.hollow_geometry.end())
    return;  // success reported for this write; the layout is left as it was
  c.touch(Obj::SharedMap, kMapName, false);
  // Built in the backend's scratch and swapped in: the node's old layout's buffer is the next one's (issue 16).
  OrderedMap<std::string, int>& layout = layout_scratch_.get();
  layout.clear();
  if (find_in(s_.shared_config, node.mig_config) != nullptr) {
    c.touch(Obj::Claim, "", false);
    for (const auto& claim : s_.claims) {
      c.touch(Obj::Claim, claim.claim_id, false);
      if (claim.entry_name != node.mig_config) continue;
      const std::string* geometry = find_in(claim.plan.geometry, node_name);
      std::string_view rest = geometry ? std::string_view(*geometry) : std::string_view();
      // `for part in geometry.split(','): if ':' in part: profile, count = part.split(':')`
      while (true) {
        const size_t comma = rest.find(',');
        const std::string_view part = rest.substr(0, comma);
        const size_t colon = part.find(':');
        if (colon != std::string_view::npos)
          put_in(layout, std::string(part.substr(0, colon)), std::stoi(std::string(part.substr(colon + 1))));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  }
  node.mig_layout.swap(layout);
}

void MemoryBackend::apply_pending_geometry(Caller& c) {
  LockGuard lock(c);
  c.touch(Obj::Clock, kClockName, false);
  c.touch(Obj::Clock, kPendingName, true);
  const double now = s_.clock.now();
  std::vector<PendingGeometry> due, later;
  for (auto& p : s_.pending_geometry) (p.due <= now ? due : later).push_back(p);
  s_.pending_geometry = std::move(later);
  for (const auto& p : due) apply_geometry(c, p.node, p.version);
}

// -- observation (lines 381-440) -----------------------------------------------------------------------------

Observation<ClaimObservation> MemoryBackend::observe(Caller& c, const std::string& claim_id) {
  LockGuard lock(c);
  c.touch(Obj::FailedReads, "nodes", false);
  c.touch(Obj::Clock, kClockName, false);
  if (const std::string* reason = find_in(s_.failed_reads, "nodes"))
    return unknown_now<ClaimObservation>(*reason, "node read failed");
  c.touch(Obj::Claim, claim_id, false);
  const Claim* claim = s_.claim(claim_id);
  // strict-claim-lookup mutant: `self._claims[claim_id]` instead of `.get()`: std::out_of_range (KeyError) for a
  // claim that is gone, where the seed answers Unknown.
  if (opt_.mutants.has(Mutant::StrictClaimLookup)) claim = &claim_at(claim_id);
  if (claim == nullptr) return unknown_now<ClaimObservation>("unreachable", "no claim " + claim_id);
  return known_now(observe_claim(c, *claim), claim->generation);
}

ClaimObservation MemoryBackend::observe_claim(Caller& c, const Claim& claim) const {
  ClaimObservation obs;
  observe_claim_into(c, claim, obs);
  return obs;
}

// The seed's `_observe`, into `obs`'s storage: every field is assigned (evidence and grant entries in place),
// so `obs` ends as a fresh observation would.
void MemoryBackend::observe_claim_into(Caller& c, const Claim& claim, ClaimObservation& obs) const {
  c.touch(Obj::Claim, claim.claim_id, false);
  bool prepared = true;
  bool failed = false;
  obs.evidence.resize(claim.nodes.size());
  for (size_t i = 0; i < claim.nodes.size(); ++i) {
    const std::string& node_name = claim.nodes[i];
    c.touch(Obj::Node, node_name, false);
    const NodeFixture* found = s_.node(node_name);
    if (found == nullptr) throw std::out_of_range("no node " + node_name);
    const NodeFixture& node = *found;
    NodeEvidence& e = obs.evidence[i];
    e.node = node_name;
    e.mig_config = node.mig_config;
    e.state = node.mig_state;
    e.state_generation = node.mig_state_generation;
    e.resource_version = node.resource_version;
    e.layout = node.mig_layout;
    if (!claim.entry_name.empty()) {
      // Operation-correlated readiness: the state must answer *this* write (the seed's `- 0` dropped).
      // readiness-one-write-behind mutant: `- 1`, so a success answering the node's previous write counts.
      const int64_t behind = opt_.mutants.has(Mutant::ReadinessOneWriteBehind) ? 1 : 0;
      // (The states compared as views, "..."sv: as `const char*` each comparison measured its literal.)
      bool answers = node.mig_config == claim.entry_name && node.mig_state == "success"sv &&
                     node.mig_state_generation >= node.resource_version - behind;
      if (opt_.mutants.has(Mutant::StaleSuccessReadiness)) answers = node.mig_state == "success"sv;
      prepared = prepared && answers;
      failed = failed || (node.mig_state == "failed"sv && node.mig_config == claim.entry_name);
    }
  }
  if (claim.status == kClaimFailed || failed)
    obs.status = kClaimFailed;
  else if (claim.workload_ready)
    obs.status = kClaimReady;
  else if (!claim.entry_name.empty() && prepared)
    obs.status = kClaimPrepared;
  else
    obs.status = claim.status;
  if (opt_.mutants.has(Mutant::AllocatedIsReady) && obs.status == kClaimAllocated) obs.status = kClaimReady;
  obs.claim_id = claim.claim_id;
  obs.owner = claim.owner;
  obs.desired_generation = claim.generation;
  obs.observed_generation = claim.generation;
  size_t n = 0;
  for (const auto& [workload, devices] : claim.plan.assignments) n += devices.size();
  obs.grant.resize(n);
  n = 0;
  for (const auto& [workload, devices] : claim.plan.assignments)
    for (const DeviceIdentity& d : devices) obs.grant[n++] = d;
}

void MemoryBackend::mark_workload_ready(Caller& c, const std::string& claim_id) {
  LockGuard lock(c);
  c.touch(Obj::Claim, claim_id, true);
  claim_at(claim_id).workload_ready = true;
  c.barrier("claim.ready.after", FMT_COMPILE("claim={}"), claim_id);
}

WorkloadBindings MemoryBackend::bindings(Caller& c, const std::string& claim_id, const std::string& workload_id) {
  LockGuard lock(c);
  c.touch(Obj::Claim, claim_id, false);
  const Claim& claim = claim_at(claim_id);
  const auto* found = find_in(claim.plan.assignments, workload_id);
  const std::vector<DeviceIdentity> devices = found ? *found : std::vector<DeviceIdentity>{};
  std::vector<std::string> visible;
  std::set<std::string> node_set;
  for (const auto& d : devices) {
    // `d.mig_uuid or d.uuid or str(d.ordinal)`: empty strings are falsy, a missing ordinal prints None.
    visible.push_back(is_truthy(d.mig_uuid) ? *d.mig_uuid
                      : is_truthy(d.uuid)   ? *d.uuid
                      : d.ordinal           ? std::to_string(*d.ordinal)
                                            : "None");
    if (is_truthy(d.node)) node_set.insert(*d.node);
  }
  WorkloadBindings b;
  b.env = {{"CUDA_VISIBLE_DEVICES", join(visible, ",")}, {"VF_GPU_COUNT", std::to_string(devices.size())}};
  b.nodes.assign(node_set.begin(), node_set.end());
  if (!b.nodes.empty()) b.node_selector_hostname = b.nodes.front();
  b.gpu_limit = static_cast<int>(devices.size());
  return b;
}

ClaimObservation MemoryBackend::reconcile(Caller& c, const std::string& claim_id, const std::string& desired,
                                          const std::string& expected_generation) {
  LockGuard lock(c);
  c.touch(Obj::Claim, claim_id, true);
  Claim& claim = claim_at(claim_id);
  if (claim.generation != expected_generation)
    throw OwnershipConflict(fmt::format("claim {} is at {}, not {}", claim_id, claim.generation, expected_generation),
                            "Observe the claim and retry with its current generation.");
  if (desired == kClaimFailed) claim.status = kClaimFailed;
  return observe_claim(c, claim);
}

// -- release (lines 443-498) ------------------------------------------------------------------------------------

ReleaseObservation MemoryBackend::release(Caller& c, const std::string& claim_id, const std::string& operation_id,
                                          const std::string& expected_generation, bool keep_workloads) {
  ReleaseObservation out;
  release_into(c, claim_id, operation_id, expected_generation, keep_workloads, out);
  return out;
}

namespace {

// The seed's `ReleaseObservation(claim_id, status, remaining, reason)`, written over `out`'s buffers (the node names
// its list drops or gains go through `texts`).
template <class Names>
void answer_release(ReleaseObservation& out, Spares<std::string>& texts, const std::string& claim_id,
                    std::string_view status, const Names& remaining, std::string_view reason) {
  out.claim_id = claim_id;
  out.status = status;
  resize_keeping(out.remaining, std::size(remaining), texts);
  size_t i = 0;
  for (const auto& n : remaining) out.remaining[i++] = n;
  out.reason = reason;
}

}  // namespace

void MemoryBackend::release_into(Caller& c, const std::string& claim_id, const std::string& operation_id,
                                 const std::string& expected_generation, bool keep_workloads, ReleaseObservation& out) {
  static constexpr std::array<std::string_view, 0> kNone{};
  // A copy: the seed keeps its Python reference to the claim after another release may have popped it. Only the
  // fields a release reads (owner, generation, nodes, entry name), into a spare claim's buffers, which go back to
  // the spare list however the release returns (issue 16: copying the claim was most of a release's heap use).
  auto copy = spare_claims_.borrow();
  Claim& claim = copy.value;
  {
    LockGuard lock(c);
    c.touch(Obj::Claim, claim_id, false);
    const Claim* found = s_.claim(claim_id);
    if (found == nullptr)
      return answer_release(out, spare_texts_, claim_id, kReleaseReleased, kNone, "already released");
    claim.owner = found->owner;
    claim.generation = found->generation;
    assign_keeping(claim.nodes, found->nodes, spare_texts_);
    claim.entry_name = found->entry_name;
    if (claim.generation != expected_generation) {
      text_scratch_.get().assign("claim generation is ").append(claim.generation);
      return answer_release(out, spare_texts_, claim_id, kReleaseStale, claim.nodes, text_scratch_.get());
    }
    // Views into the copy's node names, alive until the return.
    boost::container::small_vector<std::string_view, 4> busy;
    for (const std::string& n : claim.nodes) {
      c.touch(Obj::Node, n, false);
      if (!node_at(n).workloads.empty()) busy.push_back(n);
    }
    // restore-under-workloads mutant: the workloads are not looked at, so the release goes on to restore.
    if (opt_.mutants.has(Mutant::RestoreUnderWorkloads)) busy.clear();
    // release-spins-on-busy-nodes mutant: waits for the workloads instead of answering pending_recovery, but
    // polls with the lock held, so the unbind that would end the wait can never take it (a livelock). Each
    // poll is a barrier, i.e. a scheduling point, as a real poll loop sleeps between reads.
    while (opt_.mutants.has(Mutant::ReleaseSpinsOnBusyNodes) && !keep_workloads && !busy.empty()) {
      c.barrier("restore.before", FMT_COMPILE("claim={} op_id={} waiting_for_workloads=1"), claim_id, operation_id);
      busy.clear();
      for (const std::string& n : claim.nodes) {
        c.touch(Obj::Node, n, false);
        if (!node_at(n).workloads.empty()) busy.push_back(n);
      }
    }
    if (keep_workloads || !busy.empty()) {
      // lock-leak-on-pending-recovery mutant: an early return that skips the unlock (one lock level leaks;
      // the LockGuard releases only its own), so the backend lock stays held after this call returns.
      if (opt_.mutants.has(Mutant::LockLeakOnPendingRecovery)) c.lock();
      if (busy.empty())
        return answer_release(out, spare_texts_, claim_id, kReleasePendingRecovery, claim.nodes, "workloads retained");
      return answer_release(out, spare_texts_, claim_id, kReleasePendingRecovery, busy,
                            "workloads still hold the devices");
    }
    c.barrier("restore.before", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
    c.touch(Obj::FailedReads, "config", false);
    if (find_in(s_.failed_reads, "config") != nullptr)
      return answer_release(out, spare_texts_, claim_id, kReleasePendingRecovery, claim.nodes,
                            "shared configuration could not be read; ownership retained for retry");
    if (Claim* live = s_.claim(claim_id)) {
      c.touch(Obj::Claim, claim_id, true);
      live->releasing = true;  // port-only: from here on the claim is releasing, no longer live
    }
    for (const std::string& node_name : claim.nodes) {
      c.touch(Obj::Node, node_name, false);
      NodeFixture& node = node_at(node_name);
      if (!claim.entry_name.empty() && node.restore_record) {
        c.touch(Obj::Node, node_name, true);
        node.mig_config = *node.restore_record;
        node.mig_layout.clear();
        node.mig_state = "success";
        node.resource_version += 1;
        node.mig_state_generation = node.resource_version;
        node.restore_record.reset();
        record(c, operation_id, "restore-geometry", node_name, node.mig_config);
      }
      // release-keeps-owner mutant: the stamp is never cleared. release-clears-any-owner mutant: cleared
      // without the owner/epoch comparison, trusting the claim's node list (a label removal with no precondition).
      const bool ours = node.owner == claim.owner && node.owner_epoch == claim.generation;
      const bool clear = opt_.mutants.has(Mutant::ReleaseClearsAnyOwner) ? node.owner.has_value()
                         : opt_.mutants.has(Mutant::ReleaseKeepsOwner)   ? false
                                                                         : ours;
      if (clear) {
        c.touch(Obj::Node, node_name, true);
        node.owner.reset();
        node.owner_epoch.reset();
        node.resource_version += 1;
        record(c, operation_id, "release-owner", node_name, claim.owner);
      }
    }
    c.barrier("restore.after", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
  }
  if (!claim.entry_name.empty()) {
    // The last-owner read and the write are two API calls: the barrier between them sits outside the
    // lock, so another flow can publish in the gap; the decision is made on the map as it is at the
    // write, never on the earlier read (ALLOC-005), unless the stale-last-out mutant is on.
    auto seen_copy = spare_seen_.borrow();  // in spare storage, as the claim's copy above; assigned in full
    SharedConfig& seen = seen_copy.value;
    {
      LockGuard lock(c);
      c.touch(Obj::SharedMap, kMapName, false);
      assign_keeping(seen, s_.shared_config, spare_entries_);
    }
    boost::container::small_vector<std::string_view, 8> seen_names;  // into `seen`, alive until the barrier
    for (const auto& [entry, members] : seen) seen_names.push_back(entry);
    std::sort(seen_names.begin(), seen_names.end());
    c.barrier("delete.before", FMT_COMPILE("entry={} op_id={} seen={}"), claim.entry_name, operation_id,
              fmt::join(seen_names, ","));  // `seen=sorted(seen)`, comma-joined as join() did
    {
      LockGuard lock(c);
      c.touch(Obj::SharedMap, kMapName, true);
      erase_entry(claim.entry_name);
      s_.shared_config_version += 1;
      record(c, operation_id, "strip-entry", claim.entry_name, "");
      bool last_out = s_.shared_config.empty();
      if (opt_.mutants.has(Mutant::StaleLastOut)) {
        erase_in(seen, claim.entry_name);
        last_out = seen.empty();
      }
      if (last_out) {
        // Last one out: restore the pointer, keep the map (tombstoned), never delete it.
        c.touch(Obj::Pointer, kPolicyName, true);
        if (s_.pointer_restore) {
          s_.pointer = *s_.pointer_restore;
          spare_texts_.give(std::move(*s_.pointer_restore));
          s_.pointer_restore.reset();
          s_.pointer_version += 1;
          record(c, operation_id, "restore-policy", kPolicyName, s_.pointer);
        }
        if (opt_.mutants.has(Mutant::MapDeletedOnLastOut)) {
          s_.shared_map_deleted = true;
          s_.shared_config.clear();
          record(c, operation_id, "delete-map", kMapName, "");
        } else {
          s_.shared_tombstone = true;
        }
      }
    }
    c.barrier("delete.after", FMT_COMPILE("entry={} op_id={}"), claim.entry_name, operation_id);
  }
  {
    LockGuard lock(c);
    c.touch(Obj::Claim, "", true);
    c.touch(Obj::Claim, claim_id, true);
    // Tolerant removal: a concurrent release of the same claim may have removed it already.
    for (size_t i = 0; i < s_.claims.size();)
      if (s_.claims[i].claim_id == claim_id) {
        spare_claims_.give(std::move(s_.claims[i]));
        s_.claims.erase(s_.claims.begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
  }
  answer_release(out, spare_texts_, claim_id, kReleaseReleased, kNone, "");
}

// -- read-back for recovery (port-only) -----------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> MemoryBackend::claims_of(Caller& c, const std::string& owner) {
  LockGuard lock(c);
  c.touch(Obj::Claim, "", false);
  std::vector<std::pair<std::string, std::string>> out;
  for (const Claim& claim : s_.claims) {
    c.touch(Obj::Claim, claim.claim_id, false);
    if (claim.owner == owner) out.emplace_back(claim.claim_id, claim.generation);
  }
  return out;
}

// -- test hooks (lines 501-528) -------------------------------------------------------------------------------------

void MemoryBackend::bind_workload(Caller& c, const std::string& node, const std::string& workload_id, int units) {
  LockGuard lock(c);
  c.touch(Obj::Node, node, true);
  NodeFixture& n = node_at(node);
  put_in(n.workloads, workload_id, units);
  n.resource_version += 1;
}

void MemoryBackend::unbind_workload(Caller& c, const std::string& node, const std::string& workload_id) {
  LockGuard lock(c);
  c.touch(Obj::Node, node, true);
  erase_in(node_at(node).workloads, workload_id);
}

void MemoryBackend::advance_clock(Caller& c, double seconds) {
  // No LockGuard: the seed's tests call `clock.advance(s)` on the FakeClock, which never takes the backend's
  // lock; only the apply that follows (apply_pending_geometry) does. So time passes even while a reserve holds
  // the lock between claim.create.after and its label write, and that reserve queues its write against the
  // advanced clock (issue 11).
  c.touch(Obj::Clock, kClockName, true);
  s_.clock.advance(seconds);
}

std::vector<Mutation> MemoryBackend::mutations(const std::vector<std::string>& kinds) const {
  std::vector<Mutation> out;
  out.resize(mutations_into(kinds, out));
  return out;
}

size_t MemoryBackend::mutations_into(const std::vector<std::string>& kinds, std::vector<Mutation>& out) const {
  size_t n = 0;
  for (const auto& m : s_.audit)
    if (kinds.empty() || std::find(kinds.begin(), kinds.end(), m.kind) != kinds.end()) {
      if (n < out.size())
        out[n] = m;  // copy-assigned: the element's strings keep their buffers
      else
        out.push_back(m);
      ++n;
    }
  return n;
}

void MemoryBackend::record(Caller& c, const std::string& op_id, std::string_view kind, std::string_view target,
                           std::string_view detail) {
  c.touch(Obj::Audit, "", true);
  Mutation m = spare_mutations_.take();  // every field assigned: a spare's old contents never show
  m.op_id.assign(op_id);
  m.kind.assign(kind);
  m.target.assign(target);
  m.detail.assign(detail);
  s_.audit.push_back(std::move(m));
}

}  // namespace allocsim::backend

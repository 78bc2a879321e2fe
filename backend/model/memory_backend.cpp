// MemoryBackend: the upstream's MemoryAllocationBackend, line for line (seed/memory_backend_reindented.py).
// Line numbers in comments refer to that file. This file holds the public calls but planning, reservation,
// release and geometry application, which are in memory_backend_{plan,reserve,release,geometry}.cpp beside it
// (state lookups and recycled storage: memory_backend_storage.cpp).
//
// The porting rules of memory_backend.h ("Porting rules", numbered and checked) run through every one of these
// files: the lock exactly where the upstream writes `with self._lock:` (barrier() checks each barrier's side of
// it); after any barrier, other actors may have run, so pointers into the state's nodes and claims are looked up again
// by name or id, and held only inside a Pinned scope (the upstream's Python references stay valid across the
// gap, C++ ones do not); recycled storage assigned in full before it is read (poisoned in check mode).
#include "backend/model/memory_backend.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "backend/model/errors.h"
#include "backend/model/memory_backend_idioms.h"

namespace allocsim::backend {

using namespace std::string_view_literals;
using namespace port;

namespace {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? std::string(sep) : "") + items[i];
  return out;
}

}  // namespace

template <class T>
Observation<T> MemoryBackend::known_now(const FakeClock& clock, T value, std::optional<std::string> generation) const {
  Observation<T> o;
  o.known = true;
  o.value = std::move(value);
  o.generation = std::move(generation);
  o.observed_at = clock.now();
  return o;
}
template <class T>
Observation<T> MemoryBackend::unknown_now(const FakeClock& clock, std::string reason, std::string detail) const {
  Observation<T> o;
  o.reason = std::move(reason);
  o.detail = std::move(detail);
  o.observed_at = clock.now();
  return o;
}

// -- construction, capabilities (lines 132-165) -----------------------------------------------------

// The upstream's `__init__` (lines 132-153).
MemoryBackend::MemoryBackend(std::vector<NodeFixture> nodes, BackendOptions options) : opt_(std::move(options)) {
  // `{n.name: n for n in nodes}`: a repeated name keeps its first position and its last value.
  BackendState& s = s_.untracked();  // no actor is inside the backend yet
  for (auto& n : nodes) {
    if (NodeFixture* same = s.node(n.name))
      *same = std::move(n);
    else
      s.nodes.push_back(std::move(n));
  }
  devices_for(std::nullopt);
  advertised_ = capabilities();
}

// The upstream's `capabilities` (lines 155-165).
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

// The upstream's `fail_reads` (lines 168-174).
void MemoryBackend::fail_reads(Caller& c, const std::string& kind, std::optional<std::string> reason) {
  LockGuard lock(c);
  OrderedMap<std::string, std::string>& failed_reads = s_.failed_reads_for_write(c, kind);
  if (!reason)
    erase_in(failed_reads, kind);
  else
    put_in(failed_reads, kind, *reason);
}

Observation<InventorySnapshot> MemoryBackend::inventory(Caller& c,
                                                        const std::optional<std::vector<std::string>>& scope_nodes) {
  Observation<InventorySnapshot> out;
  inventory_into(c, scope_nodes, out);
  return out;
}

const DeviceTuple& MemoryBackend::devices_for(const std::optional<std::vector<std::string>>& scope) {
  if (check_mode() && all_devices_built_) check_devices();
  if (!scope && all_devices_built_) return all_devices_;
  if (scope && scoped_devices_scope_ == scope) return scoped_devices_;
  std::vector<DeviceIdentity> devices;
  for (const auto& n : s_.untracked().nodes) {  // names, card counts, products and memory: fields no call changes
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

// Porting rule 5: mutable_state()'s REQUIRES, that the nodes keep their number, names, gpu_count, product and
// memory, since the whole pool's device list was built from them once. Check mode only (a pass over the devices).
void MemoryBackend::check_devices() const {
  size_t i = 0;
  for (const auto& n : s_.untracked().nodes)  // fields no call changes
    for (int k = 0; k < n.gpu_count; ++k, ++i)
      ALLOCSIM_PORT_CHECK(i < all_devices_.size() && all_devices_[i].node == n.name &&
                              all_devices_[i].product == n.product &&
                              all_devices_[i].memory_bytes == static_cast<int64_t>(n.memory_gib * double(kGiB)),
                          "5 (the nodes changed under the device list built from them: mutable_state's REQUIRES)");
  ALLOCSIM_PORT_CHECK(i == all_devices_.size(), "5 (the nodes changed under the device list built from them)");
}

namespace {

// Porting rule 6 for a known inventory: its lists are built from line 181's `nodes`, so each names the nodes of the
// scope in the pool's order, each once, and no other (sharing every one, owners the owned ones, occupancy every one
// unless the pod listing failed); the devices are the scoped nodes' cards, and the generation sums their versions.
// Check mode only: a pass over the lists.
void check_inventory(const InventorySnapshot& snap, const BackendState& s,
                     const std::optional<std::vector<std::string>>& scope) {
  const auto scoped = [&scope](const std::string& name) {
    return !scope || std::find(scope->begin(), scope->end(), name) != scope->end();
  };
  // Whether `list` names scoped nodes only, in pool order, each once; with `every`, all of them.
  const auto lists_scope = [&](const auto& list, bool every) {
    size_t k = 0;
    for (const auto& n : s.nodes) {
      if (k < list.size() && list[k].first == n.name) {
        if (!scoped(n.name)) return false;
        ++k;
      } else if (every && scoped(n.name)) {
        return false;
      }
    }
    return k == list.size();
  };
  size_t cards = 0;
  int64_t generation = 0;
  for (const auto& n : s.nodes)
    if (scoped(n.name)) cards += static_cast<size_t>(n.gpu_count), generation += n.resource_version;
  const bool complete = snap.completeness == std::string_view(kCompletenessComplete);
  ALLOCSIM_PORT_CHECK(lists_scope(snap.sharing, true) && lists_scope(snap.owners, false) &&
                          (complete ? lists_scope(snap.occupancy, true) : snap.occupancy.empty()),
                      "6 (an inventory lists a node outside its scope, one twice, or out of the pool's order)");
  ALLOCSIM_PORT_CHECK(snap.devices.size() == cards &&
                          std::all_of(snap.devices.begin(), snap.devices.end(),
                                      [&](const DeviceIdentity& d) { return d.node && scoped(*d.node); }),
                      "6 (an inventory's devices are not its scope's cards)");
  ALLOCSIM_PORT_CHECK(snap.generation == std::to_string(generation),
                      "6 (an inventory's generation is not the sum of its scope's resourceVersions)");
}

}  // namespace

// The upstream's `inventory` (lines 176-191), written into the caller's storage: the device list is the backend's
// shared one (devices_for), the maps are refilled within their kept capacity; same fields, same order.
void MemoryBackend::inventory_into(Caller& c, const std::optional<std::vector<std::string>>& scope_nodes,
                                   Observation<InventorySnapshot>& out) {
  LockGuard lock(c);
  if (check_mode()) {  // porting rule 3: each of these is assigned on both paths below
    poison(out.generation);
    poison(out.reason);
    poison(out.detail);
    poison(out.observed_at);
  }
  const std::string* nodes_failed = s_.failed_read(c, "nodes");
  const FakeClock& clock = s_.clock(c);
  if (const std::string* reason = nodes_failed) {
    if (check_mode()) poison(out.known, true);  // each path poisons it to the value it must overwrite
    out.known = false;                          // unknown_now("<reason>", "node listing failed")
    out.generation.reset();
    out.reason = *reason;
    out.detail = "node listing failed";
    out.observed_at = clock.now();
    ALLOCSIM_PORT_CHECK_SLOW(!poisoned(out), kRulePoisonLeft);
    return;
  }
  if (check_mode()) poison(out.known, false);
  const bool partial = s_.failed_read(c, "pods") != nullptr;
  // Line 181's list `nodes` of scoped nodes, as a predicate over the pool (scenario order) rather than a copy.
  const auto scoped = [&scope_nodes](const NodeFixture& n) {
    return !scope_nodes || std::find(scope_nodes->begin(), scope_nodes->end(), n.name) != scope_nodes->end();
  };
  const std::vector<NodeFixture>& nodes = s_.nodes(c, scoped);
  InventorySnapshot& snap = out.value;
  if (check_mode()) {  // porting rule 3: the known answer's fields, each assigned below
    poison(snap.occupancy);
    poison(snap.sharing);
    poison(snap.owners);
    poison(snap.completeness);
    poison(snap.observed_at);
    poison(snap.generation);
  }
  snap.devices = devices_for(scope_nodes);
  const bool idle_mutant = partial && opt_.mutants.has(Mutant::PartialInventoryIsIdle);
  snap.occupancy.clear();
  if (!partial || idle_mutant)
    for (const auto& n : nodes) {
      if (!scoped(n)) continue;
      int used = 0;
      for (const auto& [workload, units] : n.workloads) used += units;
      snap.occupancy.emplace_back(n.name, idle_mutant ? 0 : used);
    }
  snap.sharing.clear();
  snap.owners.clear();
  int64_t generation = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeFixture& n = nodes[i];
    if (!scoped(n)) continue;
    // n.classification(), with the labels' part memoised (labels_class)
    snap.sharing.emplace_back(n.name, n.mig_layout.empty() ? labels_class(i, n.labels) : kClassMig);
    if (is_truthy(n.owner)) snap.owners.emplace_back(n.name, *n.owner);
    generation += n.resource_version;
  }
  snap.completeness = (partial && !idle_mutant) ? kCompletenessPartial : kCompletenessComplete;
  snap.observed_at = clock.now();
  snap.generation = std::to_string(generation);
  out.known = true;  // known_now(snap, snap.generation)
  out.generation = snap.generation;
  out.reason.clear();
  out.detail.clear();
  out.observed_at = clock.now();
  ALLOCSIM_PORT_CHECK_SLOW(out.reason.empty() && out.detail.empty(), "6 (a known inventory with a reason or detail)");
  if (check_mode()) check_inventory(snap, s_.untracked(), scope_nodes);  // reads what the footprint above covers
  ALLOCSIM_PORT_CHECK_SLOW(!poisoned(out), kRulePoisonLeft);
}

// -- observation (lines 381-440) -----------------------------------------------------------------------------

// The upstream's `observe` (lines 381-388).
Observation<ClaimObservation> MemoryBackend::observe(Caller& c, const std::string& claim_id) {
  LockGuard lock(c);
  const std::string* nodes_failed = s_.failed_read(c, "nodes");
  const FakeClock& clock = s_.clock(c);
  if (const std::string* reason = nodes_failed)
    return unknown_now<ClaimObservation>(clock, *reason, "node read failed");
  const Pinned pinned(*this);
  const Claim* claim = s_.find_claim(c, claim_id);
  // strict-claim-lookup mutant: `self._claims[claim_id]` instead of `.get()`: std::out_of_range (KeyError) for a
  // claim that is gone, where the upstream answers Unknown.
  if (opt_.mutants.has(Mutant::StrictClaimLookup) && claim == nullptr) throw std::out_of_range("no claim " + claim_id);
  if (claim == nullptr) return unknown_now<ClaimObservation>(clock, "unreachable", "no claim " + claim_id);
  return known_now(clock, observe_claim(c, *claim), claim->generation);
}

ClaimObservation MemoryBackend::observe_claim(Caller& c, const Claim& claim) const {
  ClaimObservation obs;
  observe_claim_into(c, claim, obs);
  return obs;
}

// The upstream's `_observe` (lines 390-414), into `obs`'s storage: every field is assigned (evidence and grant
// entries in place), so `obs` ends as a fresh observation would.
void MemoryBackend::observe_claim_into(Caller& c, const Claim& claim, ClaimObservation& obs) const {
  if (check_mode()) poison(obs);  // porting rule 3: every field is assigned below
  bool prepared = true;
  bool failed = false;
  obs.evidence.resize(claim.nodes.size());
  for (size_t i = 0; i < claim.nodes.size(); ++i) {
    const std::string& node_name = claim.nodes[i];
    const NodeFixture& node = s_.node(c, node_name);
    NodeEvidence& e = obs.evidence[i];
    e.node = node_name;
    e.mig_config = node.mig_config;
    e.state = node.mig_state;
    e.state_generation = node.mig_state_generation;
    e.resource_version = node.resource_version;
    e.layout = node.mig_layout;
    if (!claim.entry_name.empty()) {
      // Operation-correlated readiness: the state must answer *this* write (the upstream's `- 0` dropped).
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
  ALLOCSIM_PORT_CHECK_SLOW(!poisoned(obs), kRulePoisonLeft);
}

// The upstream's `mark_workload_ready` (lines 416-419).
void MemoryBackend::mark_workload_ready(Caller& c, const std::string& claim_id) {
  LockGuard lock(c);
  s_.claim_for_write(c, claim_id).workload_ready = true;
  barrier(c, At::kUnderLock, "claim.ready.after", FMT_COMPILE("claim={}"), claim_id);
}

// The upstream's `bindings` (lines 421-430).
WorkloadBindings MemoryBackend::bindings(Caller& c, const std::string& claim_id, const std::string& workload_id) {
  LockGuard lock(c);
  const Pinned pinned(*this);
  const Claim& claim = s_.claim(c, claim_id);
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

// The upstream's `reconcile` (lines 432-440).
ClaimObservation MemoryBackend::reconcile(Caller& c, const std::string& claim_id, const std::string& desired,
                                          const std::string& expected_generation) {
  LockGuard lock(c);
  const Pinned pinned(*this);
  Claim& claim = s_.claim_for_write(c, claim_id);
  if (claim.generation != expected_generation)
    throw OwnershipConflict(fmt::format("claim {} is at {}, not {}", claim_id, claim.generation, expected_generation),
                            "Observe the claim and retry with its current generation.");
  if (desired == kClaimFailed) claim.status = kClaimFailed;
  return observe_claim(c, claim);
}

// -- read-back for recovery (port-only) -----------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> MemoryBackend::claims_of(Caller& c, const std::string& owner) {
  LockGuard lock(c);
  std::vector<std::pair<std::string, std::string>> out;
  for (const Claim& claim : s_.claims(c))
    if (claim.owner == owner) out.emplace_back(claim.claim_id, claim.generation);
  return out;
}

// -- test hooks (lines 501-528) -------------------------------------------------------------------------------------

// The upstream's `bind_workload` (lines 501-505).
void MemoryBackend::bind_workload(Caller& c, const std::string& node, const std::string& workload_id, int units) {
  LockGuard lock(c);
  NodeFixture& n = s_.node_for_write(c, node);
  put_in(n.workloads, workload_id, units);
  n.resource_version += 1;
}

// The upstream's `unbind_workload` (lines 507-509).
void MemoryBackend::unbind_workload(Caller& c, const std::string& node, const std::string& workload_id) {
  LockGuard lock(c);
  erase_in(s_.node_for_write(c, node).workloads, workload_id);
}

void MemoryBackend::advance_clock(Caller& c, double seconds) {
  // No LockGuard: the upstream's tests call `clock.advance(s)` on the FakeClock, which never takes the backend's
  // lock; only the apply that follows (apply_pending_geometry) does. So time passes even while a reserve holds
  // the lock between claim.create.after and its label write, and that reserve queues its write against the
  // advanced clock (docs/DESIGN.md §2, "The lock": the lock models the API server's, which a clock never takes).
  s_.clock_for_write(c).advance(seconds);
}

std::vector<Mutation> MemoryBackend::mutations(const std::vector<std::string>& kinds) const {
  std::vector<Mutation> out;
  out.resize(mutations_into(kinds, out));
  return out;
}

// The upstream's `mutations` (lines 521-523).
size_t MemoryBackend::mutations_into(const std::vector<std::string>& kinds, std::vector<Mutation>& out) const {
  if (check_mode()) poison(out);  // porting rule 3: the first n are assigned below, the rest unspecified
  size_t n = 0;
  for (const auto& m : s_.untracked().audit)  // a read between steps (the audit-explains-state invariant)
    if (kinds.empty() || std::find(kinds.begin(), kinds.end(), m.kind) != kinds.end()) {
      if (n < out.size())
        out[n] = m;  // copy-assigned: the element's strings keep their buffers
      else
        out.push_back(m);
      ++n;
    }
  ALLOCSIM_PORT_CHECK_SLOW(std::none_of(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n),
                                        [](const Mutation& m) { return poisoned(m); }),
                           kRulePoisonLeft);
  return n;
}

}  // namespace allocsim::backend

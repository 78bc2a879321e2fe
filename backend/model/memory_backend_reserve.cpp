// MemoryBackend's reservation: the upstream's `reserve` and `_rollback` (seed/memory_backend_reindented.py lines
// 262-347), the compare-and-swap on each node's resourceVersion. Line numbers in comments refer to that file;
// the porting rules are those of memory_backend.cpp.
#include <algorithm>
#include <iterator>
#include <span>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include "backend/model/contract_poison.h"
#include "backend/model/memory_backend.h"
#include "backend/model/memory_backend_idioms.h"
#include "backend/model/pyrepr.h"

namespace allocsim::backend {

using namespace port;

namespace {

/// Porting rule 3 for the claim a reserve made: new_claim hands it a released claim's buffers (poisoned in check
/// mode), so a field the reserve forgot to assign or clear still holds poison. Bools are never poison (check_mode.h).
bool reserved_claim_poisoned(const Claim& c) {
  return poisoned(c.claim_id) || poisoned(c.owner) || poisoned(c.plan) || poisoned(c.generation) || poisoned(c.nodes) ||
         poisoned(c.status) || poisoned(c.entry_name) || poisoned(c.op_id) || poisoned(c.label_versions);
}

}  // namespace

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

// What try_reserve_into's steps share within one call: its arguments, the upstream's locals (`owner`, `nodes`,
// `claim_id`, `generation`, `stamped`) and the loss to report.
struct MemoryBackend::ReserveCall {
  const FeasiblePlan& plan;
  const std::string& operation_id;
  const std::optional<std::string>& expected_generation;
  ReserveLoss& loss;
  std::string owner;
  // Line 265, `sorted({d.node for ... if d.node})`: a vector sorted and deduplicated in place of the set, with inline
  // room for the usual handful of nodes (no heap use per reserve; docs/DESIGN.md §5, "Storage reused across
  // executions").
  boost::container::small_vector<std::string, 4> nodes;
  std::string claim_id;
  std::string generation;
  boost::container::small_vector<std::string, 4> stamped;

  // The upstream's `raise OwnershipConflict(...)`, as raw values (ReserveLoss::error() words them).
  void lost(ReserveLoss::Kind kind, const std::string& node) {
    loss.kind = kind;
    loss.node = node;
  }
};

// The upstream's `reserve` (lines 262-339). Each of its three `raise OwnershipConflict(...)` is `return` after
// `call.lost(...)` here: the same effects in the same order, without unwinding the stack (unwinding cost more than
// the rest of an execution, and a lost CAS ends about half of all executions of a two-claimant scenario) and
// without wording the error (ReserveLoss::error() does, for whoever asks). Its steps are the upstream's own blocks.
void MemoryBackend::try_reserve_into(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                                     const std::optional<std::string>& expected_generation, ReserveLoss& loss,
                                     ClaimObservation& out) {
  loss.kind = ReserveLoss::Kind::kNone;
  ReserveCall call{plan, operation_id, expected_generation, loss, {}, {}, {}, {}, {}};
  call.owner = operation_id.substr(0, operation_id.find(':'));
  for (const auto& [workload, devices] : plan.assignments)
    for (const auto& d : devices)
      if (is_truthy(d.node)) call.nodes.push_back(*d.node);
  std::sort(call.nodes.begin(), call.nodes.end());
  call.nodes.erase(std::unique(call.nodes.begin(), call.nodes.end()), call.nodes.end());
  if (!reserve_generation_ok(c, call)) return;
  call.claim_id = c.next_id("claim");
  call.generation = c.next_id("gen");
  for (const std::string& node_name : call.nodes)
    if (!reserve_stamp_node(c, call, node_name)) return;
  // Lines 305-339: one `with self._lock:` block to the end, two barriers fired inside it.
  LockGuard lock(c);
  reserve_create_claim(c, call);
  {
    // This step writes the claim again (its entry name and label versions in reserve_publish_geometry, its status
    // below): a write DPOR and the causal slice must see like any other (docs/DESIGN.md §2, "DPOR must never hide a
    // violation"), or an observe of the claim and this step look independent.
    const Pinned pinned(*this);
    Claim& claim = s_.claim_for_write(c, call.claim_id);
    if (!plan.geometry.empty() && opt_.authority == kAuthorityManagedMig) {
      reserve_publish_geometry(c, call, claim);
    }
    claim.status = kClaimAllocated;
  }
  barrier(c, At::kUnderLock, "claim.schedule.after", FMT_COMPILE("claim={} op_id={}"), call.claim_id, operation_id);
  const Pinned pinned(*this);
  const Claim& claim = s_.claim(c, call.claim_id);
  observe_claim_into(c, claim, out);
  ALLOCSIM_PORT_CHECK_SLOW(!reserved_claim_poisoned(claim), kRulePoisonLeft);
}

// Lines 266-273: the generation check, the sum of every node's resourceVersion read under the lock. False (the
// loss recorded) when the plan was made on another generation.
inline bool MemoryBackend::reserve_generation_ok(Caller& c, ReserveCall& call) {
  std::string current;
  {
    LockGuard lock(c);
    int64_t sum = 0;
    for (const auto& n : s_.nodes(c)) sum += n.resource_version;
    current = std::to_string(sum);
  }
  const std::optional<std::string>& expected_generation = call.expected_generation;
  if (expected_generation && *expected_generation != current && !opt_.mutants.has(Mutant::StalePlanApplied)) {
    // The plan was made on an inventory that has since changed: never apply a stale plan (ALLOC-023).
    call.loss.expected = *expected_generation;
    call.loss.current = current;
    call.lost(ReserveLoss::Kind::kStalePlan, {});
    return false;
  }
  return true;
}

// Lines 280-304, one node of the loop: read, owner.read.after, owner check, owner.update.before, the CAS write,
// owner.update.after. False (rolled back, the loss recorded) when the node is another owner's or changed between
// the read and the write.
inline bool MemoryBackend::reserve_stamp_node(Caller& c, ReserveCall& call, const std::string& node_name) {
  const std::string& operation_id = call.operation_id;
  // Read and write are two API calls; the barriers between them sit outside the lock so a second
  // claimant can read the same version meanwhile (ALLOC-004). The write re-checks the version.
  std::optional<std::string> seen_owner;
  int64_t seen_version = 0;
  {
    LockGuard lock(c);
    const Pinned pinned(*this);
    const NodeFixture& node = s_.node(c, node_name);
    seen_owner = node.owner;
    seen_version = node.resource_version;
  }
  barrier(c, At::kOutsideLock, "owner.read.after", FMT_COMPILE("node={} op_id={} version={}"), node_name, operation_id,
          seen_version);
  if (seen_owner && *seen_owner != call.owner) {
    {
      LockGuard lock(c);
      rollback(c, {call.stamped.data(), call.stamped.size()}, call.generation, operation_id);
    }
    call.loss.owner = *seen_owner;
    call.lost(ReserveLoss::Kind::kOwned, node_name);
    return false;
  }
  barrier(c, At::kOutsideLock, "owner.update.before", FMT_COMPILE("node={} op_id={}"), node_name, operation_id);
  {
    LockGuard lock(c);
    const Pinned pinned(*this);
    const NodeFixture& current = s_.node(c, node_name);
    // client-side-claim mutant: the write names no resourceVersion, so a lost race goes unnoticed.
    if (!opt_.mutants.has(Mutant::ClientSideClaim) && current.resource_version != seen_version) {
      rollback(c, {call.stamped.data(), call.stamped.size()}, call.generation, operation_id);
      call.loss.read_version = seen_version;
      call.loss.write_version = current.resource_version;
      call.lost(ReserveLoss::Kind::kVersionChanged, node_name);
      return false;
    }
    if (current.owner != call.owner) {
      NodeFixture& node = s_.write(c, current);
      node.owner = call.owner;
      node.owner_epoch = call.generation;
      node.resource_version += 1;
      call.stamped.push_back(node_name);
      record(c, operation_id, "stamp-owner", node_name, call.owner);
    }
  }
  barrier(c, At::kOutsideLock, "owner.update.after", FMT_COMPILE("node={} op_id={}"), node_name, operation_id);
  return true;
}

// Lines 306-308: the claim, `self._claims[claim_id] = claim`, then claim.create.after (lock held).
inline void MemoryBackend::reserve_create_claim(Caller& c, ReserveCall& call) {
  Claim fresh = new_claim();
  fresh.claim_id = call.claim_id;
  fresh.owner = call.owner;
  assign_plan(fresh.plan, call.plan);
  fresh.generation = call.generation;
  fresh.nodes.assign(call.nodes.begin(), call.nodes.end());
  fresh.op_id = call.operation_id;
  s_.put_claim(c, std::move(fresh));  // `self._claims[claim_id] = claim` keeps a reused id's position
  barrier(c, At::kUnderLock, "claim.create.after", FMT_COMPILE("claim={} op_id={}"), call.claim_id, call.operation_id);
}

// Lines 309-333 (lock held): the claim's entry published in the shared map, the pointer switched to the map (its
// old value kept as the restore record), then each node of the geometry labelled (reserve_label_node). `claim` is
// the claim this step wrote, inside the caller's Pinned scope.
inline void MemoryBackend::reserve_publish_geometry(Caller& c, ReserveCall& call, Claim& claim) {
  const FeasiblePlan& plan = call.plan;
  const std::string& operation_id = call.operation_id;
  // `entry` is the claim's own entry_name (new_claim left it empty, with a spare's buffer): nothing below
  // yields, so no other actor adds a claim and moves it before the block ends.
  const std::string& entry = claim.entry_name;
  fmt::format_to(std::back_inserter(claim.entry_name), "{}{}-{}", kEntryPrefix, call.owner, call.generation);
  FootprintedState::SharedMapFields map = s_.shared_map_for_write(c);
  auto published = spare_entries_.take();  // (entry, members) in a spare's buffers, assigned in full
  published.first.assign(entry);
  OrderedMap<std::string, int>& members = published.second;
  members.clear();
  for (const auto& [node_name, layout] : plan.geometry) put_in(members, node_name, 1);
  if (auto* same = find_in(map.entries, entry))
    *same = std::move(members);  // `self._config[entry] = ...` keeps a republished entry's position
  else
    map.entries.push_back(std::move(published));
  map.version += 1;
  map.tombstone = false;
  map.deleted = false;  // only ever true under the map-deleted-on-last-out mutant
  std::string& detail = text_scratch_.reuse();
  detail.clear();
  py::dict_into(detail, plan.geometry);
  record(c, operation_id, "publish-entry", entry, detail);
  FootprintedState::PointerFields pointer = s_.pointer_for_write(c);
  if (pointer.pointer != kActivePointer) {
    pointer.restore.emplace(spare_texts_.take());  // a spare's buffer, assigned in full next
    *pointer.restore = pointer.pointer;
    pointer.pointer = kActivePointer;
    pointer.version += 1;
    record(c, operation_id, "point-policy", kPolicyName, kActivePointer);
  }
  for (const auto& [node_name, layout] : plan.geometry) reserve_label_node(c, call, claim, node_name);
}

// Lines 320-333, one node of the geometry (lock held): its restore record, its label, and the geometry write,
// queued for the fake clock's delay or applied now. `claim` as in reserve_publish_geometry.
inline void MemoryBackend::reserve_label_node(Caller& c, ReserveCall& call, Claim& claim,
                                              const std::string& node_name) {
  const std::string& operation_id = call.operation_id;
  const Pinned pinned(*this);
  const std::string& entry = claim.entry_name;
  NodeFixture& node = s_.node_for_write(c, node_name);
  // restore-record-overwritten mutant (ALLOC-033's upstream defect): the upstream's `if node.restore_record
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
  const int64_t version = node.resource_version;
  put_in(claim.label_versions, node_name, version);
  if (opt_.mig_apply_seconds > 0) {
    const double now = s_.clock(c).now();
    s_.pending_geometry_for_write(c).push_back({now + opt_.mig_apply_seconds, node_name, version});
  } else {
    apply_geometry(c, node_name, version);
  }
}

// The upstream's `_rollback` (lines 341-347).
void MemoryBackend::rollback(Caller& c, std::span<const std::string> stamped, const std::string& generation,
                             const std::string& operation_id) {
  for (const std::string& node_name : stamped) {
    const Pinned pinned(*this);
    const NodeFixture& seen = s_.node(c, node_name);
    if (seen.owner_epoch == generation) {  // only what *we* stamped, never a newer owner
      NodeFixture& node = s_.write(c, seen);
      node.owner.reset();
      node.owner_epoch.reset();
      node.resource_version += 1;
      record(c, operation_id, "release-owner", node_name, "rollback");
    }
  }
}

}  // namespace allocsim::backend

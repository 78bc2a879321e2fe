// MemoryBackend's release: the upstream's `release` (seed/memory_backend_reindented.py lines 443-498). Line numbers
// in comments refer to that file; the porting rules are those of memory_backend.cpp.
#include <algorithm>
#include <array>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/container/small_vector.hpp>

#include "backend/model/memory_backend.h"
#include "backend/model/memory_backend_idioms.h"

namespace allocsim::backend {

using namespace port;

// -- release (lines 443-498) ------------------------------------------------------------------------------------

ReleaseObservation MemoryBackend::release(Caller& c, const std::string& claim_id, const std::string& operation_id,
                                          const std::string& expected_generation, bool keep_workloads) {
  ReleaseObservation out;
  release_into(c, claim_id, operation_id, expected_generation, keep_workloads, out);
  return out;
}

namespace {

// The upstream's `ReleaseObservation(claim_id, status, remaining, reason)`, written over `out`'s buffers (the node
// names its list drops or gains go through `texts`).
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

/// Whether node `n` lists a workload outside `hidden` (hide_from_release's listing of it).
bool listed_workloads(const NodeFixture& n, const std::vector<std::string>& hidden) {
  for (const auto& [workload, units] : n.workloads)
    if (std::find(hidden.begin(), hidden.end(), workload) == hidden.end()) return true;
  return false;
}

}  // namespace

// What release_into's steps share within one call: its arguments, and the upstream's `claim`: a copy, since the
// upstream keeps its Python reference to the claim after another release may have popped it. Only the fields a release
// reads (owner, generation, nodes, entry name), in a spare claim's buffers.
struct MemoryBackend::ReleaseCall {
  const std::string& claim_id;
  const std::string& operation_id;
  const std::string& expected_generation;
  bool keep_workloads;
  ReleaseObservation& out;
  Claim& claim;
};

// The upstream's `release` (lines 443-498), answered into `out`. Its steps are the upstream's own blocks.
void MemoryBackend::release_into(Caller& c, const std::string& claim_id, const std::string& operation_id,
                                 const std::string& expected_generation, bool keep_workloads, ReleaseObservation& out) {
  // Porting rule 3: poisoned on the way in and checked on the way out, so that a path which forgets to answer shows,
  // not only a field an answer forgets.
  if (check_mode()) poison(out);
  release_steps(c, claim_id, operation_id, expected_generation, keep_workloads, out);
  ALLOCSIM_PORT_CHECK_SLOW(!poisoned(out), kRulePoisonLeft);
}

// The upstream's `release` (lines 443-498) into `out`, in the steps below.
inline void MemoryBackend::release_steps(Caller& c, const std::string& claim_id, const std::string& operation_id,
                                         const std::string& expected_generation, bool keep_workloads,
                                         ReleaseObservation& out) {
  static constexpr std::array<std::string_view, 0> kNone{};
  // The claim's copy goes back to the spare list however the release returns (docs/DESIGN.md §5, "Storage reused across
  // executions": copying the claim was most of a release's heap use).
  auto copy = spare_claims_.borrow();
  ReleaseCall call{claim_id, operation_id, expected_generation, keep_workloads, out, copy.value};
  {
    // Lines 445-474: one `with self._lock:` block, restore.before and restore.after fired inside it.
    LockGuard lock(c);
    if (release_check(c, call)) return;
    if (release_restore(c, call)) return;
  }
  if (!call.claim.entry_name.empty()) {
    release_strip_entry(c, call);
  }
  release_pop_claim(c, claim_id);
  answer_release(out, spare_texts_, claim_id, kReleaseReleased, kNone, "");  // line 498
}

// Lines 446-455 (lock held): the claim looked up and copied; true, with `out` answered, when it is gone (released),
// at another generation (stale), or its nodes still run workloads or the caller keeps them (pending_recovery).
inline bool MemoryBackend::release_check(Caller& c, ReleaseCall& call) {
  static constexpr std::array<std::string_view, 0> kNone{};
  const std::string& claim_id = call.claim_id;
  Claim& claim = call.claim;
  ReleaseObservation& out = call.out;
  {
    const Pinned pinned(*this);  // `found` points into the state's claims
    const Claim* found = s_.find_claim(c, claim_id);
    if (found == nullptr) {
      answer_release(out, spare_texts_, claim_id, kReleaseReleased, kNone, "already released");
      return true;
    }
    claim.owner = found->owner;
    claim.generation = found->generation;
    assign_keeping(claim.nodes, found->nodes, spare_texts_);
    claim.entry_name = found->entry_name;
  }
  if (claim.generation != call.expected_generation) {
    text_scratch_.reuse().assign("claim generation is ").append(claim.generation);
    answer_release(out, spare_texts_, claim_id, kReleaseStale, claim.nodes, text_scratch_.get());
    return true;
  }
  // Views into the copy's node names, alive until the return.
  boost::container::small_vector<std::string_view, 4> busy;
  // The port-only read hook (read_hooks.cpp): armed, this listing misses the hidden workloads. Read wherever a
  // scenario can arm it, so DPOR orders the arming against this check.
  {
    const BackendState::HiddenPods& hidden = s_.release_pods(c, opt_.release_read_hook);  // until the block's end
    for (const std::string& n : claim.nodes) {
      const Pinned pinned(*this);
      const NodeFixture& node = s_.node(c, n);
      if (hidden.reads > 0 ? listed_workloads(node, hidden.workloads) : !node.workloads.empty()) busy.push_back(n);
    }
    if (hidden.reads > 0) {
      BackendState::HiddenPods& used = s_.release_pods_for_write(c);
      c.note(fmt::format("fault=partial_reads:{}", fmt::join(used.workloads, ",")));
      if (--used.reads == 0) used.workloads.clear();
    }
  }
  // restore-under-workloads mutant: the workloads are not looked at, so the release goes on to restore.
  if (opt_.mutants.has(Mutant::RestoreUnderWorkloads)) busy.clear();
  // release-spins-on-busy-nodes mutant: waits for the workloads instead of answering pending_recovery, but
  // polls with the lock held, so the unbind that would end the wait can never take it (a livelock). Each
  // poll is a barrier, i.e. a scheduling point, as a real poll loop sleeps between reads.
  while (opt_.mutants.has(Mutant::ReleaseSpinsOnBusyNodes) && !call.keep_workloads && !busy.empty()) {
    barrier(c, At::kUnderLock, "restore.before", FMT_COMPILE("claim={} op_id={} waiting_for_workloads=1"), claim_id,
            call.operation_id);
    busy.clear();
    for (const std::string& n : claim.nodes)
      if (!s_.node(c, n).workloads.empty()) busy.push_back(n);
  }
  if (call.keep_workloads || !busy.empty()) {
    // lock-leak-on-pending-recovery mutant: an early return that skips the unlock (one lock level leaks;
    // the LockGuard releases only its own), so the backend lock stays held after this call returns.
    if (opt_.mutants.has(Mutant::LockLeakOnPendingRecovery)) c.lock();
    if (busy.empty())
      answer_release(out, spare_texts_, claim_id, kReleasePendingRecovery, claim.nodes, "workloads retained");
    else
      answer_release(out, spare_texts_, claim_id, kReleasePendingRecovery, busy, "workloads still hold the devices");
    return true;
  }
  return false;
}

// Lines 456-474 (lock held): restore.before; pending_recovery (true, `out` answered) when config reads fail; else
// each node's geometry restored from its record and our owner stamp cleared, then restore.after.
inline bool MemoryBackend::release_restore(Caller& c, ReleaseCall& call) {
  const std::string& claim_id = call.claim_id;
  const std::string& operation_id = call.operation_id;
  const Claim& claim = call.claim;
  barrier(c, At::kUnderLock, "restore.before", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
  if (s_.failed_read(c, "config") != nullptr) {
    answer_release(call.out, spare_texts_, claim_id, kReleasePendingRecovery, claim.nodes,
                   "shared configuration could not be read; ownership retained for retry");
    return true;
  }
  if (Claim* live = s_.find_claim_for_write(c, claim_id))
    live->releasing = true;  // port-only: from here on the claim is releasing, no longer live
  for (const std::string& node_name : claim.nodes) {
    const Pinned pinned(*this);
    const NodeFixture& seen = s_.node(c, node_name);
    if (!claim.entry_name.empty() && seen.restore_record) {
      NodeFixture& node = s_.write(c, seen);
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
    const bool ours = seen.owner == claim.owner && seen.owner_epoch == claim.generation;
    const bool clear = opt_.mutants.has(Mutant::ReleaseClearsAnyOwner) ? seen.owner.has_value()
                       : opt_.mutants.has(Mutant::ReleaseKeepsOwner)   ? false
                                                                       : ours;
    if (clear) {
      NodeFixture& node = s_.write(c, seen);
      node.owner.reset();
      node.owner_epoch.reset();
      node.resource_version += 1;
      record(c, operation_id, "release-owner", node_name, claim.owner);
    }
  }
  barrier(c, At::kUnderLock, "restore.after", FMT_COMPILE("claim={} op_id={}"), claim_id, operation_id);
  return false;
}

// Lines 475-495: the claim's entry stripped from the shared map. The last-owner read and the write are two API
// calls: the barrier between them sits outside the lock, so another flow can publish in the gap; the decision is
// made on the map as it is at the write, never on the earlier read (ALLOC-005), unless the stale-last-out mutant
// is on.
inline void MemoryBackend::release_strip_entry(Caller& c, ReleaseCall& call) {
  const std::string& operation_id = call.operation_id;
  const std::string& entry_name = call.claim.entry_name;
  auto seen_copy = spare_seen_.borrow();  // in spare storage, as the claim's copy; assigned in full
  SharedConfig& seen = seen_copy.value;
  {
    LockGuard lock(c);
    assign_keeping(seen, s_.shared_config(c), spare_entries_);
  }
  boost::container::small_vector<std::string_view, 8> seen_names;  // into `seen`, alive until the barrier
  for (const auto& [entry, members] : seen) seen_names.push_back(entry);
  std::sort(seen_names.begin(), seen_names.end());
  barrier(c, At::kOutsideLock, "delete.before", FMT_COMPILE("entry={} op_id={} seen={}"), entry_name, operation_id,
          fmt::join(seen_names, ","));  // `seen=sorted(seen)`, comma-joined as join() did
  {
    LockGuard lock(c);
    FootprintedState::SharedMapFields map = s_.shared_map_for_write(c);
    erase_entry(map.entries, entry_name);
    map.version += 1;
    record(c, operation_id, "strip-entry", entry_name, "");
    bool last_out = map.entries.empty();
    if (opt_.mutants.has(Mutant::StaleLastOut)) {
      erase_in(seen, entry_name);
      last_out = seen.empty();
    }
    if (last_out) {
      release_last_out(c, call, map);
    }
  }
  barrier(c, At::kOutsideLock, "delete.after", FMT_COMPILE("entry={} op_id={}"), entry_name, operation_id);
}

// Lines 487-494 (lock held), last one out: restore the pointer, keep the map (tombstoned), never delete it.
inline void MemoryBackend::release_last_out(Caller& c, ReleaseCall& call, FootprintedState::SharedMapFields& map) {
  const std::string& operation_id = call.operation_id;
  FootprintedState::PointerFields pointer = s_.pointer_for_write(c);
  if (pointer.restore) {
    pointer.pointer = *pointer.restore;
    spare_texts_.give(std::move(*pointer.restore));
    pointer.restore.reset();
    pointer.version += 1;
    record(c, operation_id, "restore-policy", kPolicyName, pointer.pointer);
  }
  if (opt_.mutants.has(Mutant::MapDeletedOnLastOut)) {
    map.deleted = true;
    map.entries.clear();
    record(c, operation_id, "delete-map", kMapName, "");
  } else {
    map.tombstone = true;
  }
}

// Lines 496-497, `self._claims.pop(claim_id, None)`: a tolerant removal, since a concurrent release of the same
// claim may have removed it already.
inline void MemoryBackend::release_pop_claim(Caller& c, const std::string& claim_id) {
  LockGuard lock(c);
  s_.pop_claim(c, claim_id, [this](Claim&& gone) { spare_claims_.give(std::move(gone)); });
}

}  // namespace allocsim::backend

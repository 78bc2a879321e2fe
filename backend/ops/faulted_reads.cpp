// The actor's reads under an armed read fault (backend/world/read_faults.h says what stale_reads and
// partial_reads are, what a write is, and how the history of read states is kept): ScriptRunner's
// faulted_inventory and faulted_observe, through which it reads when the scenario has read-fault ops (it
// takes the backend lock first, so the fault is decided on the state the read sees, then answers from the
// live backend or from a faulted copy of it).
//
// Footprints (DPOR): a read reads the armed faults' object (read_faults_id) and writes it when it consumes a
// fault; a stale read also reads the visibility object (invariant_visible_id). A faulted read adds
// "fault=stale_reads:K" / "fault=partial_reads:w1,w2" to its step's detail.
#include "backend/ops/script_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"

namespace allocsim::harness {

namespace {

/// Consumes the armed stale fault, if any, into `view`; returns whether it did.
bool apply_stale(ScriptRunner& run, backend::MemoryBackend& view) {
  ReadFaults& f = run.world().read_faults;
  if (f.stale_reads == 0) return false;
  run.ctx().touch(invariant_visible_id(), false);  // the answer depends on the order of the last K writes
  const ReadState& then = f.past(f.stale_writes);
  view.mutable_state().nodes = then.nodes;
  view.mutable_state().claims = then.claims;
  --f.stale_reads;
  run.ctx().note(fmt::format("fault=stale_reads:{}", f.stale_writes));
  return true;
}

/// Consumes the armed partial fault, if any, into `view`; returns whether it did.
bool apply_partial(ScriptRunner& run, backend::MemoryBackend& view) {
  ReadFaults& f = run.world().read_faults;
  if (f.partial_reads == 0) return false;
  for (backend::NodeFixture& n : view.mutable_state().nodes)
    std::erase_if(n.workloads, [&](const auto& w) {
      return std::find(f.partial_workloads.begin(), f.partial_workloads.end(), w.first) != f.partial_workloads.end();
    });
  --f.partial_reads;
  run.ctx().note(fmt::format("fault=partial_reads:{}", fmt::join(f.partial_workloads, ",")));
  return true;
}

}  // namespace

backend::Observation<backend::InventorySnapshot> ScriptRunner::faulted_inventory(
    const std::optional<std::vector<std::string>>& scope) {
  const backend::LockGuard lock(caller_);  // re-entrant: inventory() takes it again without waiting
  ReadFaults& f = w_.read_faults;
  ctx_.touch(read_faults_id(), f.stale_reads > 0 || f.partial_reads > 0);
  if (f.stale_reads == 0 && f.partial_reads == 0) return b_.inventory(caller_, scope);
  backend::MemoryBackend view = b_;
  apply_stale(*this, view);
  apply_partial(*this, view);
  return view.inventory(caller_, scope);
}

backend::Observation<backend::ClaimObservation> ScriptRunner::faulted_observe(const std::string& claim_id) {
  const backend::LockGuard lock(caller_);
  ReadFaults& f = w_.read_faults;
  ctx_.touch(read_faults_id(), f.stale_reads > 0);
  if (f.stale_reads == 0) return b_.observe(caller_, claim_id);
  backend::MemoryBackend view = b_;
  apply_stale(*this, view);
  return view.observe(caller_, claim_id);
}

}  // namespace allocsim::harness

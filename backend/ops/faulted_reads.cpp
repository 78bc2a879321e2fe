// Faulted reads (faulted_reads.h): inventory and observe answered from a faulted copy of the backend.
#include "backend/ops/faulted_reads.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "backend/ops/script_runner.h"
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

backend::Observation<backend::InventorySnapshot> faulted_inventory(
    ScriptRunner& run, const std::optional<std::vector<std::string>>& scope) {
  const backend::LockGuard lock(run.caller());  // re-entrant: inventory() takes it again without waiting
  ReadFaults& f = run.world().read_faults;
  run.ctx().touch(read_faults_id(), f.stale_reads > 0 || f.partial_reads > 0);
  if (f.stale_reads == 0 && f.partial_reads == 0) return run.backend().inventory(run.caller(), scope);
  backend::MemoryBackend view = run.backend();
  apply_stale(run, view);
  apply_partial(run, view);
  return view.inventory(run.caller(), scope);
}

backend::Observation<backend::ClaimObservation> faulted_observe(ScriptRunner& run, const std::string& claim_id) {
  const backend::LockGuard lock(run.caller());
  ReadFaults& f = run.world().read_faults;
  run.ctx().touch(read_faults_id(), f.stale_reads > 0);
  if (f.stale_reads == 0) return run.backend().observe(run.caller(), claim_id);
  backend::MemoryBackend view = run.backend();
  apply_stale(run, view);
  return view.observe(run.caller(), claim_id);
}

}  // namespace allocsim::harness

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
  std::vector<std::string> hidden = f.partial_workloads;
  for (std::string& uuid : device_uuids(f.partial_devices)) hidden.push_back(std::move(uuid));
  run.ctx().note(fmt::format("fault=partial_reads:{}", fmt::join(hidden, ",")));
  return true;
}

/// Drops the hidden cards from a partial inventory's answer `obs` (still complete, its generation unchanged): a device
/// plugin that lists fewer cards than the node has. After the backend answered, so the port's own checks of its
/// answer (porting rule 6, check mode) see the whole listing.
void hide_devices(const std::vector<std::pair<std::string, int>>& cards,
                  backend::Observation<backend::InventorySnapshot>& obs) {
  if (cards.empty() || !obs.known) return;
  std::vector<backend::DeviceIdentity> listed;  // a tuple is immutable: build another (contract.h DeviceTuple)
  for (const backend::DeviceIdentity& d : obs.value.devices)
    if (!d.node || !d.ordinal ||
        std::find(cards.begin(), cards.end(), std::pair<std::string, int>(*d.node, *d.ordinal)) == cards.end())
      listed.push_back(d);
  obs.value.devices = backend::DeviceTuple(std::move(listed));
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
  const bool partial = apply_partial(*this, view);
  auto obs = view.inventory(caller_, scope);
  if (partial) hide_devices(f.partial_devices, obs);
  return obs;
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

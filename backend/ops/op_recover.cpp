// What `recover` does (op_behaviour.h, scenario.h): a restarted controller's cleanup of another flow;
// its syntax is backend/scenario/op_syntax_recover.cpp.
#include "backend/ops/op_behaviour.h"

#include <algorithm>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "backend/ops/script_runner.h"
#include "backend/world/claim_maker.h"
#include "backend/world/leases.h"

namespace allocsim::harness {
namespace {

/// The index of actor `name` among the world's actors (the loader resolved the name).
size_t actor_index(ScriptRunner& run, const std::string& name) {
  const auto& actors = run.world().actors();
  size_t i = 0;
  while (i < actors.size() && actors[i].name != name) ++i;
  return i;
}

/// Whether another actor has the owner identity of actor `flow`.
bool identity_shared(ScriptRunner& run, size_t flow) {
  const auto& actors = run.world().actors();
  for (size_t i = 0; i < actors.size(); ++i)
    if (i != flow && actors[i].owner == actors[flow].owner) return true;
  return false;
}

/// Whether the lease of `op`'s flow (actor `flow`) has expired for `op`'s sweeper, read with its footprint: the clock
/// and the lease.
bool lease_expired(ScriptRunner& run, const Op& op, size_t flow) {
  const Leases& leases = run.world().leases;
  const double now = run.backend().footprinted().clock(run.caller()).monotonic();
  run.ctx().touch(lease_id(op.flow), false);
  const bool expired = leases.expired(flow, now, *op.lease_seconds);
  // The verdict and the flow's idle time in the step's detail, so that a trace shows why the sweeper acted or not.
  run.ctx().note(fmt::format("lease={} idle={:g}s", expired ? "expired" : "unexpired", now - leases.renewed_at[flow]));
  return expired;
}

/// `recover` (scenario.h): wait for the flow's actor to end, then (from the op's point on) read back its
/// claims and release each by claim id and generation, as a restarted controller would (ALLOC-033). With
/// `wait: false` it does not wait: a sweeper acting on a lease it believes expired, while the flow may still
/// run and use what it holds (docs/DESIGN.md §4, the op table).
const char* run_recover(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  // The wait comes before the op's point, so that the step resuming from `recover` (its order label
  // ACTOR:recover#N, docs/DESIGN.md §2 "Order") is the recovery itself, taken once the flow has ended: an
  // order can then put another step after the recovery. With the point first, the label named the moment
  // the actor began to wait, however long before the flow's end.
  if (op.wait_for_end) run.wait_for_end(op.flow);
  run.call("recover", "flow=" + op.flow);
  // A leased sweeper (backend/world/leases.h) judges the lease here, at its point: the flow may renew it in any
  // step before this one, and in none between this check and the releases below, which is the sweeper's race.
  const size_t flow = actor_index(run, op.flow);
  if (op.lease_seconds && !lease_expired(run, op, flow)) return "unexpired";
  // By the flow's owner identity, as a restarted controller lists what its identity owns: under a shared identity
  // (docs/DESIGN.md §4 "Owner identity") that includes the claims of the flow's live replicas, and leaves out only
  // the claims the recovering actor holds itself (a controller knows its own).
  const std::string& identity = run.world().actors()[flow].owner;
  auto claims = run.backend().claims_of(run.caller(), identity);
  if (st.owner == identity) std::erase_if(claims, [&](const auto& c) { return st.holds(c.first); });
  const char* out = claims.empty() ? "none" : backend::kReleaseReleased;
  for (const auto& [claim_id, generation] : claims) {
    run.call("release", fmt::format("recover={} claim={}", op.flow, claim_id));
    const std::string op_id = fmt::format(FMT_COMPILE("{}:recover{}"), st.name, ++st.recovers);
    st.op_epoch = generation;
    // Its writes are the recovered flow's (object_history.h: principals): under a shared identity, the replica's that
    // made the claim (docs/DESIGN.md §4 "Owner identity"), whose view the release acts on.
    const auto maker = minted_by(run.world().actors(), identity, claim_id);
    run.world().histories.recovering(op_id, static_cast<int>(maker.value_or(flow)));
    backend::ReleaseObservation& r = st.release_scratch;
    run.backend().release_into(run.caller(), claim_id, op_id, generation, false, r);
    if (r.status != backend::kReleaseReleased && out == backend::kReleaseReleased)
      out = r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
  }
  // recovery-converges judges a cleanup of a flow that has ended; a sweeper's flow may stamp and claim again
  // right after it, which says nothing about the cleanup, and so may a replica that shares the flow's identity.
  if (op.wait_for_end && !run.caller().dropped && (claims.empty() || out == backend::kReleaseReleased) &&
      !identity_shared(run, flow))
    st.told.recovered_flow = identity;
  return out;
}

}  // namespace

std::vector<OpBehaviour> recover_op_behaviour() {
  return {
      {OpKind::Recover, no_detail, run_recover},
  };
}

}  // namespace allocsim::harness

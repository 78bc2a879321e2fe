// `recover` (scenario.h): a restarted controller's cleanup of another flow. Its syntax row (op_syntax.h) comes first,
// then what it does (op_behaviour.h).
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <algorithm>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/world/claim_maker.h"
#include "backend/world/leases.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_recover(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.flow = r.nonempty_string(r.require(v, ptr, "flow"), child(ptr, "flow"));
  const Json* w = r.find(v, "wait");
  if (w) op.wait_for_end = r.bool_value(*w, child(ptr, "wait"));
  if (const Json* l = r.find(v, "lease_seconds")) {
    // A lease is a sweeper's belief about a flow that may still run (backend/world/leases.h): waiting for the
    // flow's end first would make it moot.
    if (w && op.wait_for_end)
      r.fail(child(ptr, "wait"),
             "a recover with lease_seconds does not wait for the flow's end; drop \"wait\" or set it to false");
    op.lease_seconds = r.number_value(*l, child(ptr, "lease_seconds"), 0, kMaxSeconds, true);
    op.wait_for_end = false;
  }
}

void resolve_recover(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  const std::string ptr = child(op.pointer, "flow");
  if (op.flow == self)
    r.fail(ptr, fmt::format("recover names the actor itself ({}); a flow's own cleanup is \"release\"", quote(self)));
  std::vector<const char*> known;
  for (const std::string& n : actors) known.push_back(n.c_str());
  if (!support::contains(known, op.flow))
    r.fail(ptr, fmt::format("actor {} is not in /actors{}", quote(op.flow), support::did_you_mean(op.flow, known)));
  // The flow holds its end (the lock recover waits for) from its first step, taken as the actors start in
  // their listed order (docs/DESIGN.md §4, the op table): a recover listed before its flow would find that
  // lock free and run before the flow has begun.
  const auto at = [&](const std::string& name) { return std::find(actors.begin(), actors.end(), name); };
  if (op.wait_for_end && at(op.flow) > at(self))
    r.fail(ptr, fmt::format("recover's flow {} is listed after {} in /actors; list the flow first (it holds its end "
                            "from its first step, which a recover listed before it would not wait for)",
                            quote(op.flow), quote(self)));
}

void json_recover(const Op& op, Json& j) {
  j["flow"] = op.flow;
  if (op.lease_seconds)
    j["lease_seconds"] = *op.lease_seconds;  // implies wait false
  else if (!op.wait_for_end)
    j["wait"] = false;
}

}  // namespace

std::vector<OpSyntax> recover_op_syntax() {
  return {
      {OpKind::Recover,
       "recover",
       R"json({
         "description": "a restarted controller, once that flow's actor has ended, reads back the flow's claims and releases each by id and generation (ALLOC-033); operation id `<actor>:recover<k>`. With `wait: false` it does not wait: a sweeper that believes the flow's lease expired cleans up at once, while the flow may still run and use what it holds (its flow may be listed anywhere, and `recovery-converges` does not judge it: the flow may stamp and claim again right after). For a waiting recover, the wait for the flow's end comes before the op's `recover` point, so the label `ACTOR:recover#N` names the recovery itself, after the flow ended, and an `order` can put a step after it. A waiting recover's flow must be listed before the recovering actor in `actors` (the loader says so otherwise): a flow holds its end from its first step, and actors start in their listed order. With `lease_seconds` (more than 0, up to 86,400; implies `wait: false`, and `wait: true` beside it is refused) the sweeper judges the flow's lease by the fake clock: the flow renews its lease at the start of each op (skipped ones included) and right after its own `advance_clock` (in the same step: the apply that follows may wait for the backend lock, and a sweeper in between would take the flow's own clock move for idleness, which no op-level execution shows), at the clock's time then, and at its `recover` point the sweeper cleans up only if the clock is at least `lease_seconds` past the last renewal (exactly `lease_seconds` has expired); otherwise it records `unexpired` and reads and writes nothing. The check's step carries its verdict and the flow's idle time (`lease=expired idle=301s`). A flow's lease starts renewed at the start state's clock, so a flow that has not yet started an op, or has an empty script (a controller that is gone), expires once the clock has moved `lease_seconds`; the renewal at an op's start is made in the step that ended the op before it (the step resuming from its last point), which is where explanations place it. Two flows that sweep each other by lease meet F16 (`ops-atomic`: a sweeper reads a stamp whose claim a reserve has not created yet). Upstream has no lease (an owner stamp's epoch is its claim's generation, and nothing expires it), so the lease is the harness's (`backend/world/leases.h`): each leased flow's lease is one harness object, written with a read of the clock by each renewal and read with the clock by each check; scenarios without a leased recover touch nothing new. The differential driver keeps the same renewals",
         "properties": {
           "flow": {"description": "The flow to clean up: an actor in /actors, not this one (listed before this one when the recover waits).", "type": "string", "minLength": 1},
           "wait": {"description": "Wait for the flow's actor to end first (default). false: a sweeper that believes the flow's lease expired and cleans up at once, while the flow may still run; recovery-converges does not judge it.", "type": "boolean", "default": true},
           "lease_seconds": {"description": "A sweeper that judges the flow's lease by the fake clock: the flow renews it at the start of each op (skipped ones included) and after its own advance_clock; at its recover point the sweeper cleans up only if the clock is at least this many seconds (more than 0, up to 86400) past the last renewal, and otherwise records unexpired and writes nothing. Implies wait false (true is refused). The lease is the harness's: upstream has none.", "type": "number", "exclusiveMinimum": 0, "maximum": 86400}
         },
         "required": ["flow"],
         "dependentSchemas": {"lease_seconds": {"properties": {"wait": {"description": "A leased recover never waits for the flow's end.", "const": false}}}}
       })json",
       {"released", "none", "unexpired", "pending_recovery", "stale", "error", "unknown", "crashed"},  //
       parse_recover,
       resolve_recover,
       json_recover,
       nullptr,
       {"recover", "release"}},
  };
}

}  // namespace allocsim::harness

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

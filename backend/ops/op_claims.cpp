// What the claim ops do (op_behaviour.h): inventory, plan, reserve and release, each through the script
// runner's primitives; their syntax is backend/scenario/op_syntax_claims.cpp.
#include "backend/ops/op_behaviour.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <string_view>

#include "backend/ops/script_runner.h"
#include "backend/world/object_ids.h"

namespace allocsim::harness {
namespace {

using backend::FeasiblePlan;

const char* run_inventory(ScriptRunner& run, const Op& op) {
  run.call("inventory");
  return run.inventory(op.nodes);
}

const char* run_plan(ScriptRunner& run, const Op& op) {
  if (!run.state().inventory) return "skipped";
  run.call("plan");
  return run.plan(op.requests);
}

std::string detail_reserve(const Op& op) { return op.plan_from ? fmt::format("plan_from={}", *op.plan_from) : ""; }

/// reserve with `plan_from`: another actor's plan is only known at the time of the call, so the point
/// comes first.
const char* run_reserve_from(ScriptRunner& run, const Op& op) {
  run.call("reserve", detail_reserve(op));
  run.ctx().touch(actor_plan_id(*op.plan_from), false);
  const ActorState* from = nullptr;
  for (const ActorState& a : run.world().actors())
    if (a.name == *op.plan_from) from = &a;
  if (!from || !from->plan) return "skipped";
  if (!std::holds_alternative<FeasiblePlan>(*from->plan)) return "infeasible";
  // A copy: the owner may re-plan while this reserve waits at a barrier. Copy-assigned into this actor's scratch,
  // whose strings and lists keep their capacity across executions.
  FeasiblePlan& plan = run.state().borrowed_plan_scratch;
  plan = std::get<FeasiblePlan>(*from->plan);
  return run.reserve(plan);
}

const char* run_reserve(ScriptRunner& run, const Op& op) {
  if (op.has_requests) {
    run.call("inventory", "reserve=1");
    if (std::string_view(run.inventory(std::nullopt)) == "unknown") return "unknown";
    run.call("plan", "reserve=1");
    if (std::string_view(run.plan(op.requests)) == "infeasible") return "infeasible";
    run.call("reserve");
    return run.reserve(std::get<FeasiblePlan>(*run.state().plan));
  }
  if (op.plan_from) return run_reserve_from(run, op);
  const ActorState& st = run.state();
  if (!st.plan) return "skipped";
  if (!std::holds_alternative<FeasiblePlan>(*st.plan)) return "infeasible";
  run.call("reserve");
  return run.reserve(std::get<FeasiblePlan>(*st.plan));  // no copy: only this actor's own plan op replaces it
}

std::string detail_release(const Op& op) { return op.keep_workloads ? "keep_workloads=true" : ""; }

/// A released claim leaves the held list; the newest remaining one becomes the claim observed.
void forget_claim(ActorState& st, const std::string& claim_id, const std::string& generation) {
  st.held.erase(st.held.begin());
  st.last_released.emplace(claim_id, generation);
  --st.claims_held;
  if (st.held.empty()) {
    st.claim_id.reset();
    st.claim_generation.clear();
  } else {
    st.claim_id = st.held.back().first;
    st.claim_generation = st.held.back().second;
  }
}

const char* run_release(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  // The oldest claim held; with none held, the last released one again (a duplicate release).
  const bool duplicate = st.held.empty();
  if (duplicate && !st.last_released) return "skipped";
  const auto [claim_id, generation] = duplicate ? *st.last_released : st.held.front();
  std::string detail = detail_release(op);
  if (duplicate) detail += detail.empty() ? "duplicate=true" : " duplicate=true";
  run.call("release", std::move(detail));
  const std::string op_id = fmt::format(FMT_COMPILE("{}:release{}"), st.name, ++st.releases);
  st.op_epoch = generation;
  backend::ReleaseObservation& r = st.release_scratch;
  run.backend().release_into(run.caller(), claim_id, op_id, generation, op.keep_workloads, r);
  if (run.caller().dropped) return "unknown";  // it may have released; the actor keeps the claim and may retry
  if (r.status == backend::kReleaseReleased) {
    if (!duplicate) {
      forget_claim(st, claim_id, generation);
      run.claims_changed();
    }
    return backend::kReleaseReleased;
  }
  return r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
}

}  // namespace

std::vector<OpBehaviour> claim_op_behaviour() {
  return {
      {OpKind::Inventory, no_detail, run_inventory},
      {OpKind::Plan, no_detail, run_plan},
      {OpKind::Reserve, detail_reserve, run_reserve},
      {OpKind::Release, detail_release, run_release},
  };
}

}  // namespace allocsim::harness

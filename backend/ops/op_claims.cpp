// The claim ops: inventory, plan, reserve and release, each through the script runner's primitives. Their syntax rows
// (op_syntax.h) come first, then what they do (op_behaviour.h).
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <algorithm>
#include <string_view>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/world/object_ids.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

Json requests_json(const std::vector<RequestSpec>& requests) {
  Json out = Json::array();
  for (const RequestSpec& r : requests) {
    Json j = {{"workload", r.workload}, {"devices", r.devices}, {"sharing", r.sharing}};
    if (r.minimum_usable_memory_gib) j["minimum_usable_memory_gib"] = *r.minimum_usable_memory_gib;
    out.push_back(std::move(j));
  }
  return out;
}

// -- inventory -------------------------------------------------------------------------------------

void parse_inventory(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* n = r.find(v, "nodes")) op.nodes = r.node_scope(*n, child(ptr, "nodes"));
}

void json_inventory(const Op& op, Json& j) {
  if (op.nodes) j["nodes"] = *op.nodes;
}

// -- plan ------------------------------------------------------------------------------------------

void parse_plan(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.has_requests = true;
  op.requests = r.requests(r.require(v, ptr, "requests"), child(ptr, "requests"));
}

void json_plan(const Op& op, Json& j) { j["requests"] = requests_json(op.requests); }

// -- reserve ---------------------------------------------------------------------------------------

void parse_reserve(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (r.find(v, "requests") != nullptr && r.find(v, "plan_from") != nullptr)
    r.fail(ptr, "reserve takes \"requests\" or \"plan_from\", not both");
  if (const Json* q = r.find(v, "requests")) {
    op.has_requests = true;
    op.requests = r.requests(*q, child(ptr, "requests"));
  }
  if (const Json* p = r.find(v, "plan_from")) op.plan_from = r.nonempty_string(*p, child(ptr, "plan_from"));
}

void resolve_reserve(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  if (!op.plan_from) return;
  const std::string ptr = child(op.pointer, "plan_from");
  if (*op.plan_from == self)
    r.fail(ptr,
           fmt::format("plan_from names the actor itself ({}); omit plan_from to reserve its own plan", quote(self)));
  if (std::find(actors.begin(), actors.end(), *op.plan_from) == actors.end())
    r.fail(ptr, fmt::format("actor {} is not in /actors", quote(*op.plan_from)));
}

void json_reserve(const Op& op, Json& j) {
  if (op.has_requests) j["requests"] = requests_json(op.requests);
  if (op.plan_from) j["plan_from"] = *op.plan_from;
}

/// Every Call point of a reserve with `requests` (run_reserve, backend/ops/op_claims.cpp; retries included); one
/// without calls only "reserve". A function, not a namespace-scope constant: the table may be built during another
/// file's static initialisation.
std::vector<const char*> reserve_all_calls() { return {"inventory", "plan", "reserve"}; }

std::vector<const char*> reserve_calls(const Op& op) {
  if (op.has_requests) return reserve_all_calls();
  return {"reserve"};
}

// -- release ---------------------------------------------------------------------------------------

void parse_release(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* k = r.find(v, "keep_workloads")) op.keep_workloads = r.bool_value(*k, child(ptr, "keep_workloads"));
}

void json_release(const Op& op, Json& j) { j["keep_workloads"] = op.keep_workloads; }

}  // namespace

std::vector<OpSyntax> claim_op_syntax() {
  return {
      {OpKind::Inventory,
       "inventory",
       R"json({
         "description": "reads the pool",
         "properties": {
           "nodes": {"description": "Scope: node names (distinct); omit for every node.", "type": "array", "minItems": 1, "uniqueItems": true, "items": {"$ref": "#/$defs/node_ref"}}
         }
       })json",
       {"complete", "partial", "unknown"},  //
       parse_inventory,
       nullptr,
       json_inventory},
      {OpKind::Plan,
       "plan",
       R"json({
         "description": "plans on the actor's last inventory",
         "properties": {
           "requests": {"$ref": "#/$defs/requests"}
         },
         "required": ["requests"]
       })json",
       {"feasible", "infeasible", "skipped"},  //
       parse_plan,
       nullptr,
       json_plan},
      {OpKind::Reserve,
       "reserve",
       R"json({
         "description": "reserves the actor's last plan (or `plan_from: ACTOR`'s, ALLOC-004) against that plan's snapshot generation; with `requests` it does inventory, plan and reserve itself, three calls and three scheduling points",
         "properties": {
           "requests": {"$ref": "#/$defs/requests"},
           "plan_from": {"description": "Reserve this other actor's last plan (an actor in /actors, not this one).", "type": "string", "minLength": 1}
         },
         "not": {"required": ["requests", "plan_from"]},
         "dependentRequired": {"retry": ["requests"]}
       })json",
       {"claimed", "conflict", "infeasible", "unknown", "skipped", "error", "crashed"},  //
       parse_reserve,
       resolve_reserve,
       json_reserve,
       nullptr,
       reserve_all_calls(),
       reserve_calls},
      {OpKind::Release,
       "release",
       R"json({
         "description": "releases the oldest held claim with its generation (with none held, repeats the last one: a duplicate release)",
         "properties": {
           "keep_workloads": {"description": "Keep the workloads bound (default false).", "type": "boolean", "default": false}
         }
       })json",
       {"released", "pending_recovery", "stale", "skipped", "error", "unknown", "crashed"},  //
       parse_release,
       nullptr,
       json_release},
  };
}

}  // namespace allocsim::harness

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

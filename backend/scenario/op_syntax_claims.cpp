// The syntax of the claim ops (op_syntax.h): inventory, plan, reserve and release; their behaviour is
// backend/ops/op_claims.cpp.
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/scenario/scenario_reader.h"

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

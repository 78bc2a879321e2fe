// The syntax of the status ops (op_syntax.h): observe, await, mark_ready and reconcile; their behaviour is
// backend/ops/op_status.cpp.
#include "backend/scenario/op_syntax.h"

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_nothing(const ScenarioReader&, const Json&, const std::string&, Op&) {}
void json_nothing(const Op&, Json&) {}

void parse_await(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.status = r.choice(r.require(v, ptr, "status"), child(ptr, "status"), claim_statuses());
  if (const Json* p = r.find(v, "polls_max")) op.polls_max = r.int_value(*p, child(ptr, "polls_max"), 1, 1000);
}

void json_await(const Op& op, Json& j) {
  j["status"] = op.status;
  j["polls_max"] = op.polls_max;
}

void parse_reconcile(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.status = r.choice(r.require(v, ptr, "status"), child(ptr, "status"), claim_statuses());
}

void json_reconcile(const Op& op, Json& j) { j["status"] = op.status; }

}  // namespace

std::vector<OpSyntax> status_op_syntax() {
  return {
      {OpKind::Observe,
       "observe",
       R"json({
         "description": "observes the actor's newest claim"
       })json",
       {"pending", "allocated", "prepared", "ready", "failed", "unknown", "skipped"},
       parse_nothing,
       nullptr,
       json_nothing},
      {OpKind::Await,
       "await",
       R"json({
         "description": "observes up to `polls_max` times (each a scheduling point; the clock does not move)",
         "properties": {
           "status": {"description": "The claim status to wait for.", "enum": ["pending", "allocated", "prepared", "ready", "failed"]},
           "polls_max": {"description": "Observations at most (default 1).", "type": "integer", "minimum": 1, "maximum": 1000, "default": 1}
         },
         "required": ["status"]
       })json",
       {"pending", "allocated", "prepared", "ready", "failed", "timeout", "skipped"},  //
       parse_await,
       nullptr,
       json_await,
       nullptr,
       {"observe"}},
      {OpKind::MarkReady,
       "mark_ready",
       R"json({
         "description": "marks the newest claim's workload ready"
       })json",
       {"done", "skipped", "error", "unknown", "crashed"},  //
       parse_nothing,
       nullptr,
       json_nothing},
      {OpKind::Reconcile,
       "reconcile",
       R"json({
         "description": "reconciles the newest claim to a desired status (`ready` only observes)",
         "properties": {
           "status": {"description": "The desired claim status.", "enum": ["pending", "allocated", "prepared", "ready", "failed"]}
         },
         "required": ["status"]
       })json",
       {"pending", "allocated", "prepared", "ready", "failed", "conflict", "skipped"},  //
       parse_reconcile,
       nullptr,
       json_reconcile},
  };
}

}  // namespace allocsim::harness

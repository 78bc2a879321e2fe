// The status ops: observe, await, mark_ready and reconcile, each on the newest claim the actor holds. Their syntax rows
// (op_syntax.h) come first, then what they do (op_behaviour.h).
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>
#include <string_view>

#include "backend/ops/script_runner.h"
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

namespace allocsim::harness {
namespace {

const char* run_observe(ScriptRunner& run, const Op&) {
  if (!run.state().claim_id) return "skipped";
  run.call("observe");
  return run.observe_once();
}

std::string detail_await(const Op& op) { return fmt::format("status={}", op.status); }

const char* run_await(ScriptRunner& run, const Op& op) {
  if (!run.state().claim_id) return "skipped";
  for (int i = 0; i < op.polls_max; ++i) {
    run.call("observe", fmt::format("await={} poll={}", op.status, i + 1));
    const char* got = run.observe_once();
    if (got == op.status || std::string_view(got) == backend::kClaimFailed) return got;
  }
  return "timeout";
}

const char* run_mark_ready(ScriptRunner& run, const Op&) {
  if (!run.state().claim_id) return "skipped";
  run.call("mark_ready");
  run.backend().mark_workload_ready(run.caller(), *run.state().claim_id);
  return "done";
}

std::string detail_reconcile(const Op& op) { return fmt::format("desired={}", op.status); }

const char* run_reconcile(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  if (!st.claim_id) return "skipped";
  run.call("reconcile", detail_reconcile(op));
  try {
    auto obs = run.backend().reconcile(run.caller(), *st.claim_id, op.status, st.claim_generation);
    st.told.observation = obs;
    return ScriptRunner::status_word(obs.status);
  } catch (const backend::OwnershipConflict&) {
    return "conflict";
  }
}

}  // namespace

std::vector<OpBehaviour> status_op_behaviour() {
  return {
      {OpKind::Observe, no_detail, run_observe},
      {OpKind::Await, detail_await, run_await},
      {OpKind::MarkReady, no_detail, run_mark_ready},
      {OpKind::Reconcile, detail_reconcile, run_reconcile},
  };
}

}  // namespace allocsim::harness

// What the status ops do (op_behaviour.h): observe, await, mark_ready and reconcile, each on the newest claim
// the actor holds; their syntax is backend/scenario/op_syntax_status.cpp.
#include "backend/ops/op_behaviour.h"

#include <fmt/format.h>

#include <string_view>

#include "backend/ops/script_runner.h"

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

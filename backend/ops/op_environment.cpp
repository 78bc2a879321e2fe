// What the environment ops do (op_behaviour.h): bind_workload and unbind_workload (the upstream's test
// kubelet) and advance_clock; their syntax is backend/scenario/op_syntax_environment.cpp. A bind the node's kubelet
// refuses (reject_binds, or a node whose operand labels turn its device plugin off: backend/world/admission_faults.h)
// calls nothing and records `rejected`.
#include "backend/ops/op_behaviour.h"

#include <fmt/format.h>

#include "backend/ops/script_runner.h"
#include "backend/world/admission_faults.h"

namespace allocsim::harness {
namespace {

std::string detail_bind(const Op& op) {
  return fmt::format("node={} workload={} units={}", op.node, op.workload, op.units);
}

const char* run_bind(ScriptRunner& run, const Op& op) {
  run.call("bind_workload", detail_bind(op));
  // No device plugin on the node (its operand labels, admission_faults.h): the kubelet refuses the pod outright.
  if (run.world().compiled().operand_labels &&
      device_plugin_off(run.backend().footprinted().node(run.caller(), op.node).labels.get())) {
    run.ctx().note(fmt::format("refused=device-plugin-off:{}", op.node));
    return "rejected";
  }
  if (AdmissionFaults& admission = run.world().admission; admission.enabled) {
    const bool refused = admission.take(op.node);
    run.ctx().touch(admission_faults_id(), refused);
    if (refused) {
      run.ctx().note(fmt::format("fault=reject_binds:{}", op.node));
      return "rejected";
    }
  }
  run.backend().bind_workload(run.caller(), op.node, op.workload, op.units);
  return "done";
}

std::string detail_unbind(const Op& op) { return fmt::format("node={} workload={}", op.node, op.workload); }

const char* run_unbind(ScriptRunner& run, const Op& op) {
  run.call("unbind_workload", detail_unbind(op));
  run.backend().unbind_workload(run.caller(), op.node, op.workload);
  return "done";
}

std::string detail_clock(const Op& op) { return fmt::format("seconds={:g}", op.seconds); }

const char* run_clock(ScriptRunner& run, const Op& op) {
  run.call("advance_clock", detail_clock(op));
  run.backend().advance_clock(run.caller(), op.seconds);
  // A leased flow's own advance renews its lease in the same step (backend/world/leases.h): the apply below may wait
  // for the backend lock, and a sweeper between the two would take the flow's own clock move for its idleness, a
  // window no op-level execution has (ops-atomic).
  run.renew_lease();
  run.backend().apply_pending_geometry(run.caller());
  return "done";
}

}  // namespace

std::vector<OpBehaviour> environment_op_behaviour() {
  return {
      {OpKind::BindWorkload, detail_bind, run_bind},
      {OpKind::UnbindWorkload, detail_unbind, run_unbind},
      {OpKind::AdvanceClock, detail_clock, run_clock},
  };
}

}  // namespace allocsim::harness

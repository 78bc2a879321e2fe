// What the environment ops do (op_behaviour.h): bind_workload and unbind_workload (the upstream's test
// kubelet) and advance_clock; their syntax is backend/scenario/op_syntax_environment.cpp. A bind the node's kubelet
// refuses (reject_binds, or a node whose operand labels turn its device plugin off: backend/world/admission_faults.h;
// a claim it cannot use or a resource the node lacks: backend/world/kubelet_admission.h) records `rejected` and binds
// nothing.
#include "backend/ops/op_behaviour.h"

#include <fmt/format.h>

#include <optional>

#include "backend/ops/script_runner.h"
#include "backend/world/admission_faults.h"
#include "backend/world/kubelet_admission.h"
#include "sim/assert.h"

namespace allocsim::harness {
namespace {

std::string detail_bind(const Op& op) {
  if (op.bind_claim) return fmt::format("node={} workload={} claim={}", op.node, op.workload, *op.bind_claim);
  std::string d = fmt::format("node={} workload={} units={}", op.node, op.workload, op.units);
  if (!op.resource.empty()) d += fmt::format(" resource={}", op.resource);
  return d;
}

const char* refuse(ScriptRunner& run, std::string why) {
  run.ctx().note("refused=" + why);
  return "rejected";
}

/// A bind that names its resource or its claim (kubelet_admission.h): the kubelet's checks, then upstream's
/// bind_workload. Under the backend lock, which upstream's bindings() and bind_workload take again (it is
/// re-entrant): the claim the pod names cannot go between the check and the bind.
const char* admit_and_bind(ScriptRunner& run, const Op& op) {
  const backend::LockGuard lock(run.caller());
  int units = op.units;
  std::string_view resource = op.resource;
  if (op.bind_claim) {
    // The claim the named actor's script holds now (its newest), as a kubelet resolves a pod's claim reference.
    const auto& actors = run.world().actors();
    const auto holder =
        std::find_if(actors.begin(), actors.end(), [&](const auto& a) { return a.name == *op.bind_claim; });
    ALLOCSIM_ASSERT(holder != actors.end(), "bind names the claim of {}, which is not an actor", *op.bind_claim);
    if (&*holder != &run.state()) run.ctx().touch(actor_claims_id(holder->name), false);
    if (!holder->claim_id) return refuse(run, fmt::format("no-claim:{}", holder->name));
    const std::string& id = *holder->claim_id;
    const backend::Claim* claim = run.backend().footprinted().find_claim(run.caller(), id);
    // DRA's kubelet prepares only an allocated claim, and only for a pod it is reserved for (here: a workload its
    // plan assigns devices).
    if (!claim) return refuse(run, fmt::format("claim-gone:{}", id));
    if (!backend::find_in(claim->plan.assignments, op.workload))
      return refuse(run, fmt::format("not-reserved:{}@{}", op.workload, id));
    const backend::WorkloadBindings spec = run.backend().bindings(run.caller(), id, op.workload);
    if (spec.node_selector_hostname != op.node)
      return refuse(run, fmt::format("node-selector:{}", spec.node_selector_hostname.value_or("-")));
    // Upstream's pod asks whole cards even for MIG slices (backend/CONTRACT.md §8).
    units = spec.gpu_limit;
    resource = kWholeCardResource;
    run.ctx().note(fmt::format("pod={}:{}", resource, units));
  }
  const backend::NodeFixture& n = run.backend().footprinted().node(run.caller(), op.node);
  run.ctx().touch(pod_resources_id(), false);
  const int free = advertised(n, resource) - held_by_pods(n, run.world().pod_resources, resource, op.workload);
  if (units > free) return refuse(run, fmt::format("insufficient:{}@{} free={}", resource, op.node, std::max(free, 0)));
  run.backend().bind_workload(run.caller(), op.node, op.workload, units);
  run.world().pod_resources.bind(op.node, op.workload, resource, advertises_slices(n, resource));
  run.ctx().touch(pod_resources_id(), true);
  return "done";
}

const char* run_bind(ScriptRunner& run, const Op& op) {
  run.call("bind_workload", detail_bind(op));
  // A kubelet that can refuse the pod decides and binds as one critical section, under the backend lock that
  // upstream's bind_workload takes again (it is re-entrant): a check passed outside it could wait for the lock and
  // bind after a refusal armed or a release made meanwhile, which no op-level execution has (ops-atomic). Only where
  // a refusal is possible, so that no other scenario's steps change.
  std::optional<backend::LockGuard> admission_lock;
  if (run.world().compiled().operand_labels || run.world().admission.enabled) admission_lock.emplace(run.caller());
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
  if (op.bind_claim || !op.resource.empty()) return admit_and_bind(run, op);
  run.backend().bind_workload(run.caller(), op.node, op.workload, op.units);
  if (run.world().compiled().pod_resources) {  // a bind of whole cards replaces what the pod held before
    run.world().pod_resources.bind(op.node, op.workload, kWholeCardResource, false);
    run.ctx().touch(pod_resources_id(), true);
  }
  return "done";
}

std::string detail_unbind(const Op& op) { return fmt::format("node={} workload={}", op.node, op.workload); }

const char* run_unbind(ScriptRunner& run, const Op& op) {
  run.call("unbind_workload", detail_unbind(op));
  run.backend().unbind_workload(run.caller(), op.node, op.workload);
  if (run.world().compiled().pod_resources) {
    run.world().pod_resources.unbind(op.node, op.workload);
    run.ctx().touch(pod_resources_id(), true);
  }
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

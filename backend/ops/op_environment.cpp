// The environment ops: bind_workload and unbind_workload (the upstream's test kubelet) and advance_clock, their syntax
// rows (op_syntax.h) first, then what they do (op_behaviour.h). A bind the node's kubelet
// refuses (reject_binds, or a node whose operand labels turn its device plugin off: backend/world/admission_faults.h;
// a claim it cannot use or a resource the node lacks: backend/world/kubelet_admission.h) records `rejected` and binds
// nothing.
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>
#include <algorithm>
#include <optional>
#include <regex>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/world/admission_faults.h"
#include "backend/world/kubelet_admission.h"
#include "sim/assert.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

/// Whether `s` names an extended resource the kubelet checks: a whole card, or a MIG slice of a profile that is
/// digits "g." digits "gb" (backend/world/kubelet_admission.h).
bool is_gpu_resource(const std::string& s) {
  if (s == "nvidia.com/gpu") return true;
  static const std::regex mig(R"(nvidia\.com/mig-[1-7]g\.[0-9]+gb)");
  return std::regex_match(s, mig);
}

void parse_unbind(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.workload = r.nonempty_string(r.require(v, ptr, "workload"), child(ptr, "workload"));
}

void parse_bind(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  parse_unbind(r, v, ptr, op);
  if (const Json* c = r.find(v, "claim")) {
    // The pod's units and resource are what upstream's bindings() writes for the claim.
    for (const char* key : {"units", "resource"})
      if (r.find(v, key) != nullptr)
        r.fail(child(ptr, key), fmt::format("a bind that names a claim takes its {} from the claim's bindings(); "
                                            "omit \"{}\"",
                                            key, key));
    op.bind_claim = r.nonempty_string(*c, child(ptr, "claim"));
  }
  if (const Json* res = r.find(v, "resource")) {
    op.resource = r.nonempty_string(*res, child(ptr, "resource"));
    if (!is_gpu_resource(op.resource))
      r.fail(child(ptr, "resource"),
             fmt::format("expected \"nvidia.com/gpu\" or a MIG slice such as \"nvidia.com/mig-1g.10gb\", got {}",
                         quote(op.resource)));
  }
  const Json* u = r.find(v, "units");
  if (u == nullptr) return;
  op.units = r.int_value(*u, child(ptr, "units"), 1, kMaxGpus);
  // A bind of more cards than the whole node has can never succeed; a smaller one may, depending on what else holds
  // it. A bind that names its resource may ask MIG slices (a card may hold seven, advertised as nvidia.com/gpu under
  // the single strategy): the kubelet's check bounds it (kubelet_admission.h).
  if (!op.resource.empty()) return;
  for (const NodeSpec& n : r.scenario().nodes)
    if (n.name == op.node && op.units > n.gpu_count)
      r.fail(child(ptr, "units"),
             fmt::format("{} units can never fit node {} (gpu_count {})", op.units, quote(op.node), n.gpu_count));
}

void resolve_bind(const ScenarioReader& r, const Op& op, const std::string& /*self*/,
                  const std::vector<std::string>& actors) {
  if (op.bind_claim && std::find(actors.begin(), actors.end(), *op.bind_claim) == actors.end())
    r.fail(child(op.pointer, "claim"), fmt::format("actor {} is not in /actors", quote(*op.bind_claim)));
}

void json_bind(const Op& op, Json& j) {
  j["node"] = op.node;
  j["workload"] = op.workload;
  if (op.bind_claim) {
    j["claim"] = *op.bind_claim;
    return;
  }
  j["units"] = op.units;
  if (!op.resource.empty()) j["resource"] = op.resource;
}

void json_unbind(const Op& op, Json& j) {
  j["node"] = op.node;
  j["workload"] = op.workload;
}

void parse_clock(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.seconds = r.number_value(r.require(v, ptr, "seconds"), child(ptr, "seconds"), 0, kMaxSeconds);
}

void json_clock(const Op& op, Json& j) { j["seconds"] = op.seconds; }

}  // namespace

std::vector<OpSyntax> environment_op_syntax() {
  return {
      {OpKind::BindWorkload,
       "bind_workload",
       R"json({
         "description": "a workload (ours or foreign) takes devices on the node; a bind the node's kubelet refuses (`reject_binds`, a node that runs no device plugin, a claim it cannot use or a resource the node lacks; docs/DESIGN.md §4 says when) binds nothing and records `rejected`",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "workload": {"description": "The workload id.", "type": "string", "minLength": 1},
           "units": {"description": "GPU units held (default 1); at most the named node's gpu_count (checked by the loader: a cross-reference).", "type": "integer", "minimum": 1, "maximum": 64, "default": 1},
           "resource": {"description": "The extended resource the pod asks, checked by the kubelet: nvidia.com/gpu (whole cards; slices under the single MIG strategy) or a MIG slice, nvidia.com/mig-<profile>. Absent: nothing is checked.", "type": "string", "pattern": "^nvidia\\.com/(gpu|mig-[1-7]g\\.[0-9]+gb)$"},
           "claim": {"description": "The actor (in /actors; this one or another) whose newest claim the pod names: its units and resource are what upstream's bindings() writes for that claim and this workload, and the kubelet refuses the pod when the actor holds no claim, the claim is gone, it assigns this workload nothing, or its node selector names another node.", "type": "string", "minLength": 1}
         },
         "required": ["node", "workload"],
         "allOf": [{"not": {"required": ["claim", "units"]}}, {"not": {"required": ["claim", "resource"]}}]
       })json",
       {"done", "rejected"},  // rejected: the node's kubelet refused it (admission_faults.h, kubelet_admission.h)
       parse_bind,
       resolve_bind,
       json_bind},
      {OpKind::UnbindWorkload,
       "unbind_workload",
       R"json({
         "description": "a workload (ours or foreign) leaves the node and frees the devices it held there",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "workload": {"description": "The workload id.", "type": "string", "minLength": 1}
         },
         "required": ["node", "workload"]
       })json",
       {"done"},  //
       parse_unbind,
       nullptr,
       json_unbind},
      {OpKind::AdvanceClock,
       "advance_clock",
       R"json({
         "description": "moves the fake clock, then pending geometry applies",
         "properties": {
           "seconds": {"description": "Seconds to advance, 0 to 86400.", "type": "number", "minimum": 0, "maximum": 86400}
         },
         "required": ["seconds"]
       })json",
       {"done"},  //
       parse_clock,
       nullptr,
       json_clock},
  };
}

}  // namespace allocsim::harness

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

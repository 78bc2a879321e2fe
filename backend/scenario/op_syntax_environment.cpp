// The syntax of the environment ops (op_syntax.h): bind_workload and unbind_workload (a kubelet) and
// advance_clock; their behaviour is backend/ops/op_environment.cpp.
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "backend/scenario/scenario_reader.h"

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
         "description": "a workload (ours or foreign) takes devices on the node; a bind the node's kubelet refuses (`reject_binds`, a node that runs no device plugin, a claim it cannot use or a resource the node lacks: docs/DESIGN.md §4, after the op table) binds nothing and records `rejected`",
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

// The syntax of the environment ops (op_syntax.h): bind_workload and unbind_workload (a kubelet) and
// advance_clock; their behaviour is backend/ops/op_environment.cpp.
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_bind(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.workload = r.nonempty_string(r.require(v, ptr, "workload"), child(ptr, "workload"));
  const Json* u = r.find(v, "units");
  if (u == nullptr) return;
  op.units = r.int_value(*u, child(ptr, "units"), 1, kMaxGpus);
  // A bind larger than the whole node can never succeed; a smaller one may, depending on what else holds it.
  for (const NodeSpec& n : r.scenario().nodes)
    if (n.name == op.node && op.units > n.gpu_count)
      r.fail(child(ptr, "units"),
             fmt::format("{} units can never fit node {} (gpu_count {})", op.units, quote(op.node), n.gpu_count));
}

void json_bind(const Op& op, Json& j) {
  j["node"] = op.node;
  j["workload"] = op.workload;
  j["units"] = op.units;
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
         "description": "Bind a foreign workload holding GPU units on a node.",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "workload": {"description": "The workload id.", "type": "string", "minLength": 1},
           "units": {"description": "GPU units held (default 1); at most the named node's gpu_count (checked by the loader: a cross-reference).", "type": "integer", "minimum": 1, "maximum": 64, "default": 1}
         },
         "required": ["node", "workload"]
       })json",
       {"done", "rejected"},  // rejected: the node's kubelet refused it (reject_binds)
       parse_bind,
       nullptr,
       json_bind},
      {OpKind::UnbindWorkload,
       "unbind_workload",
       R"json({
         "description": "Unbind a workload from a node.",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "workload": {"description": "The workload id.", "type": "string", "minLength": 1}
         },
         "required": ["node", "workload"]
       })json",
       {"done"},  //
       parse_bind,
       nullptr,
       json_unbind},
      {OpKind::AdvanceClock,
       "advance_clock",
       R"json({
         "description": "Advance the fake clock; pending geometry then applies.",
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

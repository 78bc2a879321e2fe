#include "backend/scenario/scenario_json.h"

#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/expect_audit.h"
#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario_state.h"

namespace allocsim::harness {

namespace {

using Json = nlohmann::ordered_json;

// Only the keys the op's kind takes (the parser rejects the others).
Json op_json(const Op& op) {
  const OpSyntax& spec = op_syntax(op.kind);
  Json j = {{"op", spec.name}};
  spec.to_json(op, j);
  modifiers_to_json(op, j);
  return j;
}

Json node_json(const NodeSpec& n) {
  Json j = {{"name", n.name}, {"product", n.product}, {"gpu_count", n.gpu_count}, {"memory_gib", n.memory_gib}};
  Json labels = Json::object();
  for (const auto& [k, v] : n.labels) labels[k] = v;
  j["labels"] = std::move(labels);
  if (!n.workloads.empty()) {
    Json w = Json::object();
    for (const auto& [k, v] : n.workloads) w[k] = v;
    j["workloads"] = std::move(w);
  }
  j["mig_config"] = n.mig_config;
  node_start_json(n, j);
  return j;
}

Json expect_json(const Expectation& e) {
  Json j = Json::object();
  if (e.pass)
    j["outcome"] = "pass";
  else
    j["violation"] = e.violations;
  if (!e.actors.empty()) {
    Json actors = Json::object();
    for (const auto& [actor, ops] : e.actors) {
      Json o = Json::object();
      for (const auto& [op, outcomes] : ops) o[op] = outcomes;
      if (const auto* pins = backend::find_in(e.occurrences, actor))
        for (const auto& [index, outcomes] : *pins) o[std::to_string(index)] = outcomes;
      actors[actor] = std::move(o);
    }
    j["actors"] = std::move(actors);
  }
  j["reach"] = e.reach;
  if (!e.audit.empty()) {
    Json audit = Json::object();
    for (const auto& [key, rule] : e.audit) audit[key] = audit_rule_json(rule);
    j["audit"] = std::move(audit);
  }
  return j;
}

// Only when the file had a `faults` key; every field written, defaults included.
Json faults_json(const FaultSpec& f) {
  Json j = {{"max", f.max}};
  if (!f.actors.empty()) j["actors"] = f.actors;
  if (!f.barriers.empty()) {
    Json b = Json::object();
    for (const auto& [barrier, actions] : f.barriers) {
      Json a = Json::array();
      for (FaultAction x : actions) a.push_back(fault_action_name(x));
      b[barrier] = std::move(a);
    }
    j["barriers"] = std::move(b);
  }
  if (!f.fail_reads.empty()) j["fail_reads"] = f.fail_reads;
  if (!f.fail_geometry.empty()) j["fail_geometry"] = f.fail_geometry;
  return j;
}

}  // namespace

nlohmann::ordered_json scenario_to_json(const Scenario& s) {
  Json j = {{"schema", "allocsim/scenario/v1"}, {"name", s.name}, {"description", s.description}};
  j["backend"] = {{"authority", s.authority}, {"mig_apply_seconds", s.mig_apply_seconds}, {"mutants", s.mutants}};
  Json nodes = Json::array();
  for (const NodeSpec& n : s.nodes) nodes.push_back(node_json(n));
  j["nodes"] = std::move(nodes);
  start_state_json(s.start, j);
  Json actors = Json::array();
  for (const ActorSpec& a : s.actors) {
    if (a.behind_of) continue;  // derived by the loader from the `behind` ops (conditional_ops.h)
    Json script = Json::array();
    for (const Op& op : a.script) script.push_back(op_json(op));
    Json actor = {{"name", a.name}};
    if (a.owner) actor["owner"] = *a.owner;
    actor["script"] = std::move(script);
    actors.push_back(std::move(actor));
  }
  j["actors"] = std::move(actors);
  if (s.invariants.empty())
    j["invariants"] = "all";
  else
    j["invariants"] = s.invariants;
  j["expect"] = expect_json(s.expect);
  if (s.faults.enabled) j["faults"] = faults_json(s.faults);
  if (s.max_steps) j["max_steps"] = *s.max_steps;
  if (s.converge_seconds) j["converge_seconds"] = *s.converge_seconds;
  if (!s.order.empty()) j["order"] = sim::order_json(s.order);
  return j;
}

}  // namespace allocsim::harness

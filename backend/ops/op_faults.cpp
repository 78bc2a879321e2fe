// Fault ops with shape (issue 13 items 3 and 4), rows appended to the op table (ops.h, ops_registry.cpp):
// - stale_reads (`writes` K, `reads` N): the next N inventory or observe reads, by any actor, answer from the
//   state as of K writes ago (read_faults.h says what a write is and how the history is kept);
// - partial_reads (`workloads`, `reads` N): the next N inventories list the pods without those workloads, and
//   say nothing about it (completeness stays "complete", unlike a failed pod listing);
// - fail_geometry_for (`node`, `seconds` S): geometry applies on the node fail until the fake clock has moved
//   S seconds past now, then succeed again (`fail_geometry` stays the permanent one);
// - geometry_no_effect (`node`): from now on an apply there reports `success` for its write while the node's
//   mig_layout is left unchanged.
// The seed has no hook for any of them (its hooks are fail_reads and fail_geometry): the read faults are the
// harness's (read_faults.h), the geometry faults port-only backend hooks (backend/geometry_hooks.cpp). Each
// records `done`; a fault that fires later adds "fault=..." to the detail of the read it changes.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/ops/script_runner.h"
#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/world/read_faults.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_reads_count(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* n = r.find(v, "reads")) op.reads = r.int_value(*n, child(ptr, "reads"), 1, kMaxFaultedReads);
}

// -- stale_reads -----------------------------------------------------------------------------------

void parse_stale(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* w = r.find(v, "writes")) op.writes = r.int_value(*w, child(ptr, "writes"), 1, kMaxStaleWrites);
  parse_reads_count(r, v, ptr, op);
}
void json_stale(const Op& op, Json& j) {
  j["writes"] = op.writes;
  j["reads"] = op.reads;
}
std::string detail_stale(const Op& op) { return fmt::format("writes={} reads={}", op.writes, op.reads); }
const char* run_stale(ScriptRunner& run, const Op& op) {
  run.call("stale_reads", detail_stale(op));
  run.ctx().touch(read_faults_id(), true);
  ReadFaults& f = run.world().read_faults;
  f.stale_writes = op.writes;
  f.stale_reads = op.reads;
  return "done";
}

// -- partial_reads ---------------------------------------------------------------------------------

void parse_partial(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  const std::string wptr = child(ptr, "workloads");
  const Json& w = r.require(v, ptr, "workloads");
  r.want_size(w, wptr, 1, kMaxRequests, "workloads");
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::string name = r.nonempty_string(w[i], child(wptr, i));
    r.reject_duplicate(op.workloads, name, wptr, child(wptr, i), "workload");
    op.workloads.push_back(std::move(name));
  }
  parse_reads_count(r, v, ptr, op);
}
/// Only workloads that can hold devices can be missing from a listing: a node's start workloads and the
/// workloads of bind_workload ops. Anything else is a typo that would silently omit nothing.
void resolve_partial(const ScenarioReader& r, const Op& op, const std::string&, const std::vector<std::string>&) {
  std::vector<std::string> known;
  for (const NodeSpec& n : r.scenario().nodes)
    for (const auto& [workload, units] : n.workloads) known.push_back(workload);
  for (const ActorSpec& a : r.scenario().actors)
    for (const Op& o : a.script)
      if (o.kind == OpKind::BindWorkload) known.push_back(o.workload);
  std::vector<const char*> names;
  for (const std::string& k : known) names.push_back(k.c_str());
  for (std::size_t i = 0; i < op.workloads.size(); ++i)
    if (!support::contains(names, op.workloads[i]))
      r.fail(child(child(op.pointer, "workloads"), i),
             fmt::format("workload {} holds no devices in this scenario (not in /nodes/*/workloads, nor bound by "
                         "a bind_workload op){}",
                         quote(op.workloads[i]), support::did_you_mean(op.workloads[i], names)));
}
void json_partial(const Op& op, Json& j) {
  j["workloads"] = op.workloads;
  j["reads"] = op.reads;
}
std::string detail_partial(const Op& op) {
  return fmt::format("workloads={} reads={}", fmt::join(op.workloads, ","), op.reads);
}
const char* run_partial(ScriptRunner& run, const Op& op) {
  run.call("partial_reads", detail_partial(op));
  run.ctx().touch(read_faults_id(), true);
  ReadFaults& f = run.world().read_faults;
  f.partial_workloads = op.workloads;
  f.partial_reads = op.reads;
  return "done";
}

// -- fail_geometry_for, geometry_no_effect ------------------------------------------------------------

void parse_geometry_for(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.seconds = r.number_value(r.require(v, ptr, "seconds"), child(ptr, "seconds"), 0, kMaxSeconds, true);
}
void json_geometry_for(const Op& op, Json& j) {
  j["node"] = op.node;
  j["seconds"] = op.seconds;
}
std::string detail_geometry_for(const Op& op) { return fmt::format("node={} seconds={:g}", op.node, op.seconds); }
const char* run_geometry_for(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry_for", detail_geometry_for(op));
  run.backend().fail_geometry_for(run.caller(), op.node, op.seconds);
  return "done";
}

void parse_node(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
}
void json_node(const Op& op, Json& j) { j["node"] = op.node; }
std::string detail_node(const Op& op) { return fmt::format("node={}", op.node); }
const char* run_no_effect(ScriptRunner& run, const Op& op) {
  run.call("geometry_no_effect", detail_node(op));
  run.backend().geometry_without_effect(run.caller(), op.node);
  return "done";
}

}  // namespace

std::vector<OpSpec> fault_op_rows() {
  return {
      {OpKind::StaleReads,
       "stale_reads",
       {"op", "writes", "reads"},
       {"done"},
       parse_stale,
       nullptr,
       json_stale,
       detail_stale,
       run_stale},
      {OpKind::PartialReads,
       "partial_reads",
       {"op", "workloads", "reads"},
       {"done"},
       parse_partial,
       resolve_partial,
       json_partial,
       detail_partial,
       run_partial},
      {OpKind::FailGeometryFor,
       "fail_geometry_for",
       {"op", "node", "seconds"},
       {"done"},
       parse_geometry_for,
       nullptr,
       json_geometry_for,
       detail_geometry_for,
       run_geometry_for},
      {OpKind::GeometryNoEffect,
       "geometry_no_effect",
       {"op", "node"},
       {"done"},
       parse_node,
       nullptr,
       json_node,
       detail_node,
       run_no_effect},
  };
}

}  // namespace allocsim::harness

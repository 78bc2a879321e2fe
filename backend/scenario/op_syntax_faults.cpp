// The syntax of the fault ops (op_syntax.h): fail_reads, restore_reads and fail_geometry (the upstream's test
// hooks), the faults with shape stale_reads, partial_reads, fail_geometry_for, geometry_no_effect and
// geometry_partial, and the admission fault reject_binds;
// what they do is backend/ops/op_faults.cpp.
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_reads(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.read_kind = r.choice(r.require(v, ptr, "kind"), child(ptr, "kind"), read_kinds());
}

void json_reads(const Op& op, Json& j) { j["kind"] = op.read_kind; }

void parse_node(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
}

void json_node(const Op& op, Json& j) { j["node"] = op.node; }

// -- geometry_partial, reject_binds: a node and how many applies or binds on it the fault covers -----------

/// `node`, and the optional count `key` (1..max, default 1) into `op.*field`.
template <const char* key, int max, int Op::*field>
void parse_node_count(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  parse_node(r, v, ptr, op);
  if (const Json* n = r.find(v, key)) op.*field = r.int_value(*n, child(ptr, key), 1, max);
}

template <const char* key, int Op::*field>
void json_node_count(const Op& op, Json& j) {
  j["node"] = op.node;
  j[key] = op.*field;
}

constexpr char kApplies[] = "applies";
constexpr char kBinds[] = "binds";

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
  if (const Json* l = r.find(v, "listings")) {
    static const std::vector<const char*> kListings = {"inventory", "release"};
    const std::string lptr = child(ptr, "listings");
    r.want_size(*l, lptr, 1, kListings.size(), "listings");
    for (std::size_t i = 0; i < l->size(); ++i) {
      std::string name = r.choice((*l)[i], child(lptr, i), kListings);
      r.reject_duplicate(op.listings, name, lptr, child(lptr, i), "listing");
      op.listings.push_back(std::move(name));
    }
  }
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
  if (!op.listings.empty()) j["listings"] = op.listings;  // absent: the inventory's, as before the key existed
}

// -- fail_geometry_for -----------------------------------------------------------------------------

void parse_geometry_for(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.seconds = r.number_value(r.require(v, ptr, "seconds"), child(ptr, "seconds"), 0, kMaxSeconds, true);
}

void json_geometry_for(const Op& op, Json& j) {
  j["node"] = op.node;
  j["seconds"] = op.seconds;
}

}  // namespace

std::vector<OpSyntax> fault_op_syntax() {
  return {
      {OpKind::FailReads,
       "fail_reads",
       {"op", "kind"},
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads},
      {OpKind::RestoreReads,
       "restore_reads",
       {"op", "kind"},
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads},
      {OpKind::FailGeometry,
       "fail_geometry",
       {"op", "node"},
       {"done"},  //
       parse_node,
       nullptr,
       json_node},
      {OpKind::StaleReads, "stale_reads", {"op", "writes", "reads"}, {"done"}, parse_stale, nullptr, json_stale},
      {OpKind::PartialReads,
       "partial_reads",
       {"op", "workloads", "reads", "listings"},
       {"done"},
       parse_partial,
       resolve_partial,
       json_partial},
      {OpKind::FailGeometryFor,
       "fail_geometry_for",
       {"op", "node", "seconds"},
       {"done"},
       parse_geometry_for,
       nullptr,
       json_geometry_for},
      {OpKind::GeometryNoEffect, "geometry_no_effect", {"op", "node"}, {"done"}, parse_node, nullptr, json_node},
      {OpKind::GeometryPartial,
       "geometry_partial",
       {"op", "node", "applies"},
       {"done"},
       parse_node_count<kApplies, kMaxFaultedApplies, &Op::applies>,
       nullptr,
       json_node_count<kApplies, &Op::applies>},
      {OpKind::RejectBinds,
       "reject_binds",
       {"op", "node", "binds"},
       {"done"},
       parse_node_count<kBinds, kMaxRefusedBinds, &Op::binds>,
       nullptr,
       json_node_count<kBinds, &Op::binds>},
  };
}

bool partial_reads_covers(const Op& op, std::string_view listing) {
  return op.listings.empty() ? listing == "inventory"
                             : std::find(op.listings.begin(), op.listings.end(), listing) != op.listings.end();
}

}  // namespace allocsim::harness

// The fault ops, their syntax rows (op_syntax.h) first, then what they do (op_behaviour.h). fail_reads,
// restore_reads and fail_geometry call the upstream's test hooks. The faults with shape (docs/DESIGN.md §4):
// - stale_reads (`writes` K, `reads` N): the next N inventory or observe reads, by any actor, answer from the
//   state as of K writes ago (read_faults.h says what a write is and how the history is kept);
// - partial_reads (`workloads`, `reads` N, `listings`): the next N inventories list the pods without those
//   workloads, and say nothing about it (completeness stays "complete", unlike a failed pod listing); with
//   `listings` naming "release", the next N release workload checks likewise (the port's read hook
//   hide_from_release, backend/model/read_hooks.cpp), and "inventory" must then be named to keep the first;
// - fail_geometry_for (`node`, `seconds` S): geometry applies on the node fail until the fake clock has moved
//   S seconds past now, then succeed again (`fail_geometry` stays the permanent one);
// - geometry_no_effect (`node`): from now on an apply there reports `success` for its write while the node's
//   mig_layout is left unchanged;
// - geometry_partial (`node`, `applies` N): the next N applies there carve one slice of their layout and report
//   `failed`;
// - reject_binds (`node`, `binds` N): the node's kubelet refuses the next N binds on it (admission_faults.h; the
//   refused bind is op_environment.cpp's).
// Upstream has no hook for any of them (its hooks are fail_reads and fail_geometry): the read faults are the
// harness's (read_faults.h) but for a release's listing, a port-only read hook; the geometry faults port-only
// backend hooks (backend/model/geometry_hooks.cpp). Each
// records `done`; a fault that fires later adds "fault=..." to the detail of the read it changes.
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/world/admission_faults.h"
#include "backend/world/read_faults.h"

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

/// One card a partial inventory hides, `{"node", "ordinal"}` (as a start claim names a whole card).
std::pair<std::string, int> hidden_device(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  static const std::vector<const char*> kKeys = {"node", "ordinal"};
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kKeys);
  const std::string node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  const auto& nodes = r.scenario().nodes;
  const int cards =
      std::find_if(nodes.begin(), nodes.end(), [&](const NodeSpec& n) { return n.name == node; })->gpu_count;
  return {node,
          r.int_value(r.require(v, ptr, "ordinal"), child(ptr, "ordinal"), 0, cards - 1, " (a card of the node)")};
}

void parse_partial(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  const Json* w = r.find(v, "workloads");
  const Json* d = r.find(v, "devices");
  if (!w && !d) r.fail(ptr, "missing required key \"workloads\" (or \"devices\"): what the listing omits");
  const std::string wptr = child(ptr, "workloads");
  if (w) r.want_size(*w, wptr, 1, kMaxRequests, "workloads");
  for (std::size_t i = 0; w && i < w->size(); ++i) {
    std::string name = r.nonempty_string((*w)[i], child(wptr, i));
    r.reject_duplicate(op.workloads, name, wptr, child(wptr, i), "workload");
    op.workloads.push_back(std::move(name));
  }
  const std::string dptr = child(ptr, "devices");
  if (d) r.want_size(*d, dptr, 1, kMaxRequests, "devices");
  for (std::size_t i = 0; d && i < d->size(); ++i) {
    auto card = hidden_device(r, (*d)[i], child(dptr, i));
    const auto first = std::find(op.devices.begin(), op.devices.end(), card);
    if (first != op.devices.end())
      r.fail(child(dptr, i), fmt::format("duplicate device {}#{} (first at {})", card.first, card.second,
                                         child(dptr, size_t(first - op.devices.begin()))));
    op.devices.push_back(std::move(card));
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
  // A release's workload check lists pods, not devices: hidden cards are the inventory's device listing alone.
  if (d && !partial_reads_covers(op, "inventory"))
    r.fail(child(ptr, "devices"), "devices are hidden from inventories only; add \"inventory\" to \"listings\"");
  if (!w && partial_reads_covers(op, "release"))
    r.fail(child(ptr, "listings"), "a release's listing omits workloads, and this op names none; add \"workloads\"");
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
  if (!op.workloads.empty()) j["workloads"] = op.workloads;
  if (!op.devices.empty()) {
    Json& ds = j["devices"] = Json::array();
    for (const auto& [node, ordinal] : op.devices) ds.push_back({{"node", node}, {"ordinal", ordinal}});
  }
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
       R"json({
         "description": "reads of that kind fail from now on, until `restore_reads`",
         "properties": {
           "kind": {"description": "Which reads: node listings, pod listings or the mig-parted config.", "enum": ["nodes", "pods", "config"]}
         },
         "required": ["kind"]
       })json",
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads},
      {OpKind::RestoreReads,
       "restore_reads",
       R"json({
         "description": "reads of that kind succeed again",
         "properties": {
           "kind": {"description": "Which reads: node listings, pod listings or the mig-parted config.", "enum": ["nodes", "pods", "config"]}
         },
         "required": ["kind"]
       })json",
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads},
      {OpKind::FailGeometry,
       "fail_geometry",
       R"json({
         "description": "geometry writes there fail from now on (ALLOC-021)",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"}
         },
         "required": ["node"]
       })json",
       {"done"},  //
       parse_node,
       nullptr,
       json_node},
      {OpKind::StaleReads,
       "stale_reads",
       R"json({
          "description": "the next `reads` inventory or observe reads, by any actor, see the nodes and claims as of `writes` writes ago (a write: a step that wrote a node or a claim; harness-level)",
          "properties": {
            "writes": {"description": "How many writes behind the read is, 1 to 8 (default 1); fewer writes so far: the start state.", "type": "integer", "minimum": 1, "maximum": 8, "default": 1},
            "reads": {"description": "How many reads the fault covers, 1 to 16 (default 1).", "type": "integer", "minimum": 1, "maximum": 16, "default": 1}
          }
        })json",
       {"done"},
       parse_stale,
       nullptr,
       json_stale},
      {OpKind::PartialReads,
       "partial_reads",
       R"json({
         "description": "the next `reads` listings of each kind named omit those workloads and still look complete: an inventory's pod listing (it says complete; harness-level), and a release's workload check, a recovery's included (it frees the claim while the hidden pods run; a port-only read hook, `backend/model/read_hooks.cpp`, whose step carries `fault=partial_reads:W`). `devices` (`[{\"node\", \"ordinal\"}]`, whole cards, 1-16 of them, each once) are omitted from the inventory's device listing too, as a device plugin lists only the cards it finds healthy: the answer keeps its generation and says complete, and is cut after the backend answered, so the port's own checks see the whole listing; the faulted read's step carries the cards by upstream's uuid (`fault=partial_reads:W,GPU-n1-0`). At least one of `workloads` and `devices`; `devices` needs the inventory listing, and the release listing needs `workloads`. Arming again replaces the armed fault of each kind named",
         "properties": {
           "workloads": {"description": "Workloads the listing omits: each a start workload of a node or bound by a bind_workload op.", "type": "array", "minItems": 1, "maxItems": 16, "uniqueItems": true, "items": {"type": "string", "minLength": 1}},
           "devices": {"description": "Whole cards the inventory's device listing omits (a device plugin that lists fewer cards than the node has, as for an unhealthy card); only with the inventory listing.", "type": "array", "minItems": 1, "maxItems": 16, "uniqueItems": true, "items": {"type": "object", "properties": {"node": {"description": "A node in /nodes.", "type": "string", "minLength": 1}, "ordinal": {"description": "The card's ordinal on the node, from 0.", "type": "integer", "minimum": 0}}, "required": ["node", "ordinal"], "additionalProperties": false}},
           "reads": {"description": "How many listings of each kind the fault covers, 1 to 16 (default 1).", "type": "integer", "minimum": 1, "maximum": 16, "default": 1},
           "listings": {"description": "Which listings the fault covers (default [\"inventory\"]): \"inventory\", \"release\", or both.", "default": ["inventory"], "type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": true, "items": {"enum": ["inventory", "release"]}}
         },
         "anyOf": [{"required": ["workloads"]}, {"required": ["devices"]}],
         "dependentSchemas": {"devices": {"properties": {"listings": {"description": "Devices are hidden from inventories only.", "contains": {"const": "inventory"}}}}},
         "if": {"properties": {"listings": {"contains": {"const": "release"}}}, "required": ["listings"]},
         "then": {"required": ["workloads"]}
       })json",
       {"done"},
       parse_partial,
       resolve_partial,
       json_partial},
      {OpKind::FailGeometryFor,
       "fail_geometry_for",
       R"json({
         "description": "geometry applies there fail until the fake clock has moved `seconds` on, then succeed (a port-only hook)",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "seconds": {"description": "How long the failure lasts, more than 0 up to 86400 seconds of fake clock.", "type": "number", "exclusiveMinimum": 0, "maximum": 86400}
         },
         "required": ["node", "seconds"]
       })json",
       {"done"},
       parse_geometry_for,
       nullptr,
       json_geometry_for},
      {OpKind::GeometryNoEffect,
       "geometry_no_effect",
       R"json({
          "description": "from now on an apply there reports `success` for its write and leaves the layout unchanged (a port-only hook)",
          "properties": {
            "node": {"$ref": "#/$defs/node_ref"}
          },
          "required": ["node"]
        })json",
       {"done"},
       parse_node,
       nullptr,
       json_node},
      {OpKind::GeometryPartial,
       "geometry_partial",
       R"json({
         "description": "the next `applies` applies there each carve only the first slice of the layout a successful apply would carve (one instance of its first profile, in the order of the geometry text upstream writes, profiles sorted by name: `1g.10gb:2,1g.20gb:1` carves `1g.10gb: 1`) and report `failed` for their write: a half-made layout (a GPU instance made, its compute instance not); later applies are whole. `fail_geometry` and `fail_geometry_for` win over it (nothing carved, no partial apply used up); it wins over `geometry_no_effect`. A second arming adds its applies. A port-only hook",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "applies": {"description": "How many applies on the node the fault covers, 1 to 16 (default 1).", "type": "integer", "minimum": 1, "maximum": 16, "default": 1}
         },
         "required": ["node"]
       })json",
       {"done"},
       parse_node_count<kApplies, kMaxFaultedApplies, &Op::applies>,
       nullptr,
       json_node_count<kApplies, &Op::applies>},
      {OpKind::RejectBinds,
       "reject_binds",
       R"json({
         "description": "the node's kubelet refuses the next `binds` `bind_workload` ops on it, as kubelet admission does when the device plugin's Allocate fails (`UnexpectedAdmissionError`): each records `rejected`, binds nothing and calls nothing, and its step carries `fault=reject_binds:NODE`; the claim the pod was scheduled on stays as it was. A second arming adds its binds. Harness-level (`backend/world/admission_faults.h`): upstream's `bind_workload`, its test kubelet, has no refusal; the differential driver refuses the same binds on upstream (it does not call `bind_workload` for them)",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "binds": {"description": "How many binds on the node are refused, 1 to 16 (default 1).", "type": "integer", "minimum": 1, "maximum": 16, "default": 1}
         },
         "required": ["node"]
       })json",
       {"done"},
       parse_node_count<kBinds, kMaxRefusedBinds, &Op::binds>,
       nullptr,
       json_node_count<kBinds, &Op::binds>},
  };
}

}  // namespace allocsim::harness

namespace allocsim::harness {
namespace {

std::string detail_reads(const Op& op) { return fmt::format("kind={}", op.read_kind); }

const char* run_fail_reads(ScriptRunner& run, const Op& op) {
  run.call("fail_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, "timeout");
  return "done";
}

const char* run_restore_reads(ScriptRunner& run, const Op& op) {
  run.call("restore_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, std::nullopt);
  return "done";
}

std::string detail_node(const Op& op) { return fmt::format("node={}", op.node); }

const char* run_fail_geometry(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry", detail_node(op));
  run.backend().fail_geometry(run.caller(), op.node);
  return "done";
}

// -- stale_reads -----------------------------------------------------------------------------------

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

std::string detail_partial(const Op& op) {
  std::string d;
  if (!op.workloads.empty()) d = fmt::format("workloads={} ", fmt::join(op.workloads, ","));
  if (!op.devices.empty()) d += fmt::format("devices={} ", fmt::join(device_uuids(op.devices), ","));
  d += fmt::format("reads={}", op.reads);
  if (!op.listings.empty()) d += fmt::format(" listings={}", fmt::join(op.listings, ","));
  return d;
}

const char* run_partial(ScriptRunner& run, const Op& op) {
  run.call("partial_reads", detail_partial(op));
  if (partial_reads_covers(op, "inventory")) {
    run.ctx().touch(read_faults_id(), true);
    ReadFaults& f = run.world().read_faults;
    f.partial_workloads = op.workloads;
    f.partial_devices = op.devices;
    f.partial_reads = op.reads;
  }
  if (partial_reads_covers(op, "release")) run.backend().hide_from_release(run.caller(), op.workloads, op.reads);
  return "done";
}

// -- fail_geometry_for, geometry_no_effect, geometry_partial --------------------------------------

std::string detail_geometry_for(const Op& op) { return fmt::format("node={} seconds={:g}", op.node, op.seconds); }

const char* run_geometry_for(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry_for", detail_geometry_for(op));
  run.backend().fail_geometry_for(run.caller(), op.node, op.seconds);
  return "done";
}

const char* run_no_effect(ScriptRunner& run, const Op& op) {
  run.call("geometry_no_effect", detail_node(op));
  run.backend().geometry_without_effect(run.caller(), op.node);
  return "done";
}

std::string detail_partial_apply(const Op& op) { return fmt::format("node={} applies={}", op.node, op.applies); }

const char* run_partial_apply(ScriptRunner& run, const Op& op) {
  run.call("geometry_partial", detail_partial_apply(op));
  run.backend().geometry_partial(run.caller(), op.node, op.applies);
  return "done";
}

// -- reject_binds ----------------------------------------------------------------------------------

std::string detail_reject(const Op& op) { return fmt::format("node={} binds={}", op.node, op.binds); }

const char* run_reject(ScriptRunner& run, const Op& op) {
  run.call("reject_binds", detail_reject(op));
  run.ctx().touch(admission_faults_id(), true);
  run.world().admission.arm(op.node, op.binds);
  return "done";
}

}  // namespace

std::vector<OpBehaviour> fault_op_behaviour() {
  return {
      {OpKind::FailReads, detail_reads, run_fail_reads},
      {OpKind::RestoreReads, detail_reads, run_restore_reads},
      {OpKind::FailGeometry, detail_node, run_fail_geometry},
      {OpKind::StaleReads, detail_stale, run_stale},
      {OpKind::PartialReads, detail_partial, run_partial},
      {OpKind::FailGeometryFor, detail_geometry_for, run_geometry_for},
      {OpKind::GeometryNoEffect, detail_node, run_no_effect},
      {OpKind::GeometryPartial, detail_partial_apply, run_partial_apply},
      {OpKind::RejectBinds, detail_reject, run_reject},
  };
}

}  // namespace allocsim::harness

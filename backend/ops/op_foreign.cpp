// Foreign writes (docs/DESIGN.md §4, "Foreign writes"): ops an actor runs as another controller of the cluster (GPU
// Feature Discovery relabelling a node, an admin or mig-manager writing the MIG labels, the GPU operator rewriting
// the shared mig-parted map or the ClusterPolicy pointer). None is an upstream call: upstream's API has no such
// writer, so they live here, in the harness, and change only what a real cluster's API server would let that
// controller change. Their syntax rows (op_syntax.h) come first, then what they write.
//
// Each is one Call scheduling point (like every op, so any interleaving with the adapter's steps is explored)
// followed by a single write under the backend lock that bumps the object's version as the API server would:
// a node's resourceVersion, the shared map's version, the pointer's version. They write nothing to the audit
// log (it is the adapter's record of its own writes) and fire no barrier, so they end in `done` only.
// Footprint (DPOR): the object written, as a write: (Node, name) for set_labels / set_mig_state, the shared map for
// write_shared_map, the pointer for set_pointer. Each write goes through the backend's footprinting accessors
// (backend/model/footprinted_state.h), so it touches the object the adapter's steps read. Each then copies the whole
// state into audit_base without a footprint: the audit invariant's new starting point (no step decides on it).
#include "backend/ops/op_behaviour.h"
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/scenario/scenario_state.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

// -- set_labels --------------------------------------------------------------------------------------------

void parse_set_labels(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  if (const Json* s = r.find(v, "set")) {
    const std::string sp = child(ptr, "set");
    r.want_object(*s, sp);
    for (auto it = s->begin(); it != s->end(); ++it) {
      const std::string p = child(sp, it.key());
      if (it.key().empty()) r.fail(p, "label keys must be non-empty");
      if (it.key() == kMigStateLabel)
        r.fail(p, fmt::format("{} is written with op \"set_mig_state\" (it carries the generation it answers)",
                              quote(kMigStateLabel)));
      std::string value = r.string_value(it.value(), p);
      if (it.key() == kMigConfigLabel && value.empty()) r.fail(p, "expected a non-empty mig-parted config name");
      op.set_labels.emplace_back(it.key(), std::move(value));
    }
  }
  if (const Json* rm = r.find(v, "remove")) {
    const std::string rp = child(ptr, "remove");
    r.want_array(*rm, rp);
    for (std::size_t i = 0; i < rm->size(); ++i) {
      const std::string p = child(rp, i);
      std::string key = r.nonempty_string((*rm)[i], p);
      if (key == kMigConfigLabel || key == kMigStateLabel)
        r.fail(p, fmt::format("{} cannot be removed: the backend models it as a field that always has a value",
                              quote(key)));
      if (backend::find_in(op.set_labels, key) != nullptr)
        r.fail(p, fmt::format("label {} is both set and removed", quote(key)));
      r.reject_duplicate(op.remove_labels, key, rp, p, "label");
      op.remove_labels.push_back(std::move(key));
    }
  }
  if (op.set_labels.empty() && op.remove_labels.empty())
    r.fail(ptr, "set_labels writes nothing: give a non-empty \"set\" or \"remove\"");
}

void json_set_labels(const Op& op, Json& j) {
  j["node"] = op.node;
  Json s = Json::object();
  for (const auto& [k, v] : op.set_labels) s[k] = v;
  j["set"] = std::move(s);
  j["remove"] = op.remove_labels;
}

// -- set_mig_state -----------------------------------------------------------------------------------------

void parse_set_mig_state(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.mig_state = r.choice(r.require(v, ptr, "state"), child(ptr, "state"), mig_state_words());
  if (const Json* g = r.find(v, "generation"))
    op.mig_state_generation = r.int_value(*g, child(ptr, "generation"), 0, kMaxVersion);
}

void json_set_mig_state(const Op& op, Json& j) {
  j["node"] = op.node;
  j["state"] = op.mig_state;
  if (op.mig_state_generation) j["generation"] = *op.mig_state_generation;
}

// -- write_shared_map --------------------------------------------------------------------------------------

void parse_write_map(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* p = r.find(v, "put")) op.map_put = read_map_entries(r, *p, child(ptr, "put"));
  if (const Json* d = r.find(v, "delete")) {
    const std::string dp = child(ptr, "delete");
    r.want_array(*d, dp);
    for (std::size_t i = 0; i < d->size(); ++i) {
      const std::string p = child(dp, i);
      std::string entry = r.nonempty_string((*d)[i], p);
      if (backend::find_in(op.map_put, entry) != nullptr)
        r.fail(p, fmt::format("entry {} is both put and deleted", quote(entry)));
      r.reject_duplicate(op.map_delete, entry, dp, p, "entry");
      op.map_delete.push_back(std::move(entry));
    }
  }
  if (const Json* x = r.find(v, "replace")) op.map_replace = r.bool_value(*x, child(ptr, "replace"));
  if (op.map_put.empty() && op.map_delete.empty() && !op.map_replace)
    r.fail(ptr, "write_shared_map writes nothing: give \"put\", \"delete\" or \"replace\": true");
}

void json_write_map(const Op& op, Json& j) {
  Json put = Json::object();
  for (const auto& [entry, members] : op.map_put) {
    Json m = Json::object();
    for (const auto& [node, one] : members) m[node] = one;
    put[entry] = std::move(m);
  }
  j["put"] = std::move(put);
  j["delete"] = op.map_delete;
  j["replace"] = op.map_replace;
}

// -- set_pointer -------------------------------------------------------------------------------------------

void parse_set_pointer(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.pointer_value = r.nonempty_string(r.require(v, ptr, "pointer"), child(ptr, "pointer"));
}

void json_set_pointer(const Op& op, Json& j) { j["pointer"] = op.pointer_value; }

}  // namespace

std::vector<OpSyntax> foreign_op_syntax() {
  return {
      {OpKind::SetLabels,
       "set_labels",
       R"json({
         "description": "a foreign write (GFD, an admin): sets / removes node labels and bumps the node's resourceVersion; `nvidia.com/mig.config` also sets the node's `mig_config` (upstream's field for that label); `nvidia.com/mig.config.state` is `set_mig_state`'s",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "set": {"description": "Label -> value to set.", "type": "object", "propertyNames": {"minLength": 1, "not": {"const": "nvidia.com/mig.config.state"}}, "additionalProperties": {"description": "A label value.", "type": "string"}},
           "remove": {"description": "Label keys to remove (not the mig.config labels).", "type": "array", "uniqueItems": true, "items": {"description": "A label key.", "type": "string", "minLength": 1, "not": {"enum": ["nvidia.com/mig.config", "nvidia.com/mig.config.state"]}}}
         },
         "required": ["node"],
         "anyOf": [{"required": ["set"], "properties": {"set": {"minProperties": 1, "description": "Non-empty when it is the only key that writes (set or remove)."}}}, {"required": ["remove"], "properties": {"remove": {"minItems": 1, "description": "Non-empty when it is the only key that writes (set or remove)."}}}]
       })json",
       {"done"},  //
       parse_set_labels,
       nullptr,
       json_set_labels,
       "a foreign write: GFD or an admin sets/removes node labels"},
      {OpKind::SetMigState,
       "set_mig_state",
       R"json({
         "description": "a foreign write (mig-manager, an admin): the node's `mig.config.state`, and the write it answers when given; bumps the node's resourceVersion",
         "properties": {
           "node": {"$ref": "#/$defs/node_ref"},
           "state": {"description": "The state word.", "enum": ["pending", "success", "failed"]},
           "generation": {"description": "The resourceVersion of the write the state answers (omitted: unchanged).", "type": "integer", "minimum": 0, "maximum": 1000000000}
         },
         "required": ["node", "state"]
       })json",
       {"done"},  //
       parse_set_mig_state,
       nullptr,
       json_set_mig_state,
       "a foreign write: mig-manager or an admin sets mig.config.state"},
      {OpKind::WriteSharedMap,
       "write_shared_map",
       R"json({
         "description": "a foreign write (the GPU operator): puts / deletes entries of the shared map, or replaces it, and bumps the map's version. An entry it puts belongs to no claim of the backend's, so `no-orphaned-geometry` fires at that very step (its third clause: every map entry belongs to a live or releasing claim), unless the scenario leaves that invariant out; the explanation calls it the world's write (§7)",
         "properties": {
           "put": {"$ref": "#/$defs/map_entries"},
           "delete": {"description": "Entry names to delete.", "type": "array", "uniqueItems": true, "items": {"description": "An entry name.", "type": "string", "minLength": 1}},
           "replace": {"description": "Drop every entry first, so the map becomes exactly `put` (default false).", "type": "boolean", "default": false}
         },
         "anyOf": [{"required": ["put"], "properties": {"put": {"minProperties": 1, "description": "Something to write: a non-empty put or delete, or replace true."}}}, {"required": ["delete"], "properties": {"delete": {"minItems": 1, "description": "Something to write: a non-empty put or delete, or replace true."}}}, {"required": ["replace"], "properties": {"replace": {"const": true, "description": "Something to write: a non-empty put or delete, or replace true."}}}]
       })json",
       {"done"},  //
       parse_write_map,
       nullptr,
       json_write_map,
       "a foreign write: the GPU operator puts/deletes shared-map entries"},
      {OpKind::SetPointer,
       "set_pointer",
       R"json({
         "description": "a foreign write (the GPU operator, an admin): the ClusterPolicy's mig-parted config pointer; bumps the pointer's version",
         "properties": {
           "pointer": {"description": "The config map name.", "type": "string", "minLength": 1}
         },
         "required": ["pointer"]
       })json",
       {"done"},  //
       parse_set_pointer,
       nullptr,
       json_set_pointer,
       "a foreign write: the GPU operator or an admin sets the ClusterPolicy pointer"},
  };
}

}  // namespace allocsim::harness

namespace allocsim::harness {
namespace {

/// A version of `field` made by this actor's foreign write (object_history.h); `value` outlives the execution.
void note_foreign(ScriptRunner& run, Field field, const Op& op, std::string_view name, std::string_view value,
                  bool changed) {
  ObjectHistories& h = run.world().histories;
  if (!h.enabled) return;
  const auto node = run.world().compiled().node_index.find(op.node);
  if (field == Field::Config && !node) return;
  h.foreign(field, node.value_or(0), static_cast<int>(run.ctx().self()), name, value, changed);
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ",") + w;
  return out;
}

// -- set_labels --------------------------------------------------------------------------------------------

std::string detail_set_labels(const Op& op) {
  std::vector<std::string> set;
  for (const auto& [k, v] : op.set_labels) set.push_back(k + "=" + v);
  return fmt::format("node={} set={} remove={}", op.node, joined(set), joined(op.remove_labels));
}

const char* run_set_labels(ScriptRunner& run, const Op& op) {
  run.call("set_labels", detail_set_labels(op));
  backend::LockGuard lock(run.caller());
  backend::NodeFixture* n = &run.backend().footprinted().node_for_write(run.caller(), op.node);
  backend::Labels& labels = n->labels.edit();
  for (const auto& [key, value] : op.set_labels) {
    backend::put_in(labels, key, value);
    // Upstream keeps nvidia.com/mig.config as a field of its own (what reserve labels and mig-manager applies);
    // a real write of that label changes exactly that, so the field follows the label.
    if (key == kMigConfigLabel) {
      note_foreign(run, Field::Config, op, "set_labels", value, n->mig_config != value);
      n->mig_config = value;
    }
  }
  for (const std::string& key : op.remove_labels) backend::erase_in(labels, key);
  n->resource_version += 1;
  run.world().audit_base = run.backend().state();  // explained by this write, not by the log
  return "done";
}

// -- set_mig_state -----------------------------------------------------------------------------------------

std::string detail_set_mig_state(const Op& op) {
  return op.mig_state_generation
             ? fmt::format("node={} state={} generation={}", op.node, op.mig_state, *op.mig_state_generation)
             : fmt::format("node={} state={}", op.node, op.mig_state);
}

const char* run_set_mig_state(ScriptRunner& run, const Op& op) {
  run.call("set_mig_state", detail_set_mig_state(op));
  backend::LockGuard lock(run.caller());
  backend::NodeFixture* n = &run.backend().footprinted().node_for_write(run.caller(), op.node);
  n->mig_state = op.mig_state;
  if (op.mig_state_generation) n->mig_state_generation = *op.mig_state_generation;
  // GFD's copy of the label, when the node's labels carry one, says the same.
  if (backend::find_in(n->labels.get(), kMigStateLabel) != nullptr)
    *backend::find_in(n->labels.edit(), kMigStateLabel) = op.mig_state;
  n->resource_version += 1;
  run.world().audit_base = run.backend().state();  // explained by this write, not by the log
  return "done";
}

// -- write_shared_map --------------------------------------------------------------------------------------

std::string detail_write_map(const Op& op) {
  std::vector<std::string> put;
  for (const auto& [entry, members] : op.map_put) put.push_back(entry);
  return fmt::format("put={} delete={} replace={}", joined(put), joined(op.map_delete), op.map_replace);
}

const char* run_write_map(ScriptRunner& run, const Op& op) {
  run.call("write_shared_map", detail_write_map(op));
  backend::LockGuard lock(run.caller());
  backend::FootprintedState::SharedMapFields map = run.backend().footprinted().shared_map_for_write(run.caller());
  note_foreign(run, Field::Map, op, "write_shared_map", "(rewritten)", true);
  if (op.map_replace) map.entries.clear();
  for (const std::string& entry : op.map_delete) backend::erase_in(map.entries, entry);
  for (const auto& [entry, members] : op.map_put) backend::put_in(map.entries, entry, members);
  map.version += 1;
  run.world().audit_base = run.backend().state();  // explained by this write, not by the log
  return "done";
}

// -- set_pointer -------------------------------------------------------------------------------------------

std::string detail_set_pointer(const Op& op) { return "pointer=" + op.pointer_value; }

const char* run_set_pointer(ScriptRunner& run, const Op& op) {
  run.call("set_pointer", detail_set_pointer(op));
  backend::LockGuard lock(run.caller());
  backend::FootprintedState::PointerFields pointer = run.backend().footprinted().pointer_for_write(run.caller());
  note_foreign(run, Field::Pointer, op, "set_pointer", op.pointer_value, pointer.pointer != op.pointer_value);
  pointer.pointer = op.pointer_value;
  pointer.version += 1;
  run.world().audit_base = run.backend().state();  // explained by this write, not by the log
  return "done";
}

}  // namespace

std::vector<OpBehaviour> foreign_op_behaviour() {
  return {
      {OpKind::SetLabels, detail_set_labels, run_set_labels},
      {OpKind::SetMigState, detail_set_mig_state, run_set_mig_state},
      {OpKind::WriteSharedMap, detail_write_map, run_write_map},
      {OpKind::SetPointer, detail_set_pointer, run_set_pointer},
  };
}

}  // namespace allocsim::harness

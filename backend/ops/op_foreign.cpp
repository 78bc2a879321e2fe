// Foreign writes (docs/DESIGN.md §4, "Foreign writes"): ops an actor runs as another controller of the cluster (GPU
// Feature Discovery relabelling a node, an admin or mig-manager writing the MIG labels, the GPU operator rewriting
// the shared mig-parted map or the ClusterPolicy pointer). None is an upstream call: upstream's API has no such
// writer, so they live here, in the harness, and change only what a real cluster's API server would let that
// controller change. Their syntax is backend/scenario/op_syntax_foreign.cpp.
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

#include <fmt/format.h>

#include "backend/ops/script_runner.h"
#include "backend/scenario/op_syntax.h"

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

#include "backend/world/compiled_scenario.h"

#include <fmt/format.h>

#include <utility>

#include "backend/scenario/scenario_state.h"
#include "backend/world/admission_faults.h"
#include "backend/world/object_ids.h"

namespace allocsim::harness {

std::unique_ptr<CompiledScenario> compile_prototype(const Scenario& sc, const std::vector<std::string>& extra_mutants) {
  backend::BackendOptions opt;
  opt.authority = sc.authority;
  opt.mig_apply_seconds = sc.mig_apply_seconds;
  for (const ActorSpec& a : sc.actors)
    for (const Op& op : a.script)
      opt.release_read_hook |= op.kind == OpKind::PartialReads && partial_reads_covers(op, "release");
  std::vector<std::string> names = sc.mutants;
  names.insert(names.end(), extra_mutants.begin(), extra_mutants.end());
  for (const std::string& m : names) {
    auto id = backend::mutant_by_name(m);
    if (!id) throw ScenarioError(sc.path, "/backend/mutants", fmt::format("unknown mutant \"{}\"", m));
    opt.mutants.add(*id);
  }
  std::vector<backend::NodeFixture> nodes;
  for (const NodeSpec& n : sc.nodes) {
    backend::NodeFixture f;
    f.name = n.name;
    f.product = n.product;
    f.gpu_count = n.gpu_count;
    f.memory_gib = n.memory_gib;
    f.labels = n.labels;
    f.workloads = n.workloads;
    f.mig_config = n.mig_config;
    nodes.push_back(std::move(f));
  }
  auto c = std::make_unique<CompiledScenario>(&sc, backend::MemoryBackend(std::move(nodes), opt));
  apply_start_state(sc, c->prototype.mutable_state());  // scenario_state.h: harness-only, after upstream's init
  c->node_index = NodeIndex(c->prototype.state().nodes);
  c->prototype_rest = c->prototype.state();
  c->prototype_rest.nodes.clear();
  c->life_ids.resize(sc.actors.size());
  c->gate_ids.resize(sc.actors.size());
  c->gates_held.resize(sc.actors.size());
  for (size_t b = 0; b < sc.actors.size(); ++b) {
    if (!sc.actors[b].behind_of) continue;
    c->gate_ids[b] = object_id(backend::Obj::Lock, "gate:" + sc.actors[b].name);
    for (size_t i = 0; i < sc.actors.size(); ++i)
      if (sc.actors[i].name == sc.actors[b].behind_of->actor) c->gates_held[i].push_back(b);
  }
  for (const NodeSpec& n : sc.nodes)
    for (const auto& [key, value] : n.labels) c->operand_labels |= is_operand_label(key);
  for (const ActorSpec& a : sc.actors)
    for (const Op& op : a.script) {
      // Only faults of the inventory's or observe's reads: partial_reads with listings ["release"] is the
      // port's read hook (BackendOptions::release_read_hook above), not a harness-faulted read.
      c->read_fault_ops |=
          op.kind == OpKind::StaleReads || (op.kind == OpKind::PartialReads && partial_reads_covers(op, "inventory"));
      c->admission_fault_ops |= op.kind == OpKind::RejectBinds;
      if (op.kind == OpKind::BindWorkload) c->pod_resources |= op.bind_claim || !op.resource.empty();
      if (op.kind == OpKind::BindWorkload && op.bind_claim && *op.bind_claim != a.name)
        for (size_t i = 0; i < sc.actors.size(); ++i)
          if (sc.actors[i].name == *op.bind_claim) {
            c->claims_named.resize(sc.actors.size());
            c->claims_named[i] = 1;
          }
      if (op.kind == OpKind::SetLabels)
        for (const auto& [key, value] : op.set_labels) c->operand_labels |= is_operand_label(key);
      if (op.kind == OpKind::Recover && op.lease_seconds)
        for (size_t i = 0; i < sc.actors.size(); ++i)
          if (sc.actors[i].name == op.flow) {
            c->leased.resize(sc.actors.size());
            c->leased[i] = 1;
          }
      if (op.kind != OpKind::Recover || !op.wait_for_end) continue;  // only a waiting recover needs the flow's end
      for (size_t i = 0; i < sc.actors.size(); ++i)
        if (sc.actors[i].name == op.flow && !c->life_ids[i])
          c->life_ids[i] = object_id(backend::Obj::Lock, "life:" + op.flow);
    }
  return c;
}

const ActorSymmetry& CompiledScenario::symmetry() const {
  std::call_once(symmetry_once_, [&] { symmetry_ = find_interchangeable(*scenario); });
  return symmetry_;
}

}  // namespace allocsim::harness

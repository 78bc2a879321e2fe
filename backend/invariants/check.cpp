// check_invariants (check.h): the full check, and the incremental one (dirty.h) that gives the same first
// violation. Why it does: every check before this one held (an execution ends at its first violation) and the
// first check of an execution is full. So a row whose reads (InvariantSpec::reads_kinds) no step since wrote
// still holds, and a per-node row can break only on a node whose inputs moved; visiting those nodes in
// ascending order finds the violation the full check, visiting every node in that order, finds first.
#include <algorithm>

#include "backend/invariants/audit.h"
#include "backend/invariants/capacity.h"
#include "backend/invariants/check.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/invariant_table.h"
#include "backend/world/dirty.h"

namespace allocsim::harness {

using sim::Violation;

namespace {

void set_node(const NodeIndex& index, NodeBits& bits, std::string_view name) {
  // A name outside the scenario names no node an invariant visits: nothing to mark.
  if (const auto i = index.find(name)) bits.set(*i);
}

/// Every node a claim references: its nodes, its devices' nodes, its label writes and its geometry. Those are
/// the nodes whose per-node verdicts read that claim (covers, grants_on, label_versions, plan.geometry).
void claim_nodes(const WorldState& w, NodeBits& out) {
  const NodeIndex& index = w.compiled().node_index;
  out.clear();
  for (const backend::Claim& cl : w.backend().state().claims) {
    for (const auto& n : cl.nodes) set_node(index, out, n);
    for (const auto& [workload, devices] : cl.plan.assignments)
      for (const auto& d : devices)
        if (d.node) set_node(index, out, *d.node);
    for (const auto& [node, version] : cl.label_versions) set_node(index, out, node);
    for (const auto& [node, layout] : cl.plan.geometry) set_node(index, out, node);
  }
}

bool on_entry(const backend::NodeFixture& n) { return n.mig_config.starts_with(backend::kEntryPrefix); }

/// The node sets a node's own fields decide (InvariantMemo::entry_nodes, owned_nodes), over every node.
void node_sets(const backend::BackendState& s, NodeBits& entry, NodeBits& owned) {
  entry.clear();
  owned.clear();
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    if (on_entry(s.nodes[i])) entry.set(i);
    if (s.nodes[i].owner) owned.set(i);
  }
}

/// The affected nodes of an incremental check into memo.some (ascending): the nodes written; when claims
/// moved, the nodes a claim references now or did at the last check; when claims or the map moved, the nodes
/// on allocsim geometry (no-orphaned-geometry and mig-layout-matches-grant join a node to its claim and map
/// entry by the entry's name, not by node). Then brings the memo's node sets up to date.
void affected_nodes(WorldState& w) {
  InvariantMemo& m = w.memo;
  const uint32_t kinds = m.dirty.kinds();
  m.scratch.clear();
  m.scratch.merge(m.dirty.nodes());
  if (kinds & (kReadsClaims | kReadsMap)) m.scratch.merge(m.entry_nodes);
  if (kinds & kReadsClaims) {
    m.scratch.merge(m.claim_nodes);
    claim_nodes(w, m.claim_nodes);
    m.scratch.merge(m.claim_nodes);
  }
  m.scratch.list(m.some);
  const auto& nodes = w.backend().state().nodes;
  for (const uint32_t i : m.some)
    if (m.dirty.nodes().test(i)) {
      m.entry_nodes.assign(i, on_entry(nodes[i]));
      m.owned_nodes.assign(i, nodes[i].owner.has_value());
    }
}

/// After a full check in incremental mode: the memo as the next incremental check expects it.
void prime(WorldState& w) {
  InvariantMemo& m = w.memo;
  claim_nodes(w, m.claim_nodes);
  node_sets(w.backend().state(), m.entry_nodes, m.owned_nodes);
  m.replay.valid = false;  // rebuilt by its first incremental check
  m.primed = true;
}

std::optional<Violation> check_full(WorldState& world, sim::ActorId actor, bool quiescent) {
  const auto& table = invariant_table();
  const CheckContext ctx{world, actor, quiescent};
  for (size_t i : world.compiled().invariants) {
    const InvariantSpec& spec = table[i];
    if (spec.check == nullptr || (spec.quiescent_only && !quiescent)) continue;
    if (auto v = spec.check(ctx)) return v;
  }
  return std::nullopt;
}

/// At quiescence nothing was written since the last step's check (it cleared the dirty set), so only the
/// quiescent-only rows, the kReadsStep rows and what a row reads at quiescence
/// alone (kReadsQuiescence) can break.
std::optional<Violation> check_incremental(WorldState& world, sim::ActorId actor, bool quiescent) {
  const auto& table = invariant_table();
  InvariantMemo& m = world.memo;
  if (world.backend().state().audit.size() != world.audit_seen) m.dirty.add_kinds(kReadsAudit);
  affected_nodes(world);
  const CheckContext every{world, actor, quiescent};
  const CheckContext some{world, actor, quiescent, &m.some, &m};
  // The quiescent-only rows judge every node, with the memo's node sets (quiescent-clean: owned_nodes).
  const CheckContext whole{world, actor, quiescent, nullptr, &m};
  const bool told = actor < world.actors().size() && world.actors()[actor].told.any();
  const uint32_t kinds =
      m.dirty.kinds() | kReadsStep | (quiescent ? uint32_t{kReadsQuiescence} : 0u) | (told ? uint32_t{kReadsTold} : 0u);
  if (!quiescent) {  // the loop below without its quiescent-only rows, over compile()'s dense copy of them
    for (const CompiledScenario::StepRow& row : world.compiled().step_rows)
      if ((row.reads_kinds & kinds) != 0)
        if (auto v = row.check(row.per_node ? some : every)) return v;
    return std::nullopt;
  }
  for (size_t i : world.compiled().invariants) {
    const InvariantSpec& spec = table[i];
    if (spec.check == nullptr) continue;
    if (spec.quiescent_only) {
      if (!quiescent) continue;
      if (auto v = spec.check(whole)) return v;
      continue;
    }
    if ((spec.reads_kinds & kinds) == 0) continue;
    const InvariantSpec::Check check = spec.incremental ? spec.incremental : spec.check;
    if (auto v = check(spec.per_node ? some : every)) return v;
  }
  return std::nullopt;
}

/// An execution's first check, when the start state passed compile()'s checks: the memo as of the start
/// state, so that the check is incremental over everything written since the world was built.
void prime_from_start(WorldState& w) {
  InvariantMemo& m = w.memo;
  const StartMemo& start = w.compiled().start_memo;
  m.claim_nodes = start.claim_nodes;
  m.entry_nodes = start.entry_nodes;
  m.owned_nodes = start.owned_nodes;
  prime_audit_replay(m.replay, w.compiled().prototype.state());
  m.primed = true;
}

}  // namespace

StartMemo start_memo(const CompiledScenario& compiled) {
  WorldState w(compiled);
  StartMemo out;
  const auto& table = invariant_table();
  const CheckContext ctx{w, sim::kNoActor, false};
  out.holds = true;
  for (size_t i : compiled.invariants) {
    const InvariantSpec& spec = table[i];
    if (spec.check != nullptr && !spec.quiescent_only && spec.check(ctx)) out.holds = false;
  }
  const size_t n = w.backend().state().nodes.size();
  out.claim_nodes.resize(n);
  out.entry_nodes.resize(n);
  out.owned_nodes.resize(n);
  claim_nodes(w, out.claim_nodes);
  node_sets(w.backend().state(), out.entry_nodes, out.owned_nodes);
  return out;
}

std::optional<Violation> check_invariants(WorldState& world, sim::ActorId actor, bool quiescent) {
  InvariantMemo& m = world.memo;
  const auto& s = world.backend().state();
  const bool incremental_mode = check_mode() == CheckMode::Incremental;
  // A node count other than the memo's (a test that built its state by hand) or a write no index placed:
  // nothing to be incremental about.
  if (m.all.size() != s.nodes.size()) m.reset(s.nodes.size());
  if (incremental_mode && !m.primed && world.compiled().start_memo.holds &&
      world.compiled().prototype.state().nodes.size() == s.nodes.size())
    prime_from_start(world);
  const bool incremental = incremental_mode && m.primed && !m.dirty.unresolved();
  auto v = incremental ? check_incremental(world, actor, quiescent) : check_full(world, actor, quiescent);
  if (v) return v;
  record_geometry_writes(world);  // reads the audit from audit_seen: before it advances
  record_bound_workloads(world, incremental ? &m.some : nullptr);
  world.audit_seen = s.audit.size();
  // Owner epochs move only on node writes, and every written node is in memo.some.
  for (const uint32_t i : incremental ? m.some : m.all) world.shadow[i].owner_epoch = s.nodes[i].owner_epoch;
  if (incremental_mode && !incremental) prime(world);
  m.dirty.clear();
  return std::nullopt;
}

}  // namespace allocsim::harness

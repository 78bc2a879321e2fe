// What a family of invariants (docs/DESIGN.md §5) is written against: the row type of the invariant table
// (InvariantSpec), the context a check reads (CheckContext), and the helpers several families share. Each family
// file (ownership.h, geometry.h, capacity.h, client.h, audit.h, histories.h) holds its rows and checks; the table
// (invariant_table.h) joins them, and the driver (check.h) runs them.
//
// Contract of every check (the family files: ownership.h, geometry.h, capacity.h, client.h, audit.h,
// histories.h): it returns the first violation it finds (nullopt when it holds), with a message naming the
// objects involved and a `state` rendering of the fields that broke it. Checks read only; they are run in
// invariant_table() order, after every step and again at quiescence. Where a property allows, it is checked
// per object (per node, per claim) so that footprints stay narrow (DPOR).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "backend/invariants/state_view.h"
#include "backend/world/compiled_scenario.h"
#include "backend/world/world_state.h"
#include "sim/world.h"

namespace allocsim::harness {

/// One invariant: its name (the public vocabulary), the upstream case it guards, what holds, and its
/// check. Engine-level findings (no-deadlock, steps-bounded, actor-exception) have no check: sim/ reports
/// them. `reads` are the fields its check reads, as its state block (Violation::state) names them; every
/// violation it reports shows each of them (tests/backend/harness_state_blocks.cpp).
struct InvariantSpec {
  using Check = InvariantCheck;
  const char* name;
  /// Its place in the check order, 0 first (invariant_table.h): part of every verdict, since an execution ends at the
  /// first violation found. A new row takes the next free number, so that no older invariant's first violation
  /// changes; the table refuses numbers that repeat or leave a gap.
  int order;
  const char* alloc_case;          // "ALLOC-004"; "-" when it guards no single case
  const char* description;         // one line, for `allocsim list invariants`
  Check check;                     // nullptr: an engine-level finding
  bool quiescent_only;             // checked only at quiescence
  std::vector<const char*> reads;  // substrings of its state block, e.g. "owner="
  // -- incremental checking (dirty.h; docs/DESIGN.md §5, "Incremental checking") --
  /// The kinds of state the check reads (ReadKind bits): after a step that wrote none of them the row is
  /// skipped (it held before and reads nothing that moved). kReadsStep: it runs after every step; kReadsTold:
  /// after every step that told the stepping actor something (dirty.h).
  uint32_t reads_kinds;
  /// A per-node property: node n's verdict reads node n, the claims that reference n (cl.nodes, device
  /// nodes, label versions, geometry) or carry the entry n is configured with, and the map; the check
  /// iterates CheckContext::nodes(), so an incremental check visits only the nodes a step affected.
  bool per_node;
  /// Replaces `check` in an incremental check (audit-explains-state keeps a replay across steps); nullptr:
  /// `check` itself.
  Check incremental;
  /// What the code checks, in full: its cell of docs/DESIGN.md §5's table (Markdown), which `tools/dev.sh schema`
  /// writes from the rows (backend/system/design_tables.h).
  const char* doc;
};

/// Context of one check: the actor that just took a step (kNoActor at quiescence), and for a per-node row
/// (InvariantSpec::per_node) the nodes it must visit: every node, or in an incremental check those the
/// steps since the last check affected (ascending, so the first violation found is the full check's).
struct CheckContext {
  CheckContext(const WorldState& w, sim::ActorId a, bool q, const std::vector<uint32_t>* some = nullptr,
               InvariantMemo* m = nullptr)
      : world(w), actor(a), quiescent(q), subset(some), memo(m) {}
  const WorldState& world;
  sim::ActorId actor;
  bool quiescent;
  const std::vector<uint32_t>* subset;  // nullptr: every node
  /// The world's memo, in an incremental check only: what InvariantSpec::incremental checks keep across steps.
  InvariantMemo* memo;
  /// The node indices a per-node check visits, ascending.
  const std::vector<uint32_t>& nodes() const { return subset ? *subset : world.memo.all; }
  /// The world's memo for its scratch buffers (InvariantMemo: granted, uuids, ...), in every mode: a check reads
  /// the world only, but reuses these between calls so that it allocates nothing.
  InvariantMemo& scratch() const { return world.memo; }
};

/// The node named `name` in the world's state, or nullptr, without scanning the nodes: the compiled scenario's
/// NodeIndex (a binary search over the names, sorted once per scenario), confirmed against the state's node at
/// that index. A state whose nodes are not the scenario's (built by hand in a test) falls back to
/// BackendState::node. Node names are unique in a backend's state (its constructor merges repeats).
const backend::NodeFixture* node_named(const WorldState& w, std::string_view name);

/// The observation the stepping actor was told in this step and the claim it names; nullopt when no actor
/// stepped, nothing was told, or the claim is gone (what the observation invariants judge).
struct ToldObservation {
  const backend::ClaimObservation& obs;
  const backend::Claim& claim;
};
std::optional<ToldObservation> told_observation(const CheckContext& c);

/// Whether claim `c` covers node `node` (names it among its nodes), live or releasing.
bool covers(const backend::Claim& c, std::string_view node);

}  // namespace allocsim::harness

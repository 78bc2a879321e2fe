// Checking the invariants of docs/DESIGN.md §5: what a check reads (CheckContext), the helpers the families
// share, and the driver that runs the chosen rows of the invariant table (catalog.h) after a step.
//
// Contract of every check (the family files: ownership.h, geometry.h, capacity.h, client.h, audit.h): it
// returns the first violation it finds (nullopt when it holds), with a message naming the objects involved
// and a `state` rendering of the fields that broke it. Checks read only; they are run in invariant_catalog()
// order, after every step and again at quiescence. Where a property allows, it is checked per object (per
// node, per claim) so that footprints stay narrow (DPOR).
#pragma once

#include <optional>

#include "backend/invariants/state_view.h"
#include "backend/world/world_state.h"
#include "sim/world.h"

namespace allocsim::harness {

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

/// Runs the enabled invariants in catalog order (invariant_catalog(), catalog.h); the quiescent-only ones
/// only at quiescence. Then advances the
/// world's shadow state (audit position, owner epochs) that per-step invariants compare against.
/// In incremental mode (dirty.h) it runs only what the writes since the last check (world.memo.dirty) can
/// have broken, and returns the violation the full check would: the same invariant, message and state.
std::optional<sim::Violation> check_invariants(WorldState& world, sim::ActorId actor, bool quiescent);

/// Runs the per-step invariants of `compiled` on a fresh world of it (no actor stepped) and records whether
/// they hold, with the node sets the incremental checks start from (dirty.h StartMemo). compile() calls it.
StartMemo start_memo(const CompiledScenario& compiled);

}  // namespace allocsim::harness

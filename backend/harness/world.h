// BackendWorld: the memory backend as a simulated world for sim/ (DESIGN.md §1). One instance per
// execution, built from a compiled scenario: a copy of the prototype backend, the simulated backend lock,
// and one scripted actor per scenario actor.
//
// Contract:
// - Every op begins with a scheduling point (PointKind::Call) named after the call it makes, except ops
//   the actor already knows it must skip (no claim, no inventory, no plan): they record `skipped` without
//   calling anything. `reserve` with `requests` makes three calls (inventory, plan, reserve); `await`
//   makes one call per poll.
// - An actor may hold several claims (one per successful reserve). observe, await, mark_ready and
//   reconcile use the newest; release releases the oldest; with none held, release repeats the last
//   released claim (a duplicate release, CONTRACT.md §1: released, "already released"); with none ever
//   released it is skipped.
// - Each backend barrier is a scheduling point (PointKind::Barrier); the backend's lock is a SimMutex.
// - Ids per actor: "<kind>-<actor>-<n>" from the actor's own counter (DESIGN.md §3).
// - What an actor is told (a plan, an observation) is remembered until the end of the step, when
//   the invariants look at it (DESIGN.md §2).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/harness/scenario.h"
#include "backend/memory_backend.h"
#include "sim/world.h"

namespace allocsim::harness {

/// A scenario compiled once per run: the prototype backend every execution copies, and the enabled
/// invariants as catalog indices (in catalog order).
struct CompiledScenario {
  const Scenario* scenario = nullptr;
  backend::MemoryBackend prototype;
  std::vector<size_t> invariants;  // indices into invariant_catalog(), ascending
  bool checks(std::string_view invariant) const;
};

/// Builds the prototype. `extra_mutants` (from the command line) are added to the scenario's.
/// Throws ScenarioError for an unknown mutant name.
std::unique_ptr<CompiledScenario> compile(const Scenario& scenario, const std::vector<std::string>& extra_mutants);

/// The footprint id of backend object (`what`, `name`): XXH3-64 of the kind byte and the name, so ids
/// are stable across runs and machines (no addresses).
uint64_t object_id(backend::Obj what, std::string_view name);

/// The object every write to a node, claim, the shared map or the pointer also writes (DPOR's visibility
/// condition: invariants read several of them after every step; see ActorCaller::touch in world.cpp).
uint64_t invariant_visible_id();

/// The footprint id of actor `actor`'s last plan, which `plan_from` reserves of other actors read.
uint64_t actor_plan_id(std::string_view actor);

/// What an actor was told during the current step, for invariants on received values.
struct Told {
  // plan results: feasible?, and whether the inventory they came from was taken while pod reads failed
  std::optional<bool> plan_feasible;
  bool plan_from_failed_pods = false;
  // observation results
  std::optional<backend::ClaimObservation> observation;
};

/// Per-actor harness state.
struct ActorState {
  std::string name;
  long id_counter = 0;
  int reserves = 0;  // operation ids <actor>:op<k>
  int releases = 0;
  std::optional<backend::InventorySnapshot> inventory;  // the last known inventory
  bool inventory_with_failed_pods = false;               // pod reads failed when it was taken
  std::optional<backend::PlanOutcome> plan;              // the last plan
  bool plan_with_failed_pods = false;
  std::optional<std::string> claim_id;  // the newest claim still held (observe, await, mark_ready, reconcile)
  std::string claim_generation;
  // Claims held, oldest first, as (claim id, generation). `release` releases the oldest (upstream ALLOC-022
  // releases a flow's first claim while its second stays observable); once none is held, a further
  // `release` repeats the last released one, as upstream's duplicate release does ("already released").
  std::vector<std::pair<std::string, std::string>> held;
  std::optional<std::pair<std::string, std::string>> last_released;
  int claims_held = 0;    // claimed minus released
  int claims_made = 0;
  std::string op_epoch;   // generation of the reserve/release running now (rollback-keeps-newer-owner)
  std::vector<const char*> outcomes;  // per script op: the outcome it ended in (nullptr = not reached)
  Told told;
};

class BackendWorld final : public sim::World {
 public:
  explicit BackendWorld(const CompiledScenario& compiled);

  size_t actor_count() const override { return actors_.size(); }
  std::string_view actor_name(sim::ActorId id) const override { return actors_[id].name; }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override;
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override;
  std::optional<sim::Violation> check_quiescent() override;

  const backend::MemoryBackend& backend() const { return backend_; }
  backend::MemoryBackend& mutable_backend() { return backend_; }
  const std::vector<ActorState>& actors() const { return actors_; }
  std::vector<ActorState>& mutable_actors() { return actors_; }
  /// Fire counts per barrier, indexed like barrier_catalog().
  const std::vector<uint32_t>& barrier_hits() const { return barrier_hits_; }
  const CompiledScenario& compiled() const { return c_; }

  // -- used by the invariants (invariants.cpp) --
  struct NodeShadow {
    std::optional<std::string> owner_epoch;
  };
  /// Node owner epochs as of the previous check, and the audit length then.
  std::vector<NodeShadow> shadow;
  size_t audit_seen = 0;
  /// Reserve op ids whose expected generation was stale when called (stale-plan-writes-nothing).
  std::vector<std::string> stale_reserves;
  /// The scenario's node configs at the start (no-orphaned-geometry's "recorded config").
  const std::vector<std::string>& original_configs() const { return original_configs_; }

 private:
  friend class ActorCaller;
  const CompiledScenario& c_;
  backend::MemoryBackend backend_;
  sim::SimMutex lock_;
  std::vector<ActorState> actors_;
  std::vector<uint32_t> barrier_hits_;
  std::vector<std::string> original_configs_;
};

}  // namespace allocsim::harness

// BackendWorld: the memory backend as a simulated world for sim/ (docs/DESIGN.md §1), the adapter over the
// world's state (backend/world/world_state.h). One instance per execution, built from a compiled scenario: a
// copy of the prototype backend, the simulated backend lock, and one scripted actor per scenario actor.
//
// Contract:
// - Every op begins with a scheduling point (PointKind::Call) named after the call it makes, except ops
//   the actor already knows it must skip (no claim, no inventory, no plan): they record `skipped` without
//   calling anything. `reserve` with `requests` makes three calls (inventory, plan, reserve); `await`
//   makes one call per poll.
// - An actor may hold several claims (one per successful reserve). observe, await, mark_ready and
//   reconcile use the newest; release releases the oldest; with none held, release repeats the last
//   released claim (a duplicate release, backend/CONTRACT.md §1: released, "already released"); with none ever
//   released it is skipped.
// - Each backend barrier is a scheduling point (PointKind::Barrier); the backend's lock is a SimMutex.
// - Ids per actor: "<kind>-<actor>-<n>" from the actor's own counter (docs/DESIGN.md §3).
// - What an actor is told (a plan, an observation) is remembered until the end of the step, when
//   the invariants look at it (docs/DESIGN.md §2).
// - Faults (FaultSpec, scenario.h) are drawn right after the scheduling point they belong to, at the
//   start of the step: at a barrier, crash (sim::ActorCrash: the actor's stack unwinds, so a backend lock
//   it held is released by its LockGuard, as a real API server is not left locked by a dead client; the op
//   records `crashed`, later ops never run, and the actor returns, reported crashed, from the op's frame),
//   raise (InjectedError through the backend call: the op records `error`, the actor keeps what it knew
//   before the call and goes on) or drop_response (the call completes; the op records `unknown` and the
//   actor learns nothing from it). At a Call point, an
//   environment fault (fail_reads kind / fail_geometry node) applied through the backend's test hooks.
// - `recover` (ALLOC-033) waits for the recovered actor to end through a per-actor "life" SimMutex the
//   actor holds from its prologue until it finishes or crashes (RAII), so the wait is an ordinary LockWait.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/world/op_results.h"
#include "backend/world/world_state.h"
#include "sim/world.h"

namespace allocsim::harness {

/// The sim::World of one execution: the world's state (WorldState) with the actors' scripts run in their
/// fibers and the chosen invariants checked after every step and at quiescence.
class BackendWorld final : public sim::World, public WorldState {
 public:
  explicit BackendWorld(const CompiledScenario& compiled) : WorldState(compiled) {}
  /// The world object itself is recycled per thread (one spare block): explore() builds and destroys one
  /// per execution.
  static void* operator new(size_t bytes);
  static void operator delete(void* p, size_t bytes) noexcept;

  size_t actor_count() const override { return actors().size(); }
  std::string_view actor_name(sim::ActorId id) const override { return actors()[id].name; }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override;
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override;
  /// check_step() without the invariant checks: what a step needs done whatever is checked (the read faults'
  /// views, what the actor was told). For a bench that measures the checks' share of a step.
  void end_step_unchecked(sim::ActorId actor);
  std::optional<sim::Violation> check_quiescent() override;
  /// The canonical state (backend/world/state_digest.h).
  bool canonical_state(sim::CanonicalState& out) override;
  /// The scenario's interchangeable actors (backend/world/actor_symmetry.h); none for op-level executions.
  std::vector<std::vector<sim::ActorId>> interchangeable_actors() const override;
  /// The symmetric state (backend/world/state_digest.h).
  bool symmetric_state(sim::SymmetricState& out) override;
  bool begin_symmetric_states() override;
  const sim::OrderSpec* order() const override {
    return compiled().scenario->order.empty() || compiled().atomic_ops ? nullptr : &compiled().scenario->order;
  }
};

/// Compiles `scenario` for exploration: its prototype (compile_prototype, backend/world/compiled_scenario.h),
/// then the invariants it checks (all when it names none; set_invariants) and the start state's verdict
/// (start_memo); when ops-atomic is among them, the scenario's op-level results (op_level_results(),
/// backend/system/op_level.h, which computes them once per scenario, mutants and bound). `extra_mutants` (from the
/// command line) are added to the scenario's. Throws ScenarioError for an unknown mutant name.
std::unique_ptr<CompiledScenario> compile(const Scenario& scenario, const std::vector<std::string>& extra_mutants);

/// Whether compile() would check ops-atomic for `scenario` (so needs its op-level results).
bool checks_ops_atomic(const Scenario& scenario);

}  // namespace allocsim::harness

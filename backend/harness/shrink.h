// The scenario-reducing half of the shrinker: the reductions the campaign shrinker (sim/campaign/shrink.h,
// which documents the passes and the budget) tries through ScenarioSubject (system.h), and the shrinker
// bound to a Scenario for tools and tests.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/harness/scenario.h"
#include "sim/campaign/shrink.h"
#include "sim/engine.h"

namespace allocsim::harness {

using ShrinkOptions = campaign::ShrinkOptions;

/// campaign::ShrinkResult with the reduced Scenario itself.
struct ShrinkResult {
  Scenario scenario;                 // reduced; expect.actors pruned to what remains
  sim::ExecutionResult result;       // its execution along `result.schedule`
  uint64_t runs = 0;                 // candidate executions made
  bool budget_exhausted = false;     // stopped before reaching a fixpoint
  bool out_of_time = false;          // ... because of max_seconds
  bool preemptions_minimal = false;  // the last preemption search completed
};

/// campaign::shrink of `scenario` (through backend_system()). The scenario must carry every mutant (fold
/// --mutant in first). Throws std::invalid_argument when the schedule's execution violates nothing.
ShrinkResult shrink(const Scenario& scenario, std::span<const sim::Choice> schedule, const ShrinkOptions& options);

/// campaign::run_lenient of `scenario` (compiled with no extra mutants).
sim::ExecutionResult run_lenient(const Scenario& scenario, std::span<const sim::Choice> schedule, uint64_t max_steps);

/// `scenario` without actor `index`: its expect.actors entry and its faults.actors entry go too. nullopt
/// when another actor's reserve names it in plan_from (the scenario would not load), when it is the only
/// actor, or when it is the only entry of faults.actors and still has ops (else the faults go with it).
std::optional<Scenario> without_actor(const Scenario& scenario, size_t index);

/// `scenario` without op `op` of actor `actor`, and without every later op of that actor whose `when` names a
/// dropped op (a conditional op never outlives its condition); expect.actors pruned to the ops that remain.
Scenario without_op(const Scenario& scenario, size_t actor, size_t op);

using campaign::schedule_without_actor;

/// Number of ops over all scripts.
size_t op_count(const Scenario& scenario);

}  // namespace allocsim::harness

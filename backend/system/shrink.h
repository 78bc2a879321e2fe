// The shrinker bound to a Scenario, for tools and tests: campaign::shrink and campaign::run_lenient (sim/campaign/
// shrink.h, which documents the passes and the budget) through backend_system() (system.h), whose subjects reduce
// themselves with the reductions of reductions.h.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/system/reductions.h"
#include "sim/campaign/shrink.h"
#include "sim/engine.h"

namespace allocsim::harness {

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
ShrinkResult shrink(const Scenario& scenario, std::span<const sim::Choice> schedule,
                    const campaign::ShrinkOptions& options);

/// campaign::run_lenient of `scenario` (compiled with no extra mutants).
sim::ExecutionResult run_lenient(const Scenario& scenario, std::span<const sim::Choice> schedule, uint64_t max_steps);

}  // namespace allocsim::harness

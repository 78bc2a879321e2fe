#include "backend/system/shrink.h"

#include <utility>

#include "backend/system/system.h"
#include "sim/campaign/trace_replay.h"

namespace allocsim::harness {

ShrinkResult shrink(const Scenario& scenario, std::span<const sim::Choice> schedule,
                    const campaign::ShrinkOptions& options) {
  campaign::ShrinkResult r = campaign::shrink(backend_system(), subject_of(scenario), schedule, options);
  return ShrinkResult{scenario_of(*r.scenario), std::move(r.result), r.runs,
                      r.budget_exhausted,       r.out_of_time,       r.preemptions_minimal};
}

sim::ExecutionResult run_lenient(const Scenario& scenario, std::span<const sim::Choice> schedule, uint64_t max_steps) {
  return campaign::run_lenient(*subject_of(scenario), schedule, max_steps);
}

}  // namespace allocsim::harness

#include "sim/campaign/minimal_trace.h"

#include "sim/campaign/explain.h"
#include "sim/campaign/trace_replay.h"

namespace allocsim::campaign {

MinimalTrace shrink_to_trace(const System& system, const SubjectPtr& full, const sim::ExecutionResult& found,
                             const ShrinkOptions& options, bool explain_race) {
  const uint64_t max_steps = full->max_steps(options.max_steps);
  MinimalTrace out{shrink(system, full, found.schedule, options), {}};
  const ShrinkResult& s = out.shrunk;
  out.trace = make_trace(s.scenario, s.result, state_before_last_step(*s.scenario, s.result, max_steps));
  if (explain_race) out.trace.explanation = explain(*s.scenario, s.result.schedule, max_steps);
  out.trace.shrink = ShrinkInfo{found.steps.size(),
                                full->actor_names().size(),
                                full->op_count(),
                                found.preemptions,
                                s.runs,
                                s.budget_exhausted,
                                s.out_of_time,
                                s.preemptions_minimal};
  return out;
}

}  // namespace allocsim::campaign

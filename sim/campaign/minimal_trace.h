// A violating execution shrunk into its minimal trace, in one place: `run` writes it (trace file, corpus entry),
// `shrink` writes it, a sweep's report page draws it, and the swarm takes a finding's signature, explanation and
// description from it (the finding's written trace is then made again against the file as written). The verdict
// self-check keeps its own path on purpose: it checks each stage of this one separately.
//
// shrink_to_trace(system, full, found, options) runs campaign::shrink (shrink.h) of `full` along `found`'s schedule
// and makes the minimal execution's trace over the shrunk subject: its steps and violation, the state before its
// last step (trace_replay.h), the explanation of its race (explain.h) unless `explain_race` is false, and
// ShrinkInfo: the raw sizes (`found`'s steps and preemptions, `full`'s actors and ops) and the shrinker's counts.
// The step bound is options.max_steps, else `full`'s own (as campaign::shrink takes it). What the trace says of
// where it came from (tool version, scenario path and digest, strategy, seeds, step bound) is the caller's to fill.
//
// REQUIRES: `found` is an execution of `full` that violates an invariant (else campaign::shrink throws
// std::invalid_argument). Deterministic when options.max_seconds is 0.
#pragma once

#include "sim/campaign/shrink.h"
#include "sim/campaign/system.h"
#include "sim/campaign/trace_file.h"
#include "sim/engine.h"

namespace allocsim::campaign {

struct MinimalTrace {
  ShrinkResult shrunk;  // the shrinker's result: the shrunk subject and its execution
  Trace trace;          // that execution's trace (see above)
};

MinimalTrace shrink_to_trace(const System& system, const SubjectPtr& full, const sim::ExecutionResult& found,
                             const ShrinkOptions& options, bool explain_race = true);

}  // namespace allocsim::campaign

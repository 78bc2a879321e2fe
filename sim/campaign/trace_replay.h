// Running a scenario along a given schedule: strictly (replay; a choice that is not possible is a
// divergence) or leniently (the shrinker), and replaying a trace file step by step against the program
// as it is now, reporting the first step where they differ.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/campaign/system.h"
#include "sim/campaign/trace_file.h"
#include "sim/divergence.h"
#include "sim/engine.h"

namespace allocsim::campaign {

/// One execution of `scenario` (compiled with no extra mutants) following `schedule` leniently
/// (sim::LenientReplayStrategy). Throws ScenarioError only for a scenario compile() rejects.
sim::ExecutionResult run_lenient(const Subject& scenario, std::span<const sim::Choice> schedule, uint64_t max_steps);

/// The fields `r`'s violation reported, rendered from the world as it was before r's last step (the
/// execution re-run along r's own schedule, stopped one step short). "" when r has no violation, no
/// state, or no step.
std::string state_before_last_step(const Subject& scenario, const sim::ExecutionResult& r, uint64_t max_steps);

/// The first place where a replay and its reference differ (sim/divergence.h). For a trace: `label` is
/// the trace's label of that step ("flowB owner.read.after #1") or "the end", `expected` what the trace
/// recorded there, `actual` what the program did.
using Divergence = sim::Divergence;

struct StrictReplay {
  sim::ExecutionResult result;
  /// The schedule could not be followed (sim::ReplayStrategy): `step` is the step the diverging choice
  /// belonged to, `label` "choice K", `expected` what the schedule asked for ("the schedule"), `actual`
  /// ReplayStrategy's message, `runnable` the actors that could run there.
  std::optional<Divergence> divergence;
};

/// One execution of `scenario` following `schedule` exactly.
StrictReplay replay_strict(const Subject& scenario, std::span<const sim::Choice> schedule, uint64_t max_steps);

struct TraceReplay {
  sim::ExecutionResult result;           // what the program did (empty when it could not start)
  std::optional<Divergence> divergence;  // nullopt: step for step, the violation and the fingerprint agree
  std::string state_before;              // state_before_last_step() of the result
};

/// Replays `t` against its embedded scenario and compares every step (label, kind, detail), the end of
/// the execution, the violation and the fingerprint with what the trace recorded.
TraceReplay replay_trace(const Trace& t);

/// "flowB owner.read.after #1": a step's label.
std::string step_label(const TraceStep& s);

}  // namespace allocsim::campaign

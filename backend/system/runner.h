// Runs a scenario under a strategy and judges it against its `expect` (docs/DESIGN.md §4). The run itself is
// the campaign layer's (sim/campaign/run.h, through backend_system(), system.h); the judging is here.
//
// Contract: deterministic for a given (scenario, config). The verdict lists every unmet expectation in
// a fixed order: violations (unexpected, or expected but not found), actor outcomes outside what
// `expect.actors` allows, and barriers in `expect.reach` that never fired.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backend/scenario/expect_audit.h"
#include "backend/scenario/scenario.h"
#include "backend/world/world_state.h"
#include "sim/campaign/config.h"
#include "sim/campaign/run.h"

namespace allocsim::harness {

/// The exploration config (sim/campaign/config.h): the one config of run, replay, sweep and shrink.
using RunConfig = campaign::ExploreConfig;

/// The run report and hooks are the campaign layer's (sim/campaign/run.h).
using RunHooks = campaign::RunHooks;
using ScenarioReport = campaign::RunReport;

/// Runs `scenario` (compiled with config.mutants). Throws ScenarioError for an unknown mutant and
/// campaign::ConfigError for a config that does not validate.
ScenarioReport run_scenario(const Scenario& scenario, const RunConfig& config, const RunHooks& hooks = {});

/// Judges `report` (summary.executions and violations_by_invariant, outcomes, reached) against
/// scenario.expect: appends one line per unmet expectation to report.unmet (fixed order, see above) and
/// sets report.met. Used by run_scenario and by sweeps, which combine work units first (sweep.h).
void judge_report(const Scenario& scenario, ScenarioReport& report);

/// Re-runs exactly one execution with the given execution seed and returns its result (the `replay
/// --seed` path: execution 0 of a run seeded with it, through sim::explore).
sim::ExecutionResult replay_seed(const Scenario& scenario, const RunConfig& config, uint64_t execution_seed);

}  // namespace allocsim::harness

// Runs a scenario under a strategy and judges it against its `expect` (docs/DESIGN.md §4).
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

#include "backend/harness/expect_audit.h"
#include "backend/harness/scenario.h"
#include "backend/harness/world.h"
#include "sim/campaign/config.h"
#include "sim/determinism.h"
#include "sim/explorer.h"

namespace allocsim::harness {

/// The exploration config (sim/campaign/config.h): the one config of run, replay, sweep and shrink.
using RunConfig = campaign::ExploreConfig;

/// What a caller observes while a run goes on (never part of the result).
struct RunHooks {
  /// Called after every execution (progress reporting); may be empty.
  std::function<void(uint64_t done, uint64_t violating)> progress;
  /// Called after every execution with its index, execution seed and fingerprint (`run --fingerprints`);
  /// may be empty.
  std::function<void(uint64_t index, uint64_t seed, uint64_t fingerprint)> on_fingerprint;
  /// Called after every execution with the world it ran in (`run --record`, record.h); may be empty.
  std::function<void(uint64_t index, const BackendWorld& world, const sim::ExecutionResult& result)> on_execution;
};

struct ScenarioReport {
  sim::ExploreSummary summary;
  // actor -> op name -> outcome -> count, in script order of first appearance
  std::map<std::string, std::map<std::string, std::map<std::string, uint64_t>>> outcomes;
  std::vector<std::string> reached;  // barriers fired in at least one execution, catalog order
  /// Exhaustive strategies: whether the whole tree was explored (else the run stopped at `executions` or a
  /// first violation).
  bool exhausted = false;
  std::string reduction;                    // the reduction used (registry: ResolvedStrategy), or ""
  std::optional<uint64_t> distinct_traces;  // exhaustive: distinct Mazurkiewicz traces among the executions
  /// pct: k, n, d, and the per-execution lower bound and the miss chance after the executions run.
  struct Pct {
    uint64_t steps = 0, actors = 0;
    uint32_t depth = 0;
    double per_execution = 0, miss = 1;
  };
  std::optional<Pct> pct;
  uint64_t pair_coverage = 0;  // ordered point-name pairs at switches between actors (sim/coverage.h)
  bool met = false;            // every expectation held
  /// check_determinism: the first execution whose second run differed, and how many did.
  struct Divergence {
    uint64_t index = 0, seed = 0;
    sim::Divergence where;
  };
  std::optional<Divergence> divergence;
  uint64_t divergent_executions = 0;
  uint64_t rechecked_executions = 0;  // executions actually run a second time (so a report can prove it)
  std::vector<std::string> unmet;     // why not, one line each
  ExpectTally expect_tally;           // occurrence pins and expect.audit (expect_audit.h)
};

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

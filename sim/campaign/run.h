// Running one scenario under one exploration config: the campaign's entry into the one run loop
// (sim::explore) for `run`, `replay --seed` and the benchmarks. Sweep units (sweep.h), strict replay and
// the shrinker's candidate runs (replay.h) go through the same loop.
//
// Contract: deterministic for a given (subject, config). The verdict is the subject's (Subject::judge):
// every unmet expectation, one line each, in the system's fixed order.
// Errors: campaign::ConfigError for a config that does not validate, support::InputError for an unknown
// mutant (Subject::compile).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/campaign/config.h"
#include "sim/campaign/observers.h"
#include "sim/campaign/system.h"
#include "sim/determinism.h"
#include "sim/explorer.h"
#include "sim/strategies/state_dfs.h"

namespace allocsim::campaign {

/// What a caller observes while a run goes on (never part of the result).
struct RunHooks {
  /// Called after every execution (progress reporting); may be empty.
  std::function<void(uint64_t done, uint64_t violating)> progress;
  /// Called after every execution with its index, execution seed and fingerprint (`run --fingerprints`);
  /// may be empty.
  std::function<void(uint64_t index, uint64_t seed, uint64_t fingerprint)> on_fingerprint;
  /// Called after every execution with the world it ran in (`run --record`); may be empty.
  std::function<void(uint64_t index, const sim::World& world, const sim::ExecutionResult& result)> on_execution;
};

struct RunReport {
  sim::ExploreSummary summary;
  Outcomes outcomes;                 // what the executions' ops ended in (Tally)
  Counters counters;                 // the system's own counts for its expectations (Tally)
  std::vector<std::string> reached;  // barriers fired in at least one execution, in Subject::barriers() order
  /// Exhaustive strategies: whether the whole tree was explored (else the run stopped at `executions` or a
  /// first violation).
  bool exhausted = false;
  std::string reduction;                    // the reduction used (strategy table: ResolvedStrategy), or ""
  std::optional<uint64_t> distinct_traces;  // exhaustive: distinct Mazurkiewicz traces among the executions
  /// 0: distinct_traces is exact; L > 0: it is estimated from a 1-in-2^L hash sample (sim/trace_sample.h).
  unsigned distinct_traces_sample_level = 0;
  /// --reduction states: the state cache's counts (sim/strategies/state_dfs.h).
  std::optional<sim::StateCacheStats> states;
  /// pct: k, n, d, and the per-execution lower bound and the miss chance after the executions run.
  struct Pct {
    uint64_t steps = 0, actors = 0;
    uint32_t depth = 0;
    double per_execution = 0, miss = 1;
  };
  std::optional<Pct> pct;
  uint64_t pair_coverage = 0;  // ordered point-name pairs at switches between actors (sim/coverage.h)
  /// Coverage for the reports' "never reached" lists (docs/DESIGN.md §7): the pairs counted above, and the
  /// fault kinds that fired (sim::FaultCoverage).
  std::set<std::pair<std::string, std::string>> pairs;
  std::set<std::string> faults;
  bool met = false;  // every expectation held
  /// check_determinism: the first execution whose second run differed, and how many did.
  std::optional<FirstDivergence> divergence;
  uint64_t divergent_executions = 0;
  uint64_t rechecked_executions = 0;  // executions actually run a second time (so a report can prove it)
  std::vector<std::string> unmet;     // why not, one line each
  std::vector<std::string> notes;     // the compile's notes (Compiled::notes): checks left unjudged, and why
  /// The world's order constraints (indices) that did nothing: every execution ran to quiescence and none took
  /// the constraint's Y step, so its actor never reached that point and the constraint held nothing back (a
  /// barrier the state never fires, an occurrence #N past the actor's last). Empty when some execution ended
  /// otherwise: a Y held back until a violation looks the same in the steps.
  std::vector<size_t> order_inert;
};

/// Runs `subject` (compiled with config.mutants) and judges it.
RunReport run(const Subject& subject, const ExploreConfig& config, const RunHooks& hooks = {});

/// Re-runs exactly one execution with the given execution seed and returns its result (the `replay
/// --seed` path: execution 0 of a run seeded with it, through sim::explore).
sim::ExecutionResult replay_seed(const Subject& subject, const ExploreConfig& config, uint64_t execution_seed);

/// One execution of a world of `compiled` under `strategy` (a replay: it ignores the execution seed),
/// through the one run loop: sim::explore with one execution, not interruptible (a replay or a shrinker's
/// candidate run always finishes; its caller decides what a signal means). `observe`, when given, sees the
/// world as the execution left it.
sim::ExecutionResult run_one(sim::Engine& engine, const Compiled& compiled, sim::Strategy& strategy,
                             const std::function<void(const sim::World&)>& observe = {});

/// The strategy of `config` (validated) for a subject with `actors` actors; `calibrate` computes k when the
/// strategy needs it (pct).
std::unique_ptr<sim::Strategy> make_strategy(const ExploreConfig& config, size_t actors,
                                             const std::function<uint64_t()>& calibrate);

}  // namespace allocsim::campaign

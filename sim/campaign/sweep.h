// Sweeps (`allocsim sweep`, docs/DESIGN.md §7, "Sweeps"): many scenarios, exhaustively (dfs, dfs+dpor) or by
// sampling (random, pct), split into deterministic work units so that parallel workers, shards and resumed
// runs all produce the same report as one uninterrupted run.
//
// Work units. Every scenario is planned once, deterministically, from the scenario and the config only
// (never from --jobs or --shard, so every shard plans the same units):
// - dfs (any reduction, any bound): the schedule prefixes of enumerate_prefixes() (sim/strategies/dfs.h)
//   at the shallowest depth giving at least kDfsTargetUnits (dpor: kDporTargetUnits) prefixes (or the
//   whole tree when it has fewer leaves; dpor: one unit when unsplit DPOR exhausts the tree within
//   kDporWholeTreeExecutions executions). One unit = the subtree under one prefix, run by DfsStrategy or DporStrategy with that prefix.
//   Each DPOR unit starts with its earlier sibling units' first steps asleep at its prefix nodes
//   (sim/strategies/dpor_units.h), so the units together run about what one unsplit DPOR runs (without
//   that, 2-4x more on the alloc-033 scenarios); the unit decomposition is fixed, so counts never depend
//   on how the units are spread over workers.
// - random and pct: execution index ranges [begin, end) of `executions` per scenario, in at most
//   kSampleUnits units. Execution i uses execution_seed(seed, i), exactly as `allocsim run` does, so a
//   sampled sweep of a scenario equals `allocsim run` of it and `replay --seed` reproduces any execution.
// The global order of units is (scenario in sorted path order, unit index). "First violation" of a
// scenario is the first violating execution of its lowest-indexed unit that has one: an order of work,
// never of time. Shard K/N takes the units whose global index i has i % N == K-1.
//
// Determinism: results contain no time and no addresses; the trace-fingerprint sets that give the
// distinct Mazurkiewicz trace counts are ordered; every map is ordered. Workers share nothing mutable:
// each unit compiles its own scenario copy and owns its Engine and Strategy.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/config.h"
#include "sim/campaign/corpus.h"
#include "sim/campaign/run.h"
#include "sim/campaign/system.h"
#include "sim/engine.h"
#include "sim/strategies/dpor_units.h"
#include "sim/support/json_reader.h"
#include "sim/trace_sample.h"

namespace allocsim::campaign {

/// dfs: plan at least this many prefixes per scenario when the tree allows (fixed: shards must agree).
/// Plain DFS partitions exactly, so many small units cost nothing. DPOR loses reduction at every prefix
/// node (each prefix is a plain-DFS choice; measured: 1.3x more executions with 16 units on
/// alloc-009-mixed-sharing), so dpor gets fewer, bigger units: enough for 2-4 workers and shards.
inline constexpr size_t kDfsTargetUnits = 16;
inline constexpr size_t kDporTargetUnits = 4;
/// dpor: a scenario whose tree unsplit DPOR exhausts within this many executions (a probe at planning time,
/// thrown away) is one unit. Splitting such a tree buys no parallelism worth having and costs reduction: a
/// unit whose prefix starts an actor outside the unsplit source set runs an execution that ends sleep-set
/// blocked (measured: 3 executions for 2 traces on alloc-009-shares-only-pool, 39 for 30 on
/// alloc-007-fully-held-never-idle). The probe costs at most this many executions per scenario.
inline constexpr uint64_t kDporWholeTreeExecutions = 64;
/// dfs: never enumerate prefixes deeper than this (a deeper tree just gets fewer, bigger units).
inline constexpr size_t kDfsMaxPrefixDepth = 48;
/// random/pct: at most this many execution ranges per scenario.
inline constexpr uint64_t kSampleUnits = 16;

/// Bad sweep input that is not a scenario file (a checkpoint, a report to merge, flags): exit 2.
struct SweepInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What a sweep explores: an exploration config (sim/campaign/config.h) per scenario, plus how the work is
/// spread. Everything of ExploreConfig (its to_json()) is part of the report's "config" and must match for
/// merge and resume; `jobs`, `time_budget_seconds`, the paths and the progress estimate are not.
/// Sweep defaults: strategy dfs; `executions` is, for sampling strategies, executions per scenario, and for
/// exhaustive ones a cap per work unit (0 = none): a unit that hits it is reported not exhausted.
struct SweepConfig : campaign::ExploreConfig {
  SweepConfig() {
    strategy = "dfs";
    executions = 0;
  }
  std::string tool_version;  // recorded in reports and checkpoints; resume refuses another version

  unsigned jobs = 1;
  uint32_t shard_index = 0, shard_count = 1;  // 0-based index: `--shard K/N` is index K-1
  std::optional<double> time_budget_seconds;  // stop starting/continuing units after this (wall clock)
  std::string checkpoint_path;                // "" = no checkpoints
  std::string resume_path;                    // "" = fresh start
  double checkpoint_interval_seconds = 5;     // within a long unit (wall clock; never changes results); 0: none
                                              // within a unit, only at its end
  bool estimate_trees = false;                // Knuth probes per exhaustive scenario, for the progress line only
};

/// The config fields that define the results (ExploreConfig::to_json()): what merge and resume compare.
nlohmann::json config_json(const SweepConfig& config);

/// Where two config_json() documents differ, for a message that names it: the first member in key order whose
/// values differ ("absent" for a member only the other has), with both values as JSON text; key "" and the
/// whole documents when either is not an object. REQUIRES: a != b.
struct ConfigDifference {
  std::string key, a, b;
};
ConfigDifference config_difference(const nlohmann::json& a, const nlohmann::json& b);

/// The first violating execution of a unit (or of a scenario, after combining).
struct FirstViolation {
  uint64_t unit = 0;       // the unit it came from (scenario-local index)
  uint64_t execution = 0;  // execution index within the unit (random/pct: the global execution index)
  uint64_t seed = 0;       // execution seed (random/pct; 0 for dfs)
  std::vector<sim::Choice> schedule;
  std::string invariant, message;
};

/// --check-determinism: the first execution of a unit (or of a scenario, after combining) whose second run,
/// from its recorded schedule, differed (sim/determinism.h).
struct UnitDivergence {
  uint64_t unit = 0;       // the unit it came from (scenario-local index)
  uint64_t execution = 0;  // execution index within the unit (random/pct: the global execution index)
  uint64_t seed = 0;       // execution seed (random/pct; 0 for dfs)
  std::string where;       // sim::Divergence::to_string(): the first differing step, both runs' versions
};

/// What one work unit (or a combination of units) found. Mergeable: see combine().
struct UnitResult {
  uint64_t executions = 0, steps = 0, violating = 0;
  std::map<std::string, uint64_t> by_invariant;
  std::optional<FirstViolation> first;
  std::map<std::string, std::map<std::string, std::map<std::string, uint64_t>>> outcomes;  // as RunReport::outcomes
  std::map<std::string, uint64_t> barrier_hits;         // barrier name -> fires (only fired ones)
  sim::TraceSample traces;                              // exhaustive: distinct Mazurkiewicz trace fingerprints
  std::set<std::pair<std::string, std::string>> pairs;  // switch point pairs (sim/coverage.h)
  std::set<std::string> faults;                         // fault kinds that fired (sim::FaultCoverage)
  Counters counters;                                    // the system's own expectation counts (system.h)
  bool exhausted = true;  // dfs: every subtree explored (false when a unit hit the --executions cap)
  bool complete = true;   // the unit ran to its end (false: stopped by the time budget)
  /// Executions that ended order-blocked (the scenario's `order`, sim/engine.h), and the first one's block.
  uint64_t order_blocked = 0;
  std::string first_order_block;
  /// The dpor reduction (of dfs or dpor): prefixes abandoned as sleep-set blocked (sim::ExploreSummary::abandoned);
  /// not among `executions`. A unit from a checkpoint or shard report of an earlier version counts 0.
  uint64_t abandoned = 0;
  /// --check-determinism: executions run a second time, those whose second run differed, and the first.
  uint64_t rechecked = 0, divergent = 0;
  std::optional<UnitDivergence> first_divergence;
};

/// Adds `b` (a later unit) to `a`: sums, unions, and `a.first` kept unless it is empty.
void combine(UnitResult& a, const UnitResult& b);
nlohmann::json unit_to_json(const UnitResult& r);
/// Throws SweepInputError naming `where` on a malformed unit.
UnitResult unit_from_json(const nlohmann::json& j, const std::string& where);

/// One work unit of a scenario: a dfs prefix, or an execution range [begin, end).
struct WorkUnit {
  std::vector<sim::Choice> prefix;
  uint64_t begin = 0, end = 0;
  /// dpor: per prefix choice, the earlier siblings that start asleep (derived from the prefix, so not part
  /// of the plan digest).
  std::vector<std::vector<sim::SiblingStep>> siblings = {};
  /// dpor: the unit's own prefix choice is asleep (sim::UnitSleep::asleep): it runs no execution.
  bool asleep = false;
};

/// A scenario and its units. `error` set (and nothing else) when the file did not load.
struct ScenarioPlan {
  std::string path;
  SubjectPtr scenario;  // null when the file did not load
  std::optional<support::InputError> error;
  std::vector<WorkUnit> units;
  uint64_t pct_steps = 0;          // pct: k from the calibration execution
  std::string plan_digest;         // XXH3-64 of the unit list: shards and checkpoints must agree
  double estimated_leaves = 0;     // Knuth estimate of the dfs tree (progress only; 0 = not estimated)
  std::vector<std::string> notes;  // the compile's notes (Compiled::notes): checks left unjudged, and why
};

/// Scenario files: each argument is a file, or a directory searched recursively for *.json. Sorted,
/// duplicates removed. In directories, JSON files that are clearly not scenarios are skipped: JSON Schema
/// documents (a top-level "$schema") and the other documents allocsim writes (a "schema" of allocsim/trace/...,
/// allocsim/sweep-report/..., one table in sweep.cpp); anything else, broken files and misspelt scenario
/// schemas included, is a scenario and is reported if bad.
/// Files named explicitly are never skipped. Throws SweepInputError for a path that does not exist or a
/// directory without scenarios.
std::vector<std::string> expand_inputs(const std::vector<std::string>& args);

/// Loads and plans `path` (a bad file yields a plan with `error`). Runs a few executions (prefix
/// enumeration, pct calibration). Deterministic.
ScenarioPlan plan_scenario(const System& system, const std::string& path, const SweepConfig& config);

/// Live counters for a progress line (read from another thread; never part of a result).
struct SweepProgress {
  std::atomic<uint64_t> executions{0}, violating{0}, units_done{0};
  uint64_t units_total = 0;
  double estimated_total = 0;  // executions: Knuth estimates (dfs) or exact (sampling); 0 = unknown
  std::mutex mu;               // guards `current`
  std::string current;         // the scenario and unit started last
};

/// One per-scenario entry of a report, after combining its units (`result`) and judging.
struct ScenarioOutcome {
  const ScenarioPlan* plan = nullptr;
  UnitResult result;
  uint64_t units_in_report = 0;  // units whose results are included
  std::optional<bool> met;       // nullopt: undecided (a shard's partial view)
  std::vector<std::string> unmet;
  const std::vector<EntryReplay>* corpus = nullptr;  // its replayed corpus entries (null: none)
};

/// A whole sweep's results: per scenario, the unit results it owns (by unit index).
struct SweepResults {
  SweepConfig config;
  std::vector<ScenarioPlan> plans;                    // sorted by path
  std::vector<std::map<uint64_t, UnitResult>> units;  // per plan: unit index -> result
  int interrupted_by = 0;                             // the signal (sim/interrupt.h) that stopped the sweep early, or 0
  /// per plan: its corpus entries replayed before judging (replay_sweep_corpus(); empty: none or not replayed).
  std::vector<std::vector<EntryReplay>> corpus = {};
};

/// Replays every loaded scenario's corpus entries (corpus.h; `dir` empty: each beside its scenario file) into
/// results.corpus, for outcomes() to judge with. Unsharded sweeps only (a shard or a merge has no corpus view).
/// Throws CorpusError for a corpus folder that cannot be listed.
void replay_sweep_corpus(const System& system, SweepResults& results, const std::string& dir);

/// Runs the sweep: plans every input, runs this shard's units on config.jobs threads, checkpoints,
/// resumes. Throws SweepInputError for a bad config, or a bad checkpoint/resume file (nothing is run then).
/// `progress` may be null.
SweepResults run_sweep(const System& system, const std::vector<std::string>& files, const SweepConfig& config,
                       SweepProgress* progress);

/// Combines and judges every scenario of `results` (Subject::judge on the combined result).
/// A scenario is judged only when all its units are present and complete; else met is nullopt (a shard)
/// or false with a reason (time budget).
std::vector<ScenarioOutcome> outcomes(const SweepResults& results);

/// The global index of unit `u` of plan `p` in the sweep's unit order (for sharding).
bool unit_in_shard(const std::vector<ScenarioPlan>& plans, size_t p, size_t u, uint32_t index, uint32_t count);

}  // namespace allocsim::campaign

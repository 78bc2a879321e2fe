// The one list of what a campaign observes beside each execution (docs/DESIGN.md §3 "Fingerprints" for the
// recheck, §7 for the reports that read the rest): `run` (and swarm,
// which runs each generated scenario through it) and every sweep work unit build one ExecutionObservers and
// hand it each finished execution, so a count or a check added here reaches every command at once.
//
// What it keeps, in the order observe() feeds them:
//   1. the subject's Tally (Subject::tally): op outcomes, barrier fires, the system's own counters;
//   2. order constraints: per constraint, whether an execution took its Y step (RunReport::order_inert);
//   3. distinct Mazurkiewicz traces (exhaustive strategies only: a fingerprint of the footprints);
//   4. switch-pair and fault coverage (sim/coverage.h);
//   5. the determinism recheck, when asked: the execution re-run from its recorded schedule on a fresh
//      world by a separate engine (sim/determinism.h), the first difference kept.
// What it does not keep: per-command counts and hooks (a sweep unit's violation counts, run's fingerprint
// and progress hooks) stay with their callers, which see the same execution first.
//
// Determinism: every count is a pure function of the executions fed in, in their order.
// REQUIRES: every world fed in was made by `make_world` (copied; what it captures must outlive this object).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/campaign/system.h"
#include "sim/coverage.h"
#include "sim/divergence.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/trace_sample.h"

namespace allocsim::campaign {

/// The first execution whose second run differed (ExecutionObservers::Options::recheck).
struct FirstDivergence {
  uint64_t index = 0;  // execution index (as sim::explore numbers it)
  uint64_t seed = 0;   // its execution seed
  sim::Divergence where;
};

class ExecutionObservers {
 public:
  struct Options {
    bool traces = false;     // count distinct traces (needs the engine's footprints: exhaustive strategies)
    bool recheck = false;    // re-run every execution from its schedule and compare (--check-determinism)
    uint64_t max_steps = 0;  // the recheck engine's step bound: the same as the exploring engine's
  };

  ExecutionObservers(std::unique_ptr<Tally> tally, const sim::WorldFactory& make_world, Options options);

  /// Feeds one finished execution (`index` and `seed` as sim::explore passed them).
  void observe(uint64_t index, uint64_t seed, const sim::World& world, const sim::ExecutionResult& result);

  /// Moves the tally's outcomes, barrier fires and counters into the arguments and starts the tally again
  /// (Tally::drain), and adds the coverage seen so far to `pairs` and `faults`.
  void drain(Outcomes& outcomes, std::map<std::string, uint64_t>& barrier_hits, Counters& counters,
             std::set<std::pair<std::string, std::string>>& pairs, std::set<std::string>& faults);

  /// The order constraints (indices) that held nothing back: every execution fed in was quiescent and none
  /// took the constraint's Y step. Empty when some execution ended otherwise.
  std::vector<size_t> order_inert() const;

  const sim::TraceSample& traces() const { return traces_; }
  const sim::PairCoverage& pair_coverage() const { return coverage_; }
  uint64_t rechecked() const { return rechecked_; }
  uint64_t divergent() const { return divergent_; }
  const std::optional<FirstDivergence>& first_divergence() const { return first_divergence_; }

 private:
  void note_order(const sim::World& world, const sim::ExecutionResult& result);

  sim::WorldFactory make_world_;
  Options options_;
  std::unique_ptr<Tally> tally_;
  std::vector<bool> y_taken_;  // per order constraint: some execution took its Y step
  bool all_quiescent_ = true;  // every execution of a world with order constraints was quiescent
  sim::TraceSample traces_;
  sim::PairCoverage coverage_;
  sim::FaultCoverage faults_;
  // A separate engine: the second run must not share stack pools or step hints with the first.
  std::unique_ptr<sim::Engine> recheck_engine_;
  uint64_t rechecked_ = 0, divergent_ = 0;
  std::optional<FirstDivergence> first_divergence_;
};

}  // namespace allocsim::campaign

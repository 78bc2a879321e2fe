// The explorer drives executions: builds a fresh world, seeds the strategy, runs, observes, repeats.
// It owns no policy (the strategy chooses) and no mechanism (the engine switches).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sim/engine.h"
#include "sim/strategy.h"
#include "sim/world.h"

namespace allocsim::sim {

using WorldFactory = std::function<std::unique_ptr<World>()>;

/// Called after every execution with its index, seed, the world as it ended, and the result.
using ExecutionObserver = std::function<void(uint64_t index, uint64_t seed, World& world, const ExecutionResult&)>;

struct ExploreOptions {
  uint64_t seed = 0;           // run seed S: execution i uses execution_seed(S, i)
  uint64_t executions = 1000;  // upper bound; an exhaustive strategy may stop earlier
  bool stop_at_first_violation = false;
  /// The index of the first execution: a sweep unit's execution range starts here, a resumed unit goes on
  /// from here. Executions are numbered first_index, first_index + 1, ...
  uint64_t first_index = 0;
  /// Asked before every execution (after the `executions` bound) with the summary so far; true stops the
  /// exploration there (ExploreSummary::paused). Time budgets and checkpoints hook in here. May be empty.
  std::function<bool(const struct ExploreSummary& so_far)> pause = {};
  /// false: a recorded SIGINT/SIGTERM does not stop it. For one execution whose caller needs its result
  /// (a strict replay, a shrinker's candidate run): the caller decides what a signal means.
  bool interruptible = true;
};

/// An execution that violated an invariant, with everything needed to replay it.
struct Finding {
  uint64_t index;  // execution index within the run
  uint64_t seed;   // its execution seed: `replay --seed <seed>` reruns it
  ExecutionResult result;
};

struct ExploreSummary {
  uint64_t executions = 0;  // run to their end; abandoned ones are not among them
  /// Executions the strategy abandoned (ExecutionResult::abandoned; DPOR: sleep-set blocked): redundant
  /// prefixes, each equivalent to an explored execution. Not counted in `executions` nor in `steps`.
  uint64_t abandoned = 0;
  uint64_t steps = 0;
  uint64_t violating_executions = 0;
  std::map<std::string, uint64_t> violations_by_invariant;  // ordered: deterministic reports
  std::optional<Finding> first;                             // the first violating execution
  bool paused = false;                                      // ExploreOptions::pause stopped it
  bool interrupted = false;  // a SIGINT/SIGTERM (sim/interrupt.h) stopped it before its next execution
  /// Executions that ended order-blocked (ExecutionResult::order_blocked), and the first one's block.
  uint64_t order_blocked_executions = 0;
  std::optional<ExecutionResult::OrderBlock> first_order_block;
  /// An execution had ExecutionResult::single_schedule: the world's order leaves one schedule, so the
  /// exploration stopped after it (every other execution, under any strategy, would be the same one).
  bool single_schedule = false;
};

/// The one run loop: `run`, `replay`, sweep units, the shrinker's candidate runs and the benchmarks all
/// explore through it (sim/campaign/run.h). It stops before the next execution once a signal is recorded
/// (sim/interrupt.h) unless not `interruptible`, after `pause`.
ExploreSummary explore(Engine& engine, const WorldFactory& make_world, Strategy& strategy,
                       const ExploreOptions& options, const ExecutionObserver& observe = {});

}  // namespace allocsim::sim

// The generic half of the shrinker: following a schedule leniently, a deterministic run budget, and an
// exhaustive preemption-bounded search for the schedule with the fewest preemptions (CHESS's iterative
// context bounding, Musuvathi & Qadeer, PLDI 2007, used here as a minimiser rather than a bug finder).
// The scenario-reducing driver is sim/campaign/shrink.h, over a Subject's reductions (sim/campaign/system.h).
// No GPU word appears here.
//
// Determinism: every decision is a function of the schedule and of how many candidate runs were made.
// The wall clock is only consulted to stop early (and to say so); given enough budget the result never
// depends on it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "sim/engine.h"
#include "sim/strategy.h"

namespace allocsim::sim {

/// The choice made when no recorded choice applies: the actor that ran last if it can still run (no
/// preemption), else the runnable actor with the lowest id. REQUIRES: runnable non-empty, ascending.
ActorId default_choice(std::span<const Candidate> runnable, ActorId current);

/// Follows a schedule leniently, as the shrinker needs after it has edited a scenario or a schedule:
/// actor choices and draws are two separate streams; the i-th actor choice takes the i-th recorded actor
/// if that actor can run, else default_choice(); the j-th draw takes the j-th recorded draw if it is in
/// range, else 0 (by convention, 0 is "no fault"). A schedule that runs out continues with defaults.
class LenientReplayStrategy final : public Strategy {
 public:
  explicit LenientReplayStrategy(std::span<const Choice> schedule);
  void begin_execution(uint64_t) override { apos_ = dpos_ = 0; }
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  bool end_execution(const ExecutionResult&) override { return false; }

 private:
  std::vector<ActorId> actors_;
  std::vector<uint64_t> draws_;
  size_t apos_ = 0, dpos_ = 0;
};

/// Bounds a search by candidate runs (deterministic) and, optionally, by wall-clock seconds (only to stop
/// early). `max_seconds <= 0` means no time limit.
class RunBudget {
 public:
  RunBudget(uint64_t max_runs, double max_seconds);
  /// Accounts for one candidate run; false (and nothing counted) when the budget is spent.
  bool take();
  uint64_t runs() const { return runs_; }
  bool exhausted() const { return exhausted_; }
  /// Whether it was the wall clock (rather than the run count) that ran out.
  bool out_of_time() const { return out_of_time_; }

 private:
  uint64_t max_runs_;
  double max_seconds_;
  std::chrono::steady_clock::time_point start_;
  uint64_t runs_ = 0;
  bool exhausted_ = false, out_of_time_ = false;
};

/// Runs one execution of a fresh world under `strategy` (already begun) and returns the result.
using RunOnce = std::function<ExecutionResult(Strategy&)>;
/// Whether an execution shows the violation being shrunk.
using Accept = std::function<bool(const ExecutionResult&)>;

struct PreemptionSearch {
  std::optional<ExecutionResult> found;  // the first accepted execution, in search order
  uint32_t bound = 0;                    // the bound it was found at (= its preemption count)
  bool complete = false;                 // every bound below `bound` was searched exhaustively
};

/// Iterative preemption bounding: for k = 0, 1, ..., max_bound, a depth-first search over every schedule
/// with at most k preemptions, in a fixed order (at each choice the default_choice() first, then the other
/// runnable actors in ascending id), stopping at the first execution `accept` takes. Draws follow `draws`
/// leniently (as LenientReplayStrategy does). Since bound k-1 was searched completely before bound k, a
/// schedule found at bound k has the fewest preemptions any accepted schedule can have (`complete`).
/// Throws std::logic_error if re-running a prefix gives different choice points (a nondeterministic world).
PreemptionSearch search_min_preemptions(const RunOnce& run, const Accept& accept, std::span<const uint64_t> draws,
                                        uint32_t max_bound, RunBudget& budget);

/// The indices (into `r.schedule`) of the actor choices that were preemptions, in order.
std::vector<size_t> preemption_choices(const ExecutionResult& r);

}  // namespace allocsim::sim

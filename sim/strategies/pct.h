// `pct --depth d`: probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi & Nagarakatte, "A
// Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010).
//
// Per execution (seeded, docs/DESIGN.md §3): the n actors get distinct random priorities d..d+n-1 (a uniform
// permutation, Fisher-Yates over Prng::below); d-1 distinct priority change points are drawn uniformly
// from the steps 1..k, the i-th drawn one labelled i. At every choice the highest-priority runnable actor
// runs; at the step numbered like change point i, the highest-priority runnable actor first drops to
// priority i (below every initial priority), as shuttle's PCT does. Draws (faults) are uniform and are
// outside PCT's guarantee.
//
// k (the step bound) is fixed before the run: PctOptions::steps. The runner takes it from a calibration
// execution (calibrate_pct_steps: the first schedule of `dfs`, lowest actor first and never preempting),
// run once before the run and not counted. The guarantee below holds for bugs in executions of at most k
// steps; longer executions simply have no change point past k.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/explorer.h"
#include "sim/prng.h"
#include "sim/strategy.h"

namespace allocsim::sim {

struct PctOptions {
  uint32_t depth = 3;   // d >= 1: the bug depth targeted (d-1 change points)
  uint64_t steps = 0;   // k >= 1: the a-priori step bound
  uint32_t actors = 0;  // n >= 1: actor ids are 0..n-1
};

class PctStrategy final : public Strategy {
 public:
  /// Throws std::invalid_argument when depth, steps or actors is 0.
  explicit PctStrategy(PctOptions options);
  void begin_execution(uint64_t seed) override;
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override { return prng_.below(bound); }
  bool end_execution(const ExecutionResult&) override { return true; }

  const PctOptions& options() const { return opt_; }
  /// This execution's change points (1-based step numbers, in label order) and current priorities.
  const std::vector<uint64_t>& change_points() const { return change_points_; }
  const std::vector<uint64_t>& priorities() const { return priority_; }

 private:
  PctOptions opt_;
  Prng prng_{0};
  std::vector<uint64_t> priority_;       // by actor id; higher runs first
  std::vector<uint64_t> change_points_;  // change_points_[i-1] is the step of change point i
  uint64_t step_ = 0;
};

/// PCT's guaranteed lower bound on the probability that one execution hits a given depth-d bug:
/// 1 / (n * k^(d-1)) for n actors and k steps (ASPLOS 2010, Theorem 1). A reported number, never a choice.
double pct_hit_probability(uint64_t actors, uint64_t steps, uint32_t depth);

/// The chance that such a bug is still missed after `executions` independent executions: (1-p)^N.
double pct_miss_probability(double per_execution, uint64_t executions);

/// The step bound k from one calibration execution (see above): its number of steps, at least 1.
uint64_t calibrate_pct_steps(Engine& engine, const WorldFactory& make_world);

}  // namespace allocsim::sim

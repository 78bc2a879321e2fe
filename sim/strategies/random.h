// `random`: at every choice, a uniformly random runnable actor; draws uniform. Seeded per execution
// (docs/DESIGN.md §3), so an execution's seed alone replays it.
#pragma once

#include "sim/prng.h"
#include "sim/strategy.h"

namespace allocsim::sim {

class RandomStrategy final : public Strategy {
 public:
  void begin_execution(uint64_t seed) override { prng_ = Prng(seed); }
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override { return prng_.below(bound); }
  bool end_execution(const ExecutionResult&) override { return true; }

 private:
  Prng prng_{0};
};

}  // namespace allocsim::sim

// The one PRNG of allocsim (docs/DESIGN.md §3): SplitMix64 seeding xoshiro256** (Blackman & Vigna, 2018),
// bounded draws by Lemire's multiply-shift with rejection (Lemire, "Fast Random Integer Generation in an
// Interval", TOMACS 2019). No floats, no <random> distributions: outputs are pinned by tests/sim/prng.cpp,
// so a seed means the same schedule on every machine and compiler.
#pragma once

#include <cstdint>

namespace allocsim::sim {

/// SplitMix64 (Steele, Lea & Flood 2014): one 64-bit state, +0x9E3779B97F4A7C15 per output.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();

 private:
  uint64_t state_;
};

/// xoshiro256**, its four words seeded from SplitMix64(seed).
class Prng {
 public:
  explicit Prng(uint64_t seed);
  uint64_t next();
  /// Uniform integer in [0, bound). REQUIRES: bound > 0. Lemire's method: unbiased, usually one multiply.
  uint64_t below(uint64_t bound);

 private:
  uint64_t s_[4];
};

/// The seed of execution `index` in a run with seed `run_seed`: the run seed itself for index 0, else the
/// index-th output of SplitMix64(run_seed). So `replay --seed E` is `run --seed E --executions 1`.
uint64_t execution_seed(uint64_t run_seed, uint64_t index);

}  // namespace allocsim::sim

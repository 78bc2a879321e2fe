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
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform integer in [0, bound). REQUIRES: bound > 0. Lemire's method: unbiased, usually one multiply.
  /// Inline: `random` draws once per step, and the call cost a fifth of the draw.
  uint64_t below(uint64_t bound) {
    if (bound == 0) below_zero();
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    auto low = static_cast<uint64_t>(m);
    if (low < bound) [[unlikely]] {
      const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  [[noreturn]] static void below_zero();  // the failed REQUIRES, reported by ALLOCSIM_ASSERT
  uint64_t s_[4];
};

/// The seed of execution `index` in a run with seed `run_seed`: the run seed itself for index 0, else the
/// index-th output of SplitMix64(run_seed). So `replay --seed E` is `run --seed E --executions 1`.
uint64_t execution_seed(uint64_t run_seed, uint64_t index);

}  // namespace allocsim::sim

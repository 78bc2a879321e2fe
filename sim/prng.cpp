#include "sim/prng.h"

#include "sim/assert.h"

namespace allocsim::sim {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Prng::Prng(uint64_t seed) {
  SplitMix64 sm(seed);
  for (auto& w : s_) w = sm.next();
}

void Prng::below_zero() {
  ALLOCSIM_ASSERT(false, "Prng::below(0): the range [0, 0) is empty");
  __builtin_unreachable();
}

uint64_t execution_seed(uint64_t run_seed, uint64_t index) {
  if (index == 0) return run_seed;
  // The index-th output of SplitMix64(run_seed), computed directly: its state after `index` steps.
  SplitMix64 sm(run_seed + (index - 1) * 0x9E3779B97F4A7C15ull);
  return sm.next();
}

}  // namespace allocsim::sim

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

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Prng::next() {
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

uint64_t Prng::below(uint64_t bound) {
  ALLOCSIM_ASSERT(bound > 0, "Prng::below(0): the range [0, 0) is empty");
  unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
  auto low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    while (low < threshold) {
      m = static_cast<unsigned __int128>(next()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

uint64_t execution_seed(uint64_t run_seed, uint64_t index) {
  if (index == 0) return run_seed;
  // The index-th output of SplitMix64(run_seed), computed directly: its state after `index` steps.
  SplitMix64 sm(run_seed + (index - 1) * 0x9E3779B97F4A7C15ull);
  return sm.next();
}

}  // namespace allocsim::sim

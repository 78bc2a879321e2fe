// The mixing of canonical-state digests (docs/DESIGN.md §2 "Canonical states"): one 64-bit value at a time into a
// running digest, as the engine (sim/engine_states.cpp) and a world's canonical_state() build them.
//
// mix() is wyhash's multiply-and-fold (a 64x64->128-bit product, its halves xored) of the digest and the value,
// each xored with a constant first: one multiplication per value. A seeded XXH3 call per value cost 45% of a
// state-caching run. Strings are hashed once with XXH3 and mixed in as a value. Deterministic on every machine
// (no seed from the process), as fingerprints must be (docs/DESIGN.md §3).
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <string_view>

namespace allocsim::sim {

inline uint64_t state_mix(uint64_t h, uint64_t v) {
  const unsigned __int128 r = static_cast<unsigned __int128>(h ^ 0xa0761d6478bd642full) * (v ^ 0xe7037ed1a0b428dbull);
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t state_mix_text(uint64_t h, std::string_view s) {
  return state_mix(state_mix(h, s.size()), XXH3_64bits(s.data(), s.size()));
}

}  // namespace allocsim::sim

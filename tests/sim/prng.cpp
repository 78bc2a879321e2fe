// Pins the PRNG (docs/DESIGN.md §3): these numbers are a seed's meaning; if they change, every recorded seed
// and trace changes meaning. Reference values computed independently (a 20-line Python transcription of
// the published algorithms), not by this code.
#include <catch2/catch.hpp>

#include "sim/prng.h"

using namespace allocsim::sim;

TEST_CASE("SplitMix64 outputs are pinned", "[prng]") {
  SplitMix64 sm(0);
  CHECK(sm.next() == 0xe220a8397b1dcdafull);
  CHECK(sm.next() == 0x6e789e6aa1b965f4ull);
  CHECK(sm.next() == 0x06c45d188009454full);
}

TEST_CASE("xoshiro256** seeded by SplitMix64 is pinned", "[prng]") {
  Prng p(0);
  CHECK(p.next() == 0x99ec5f36cb75f2b4ull);
  CHECK(p.next() == 0xbf6e1f784956452aull);
  CHECK(p.next() == 0x1a5f849d4933e6e0ull);
}

TEST_CASE("bounded draws use Lemire's method and are pinned", "[prng]") {
  Prng a(42);
  std::vector<uint64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(a.below(10));
  CHECK(got == std::vector<uint64_t>{0, 3, 6, 9, 9, 7, 7, 8, 7, 5});
  Prng b(7);
  got.clear();
  for (int i = 0; i < 10; ++i) got.push_back(b.below(3));
  CHECK(got == std::vector<uint64_t>{2, 0, 2, 2, 2, 2, 0, 0, 1, 0});
}

TEST_CASE("bounded draws stay in range, including bound 1 and huge bounds", "[prng]") {
  Prng p(3);
  for (int i = 0; i < 1000; ++i) REQUIRE(p.below(1) == 0);
  const uint64_t big = (uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 1000; ++i) REQUIRE(p.below(big) < big);
}

TEST_CASE("execution seeds: index 0 is the run seed, then SplitMix64 outputs", "[prng]") {
  CHECK(execution_seed(5, 0) == 5);
  CHECK(execution_seed(5, 1) == 0x63033b0ca389c35aull);
  CHECK(execution_seed(5, 2) == 0xc097314d939736f8ull);
  CHECK(execution_seed(5, 3) == 0x3b92d3f0106bc147ull);
}

// TraceSample (sim/trace_sample.h): exact below its capacity, an order-independent hash-sample estimate past it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/prng.h"
#include "sim/trace_sample.h"

namespace trace_sample_test {

using allocsim::sim::SplitMix64;
using allocsim::sim::TraceSample;

std::vector<uint64_t> fingerprints(uint64_t seed, size_t n) {
  SplitMix64 sm(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = sm.next();
  return v;
}

TEST_CASE("below its capacity a trace sample counts exactly, duplicates once", "[trace-sample]") {
  TraceSample s(1000);
  const auto fps = fingerprints(1, 1000);
  for (uint64_t fp : fps) s.add(fp);
  for (uint64_t fp : fps) s.add(fp);  // every trace seen twice
  CHECK(s.exact());
  CHECK(s.distinct() == 1000);
  CHECK(s.kept().size() == 1000);
  CHECK(std::is_sorted(s.kept().begin(), s.kept().end()));
  s.add(fps[0] ^ 1);  // one more than fits: a sample from now on
  CHECK_FALSE(s.exact());
  CHECK(s.level() == 1);
  CHECK(s.kept().size() <= 1000);
  for (uint64_t fp : s.kept()) CHECK(fp < (uint64_t{1} << 63));
}

TEST_CASE("past its capacity the estimate is within a few percent and memory stays at the capacity", "[trace-sample]") {
  TraceSample s(4096);
  const auto fps = fingerprints(7, 1'000'000);
  for (uint64_t fp : fps) s.add(fp);
  CHECK(s.kept().size() <= 4096);
  CHECK(s.level() >= 8);  // 1,000,000 / 2^8 = 3,906 fit; 2^7 would keep about 7,800
  // Standard error about 1/sqrt(2048) = 2.2%; 4 sigma.
  CHECK(std::abs(double(s.distinct()) - 1e6) / 1e6 < 0.09);
}

TEST_CASE("a trace sample depends on the set of fingerprints, not on the order or the merging", "[trace-sample]") {
  const auto fps = fingerprints(3, 50'000);
  TraceSample whole(2000);
  for (uint64_t fp : fps) whole.add(fp);
  // The same set in reverse order, and split into 7 parts merged in two different orders.
  TraceSample reversed(2000);
  for (auto it = fps.rbegin(); it != fps.rend(); ++it) reversed.add(*it);
  std::vector<TraceSample> parts(7, TraceSample(2000));
  for (size_t i = 0; i < fps.size(); ++i) parts[(i * i) % 7].add(fps[i]);
  TraceSample forward(2000), backward(2000);
  for (const auto& p : parts) forward.merge(p);
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) backward.merge(*it);
  for (const TraceSample* t : {&reversed, &forward, &backward}) {
    CHECK(t->level() == whole.level());
    CHECK(t->kept() == whole.kept());
  }
  // The level is the smallest whose sample fits.
  const unsigned l = whole.level();
  REQUIRE(l > 0);
  const auto below = [&](unsigned level) {
    return std::count_if(fps.begin(), fps.end(), [&](uint64_t fp) { return (fp >> (64 - level)) == 0; });
  };
  CHECK(size_t(below(l)) == whole.kept().size());
  CHECK(below(l - 1) > 2000);  // level 0 would shift by 64: l is at least 1 here
}

TEST_CASE("a saved trace sample is read back or refused", "[trace-sample]") {
  TraceSample s(100);
  for (uint64_t fp : fingerprints(5, 1000)) s.add(fp);
  const TraceSample back = TraceSample::from_parts(s.level(), s.kept(), 100);
  CHECK(back.level() == s.level());
  CHECK(back.kept() == s.kept());
  CHECK_THROWS_AS(TraceSample::from_parts(0, {2, 1}), std::invalid_argument);               // not sorted
  CHECK_THROWS_AS(TraceSample::from_parts(1, {uint64_t{1} << 63}), std::invalid_argument);  // above the level
  CHECK_THROWS_AS(TraceSample::from_parts(64, {}), std::invalid_argument);
}

}  // namespace trace_sample_test

// StepObjects (sim/trace_equivalence.h): the interned object sets DPOR's analysis and trace fingerprints test
// dependence on must answer exactly as dependent() on the footprints, for every pair of steps, whether the
// execution has a few objects (one word), many (several words) or more than it interns (the fallback).
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/prng.h"
#include "sim/trace_equivalence.h"

using namespace allocsim::sim;

namespace {

/// `steps` steps, each with up to `per_step` accesses to objects drawn from `universe` ids (spread like the
/// harness's hashed ids, with 0 among them), a quarter of them writes; canonical footprints.
ExecutionResult random_execution(Prng& prng, size_t steps, size_t per_step, uint64_t universe) {
  ExecutionResult r;
  r.steps.resize(steps);
  for (StepRecord& s : r.steps) {
    std::vector<Access> raw;
    const uint64_t count = prng.below(per_step + 1);
    for (uint64_t k = 0; k < count; ++k) {
      const uint64_t pick = prng.below(universe);
      raw.push_back({pick == 0 ? 0 : pick * 0x9E3779B97F4A7C15ull, prng.below(4) == 0});
    }
    s.footprint = normalized(std::move(raw));
  }
  return r;
}

/// Every pair (i, j), both orders, against dependent(); returns how many pairs were dependent.
size_t check_all_pairs(const StepObjects& objects, const ExecutionResult& r) {
  size_t dependent_pairs = 0;
  for (size_t i = 0; i < r.steps.size(); ++i)
    for (size_t j = 0; j < r.steps.size(); ++j) {
      const bool expected = dependent(r.steps[i].footprint, r.steps[j].footprint);
      INFO("steps " << i << " and " << j);
      REQUIRE(objects.dependent(i, j) == expected);
      dependent_pairs += expected;
    }
  return dependent_pairs;
}

}  // namespace

TEST_CASE("step objects: interned sets answer exactly as dependent() on the footprints", "[dpor]") {
  Prng prng(2026);
  StepObjects objects;  // reused across builds, as the analysis and the fingerprint reuse theirs
  size_t exact = 0, fallback = 0, dependent_pairs = 0;
  for (int round = 0; round < 300; ++round) {
    // Universes of 40 (one word), 600 (several words) and 5000 ids with long footprints (past kMaxObjects: the
    // fallback).
    const uint64_t universe = round % 3 == 0 ? 40 : round % 3 == 1 ? 600 : 5000;
    const ExecutionResult r = random_execution(prng, 30 + prng.below(40), universe == 5000 ? 80 : 12, universe);
    objects.build(r, r.steps.size());
    (objects.exact() ? exact : fallback) += 1;
    dependent_pairs += check_all_pairs(objects, r);
  }
  CHECK(exact >= 150);    // the one- and several-word universes, at least
  CHECK(fallback >= 50);  // most 5000-id executions have more than 1024 distinct objects
  CHECK(dependent_pairs > 10000);
}

TEST_CASE("step objects: a build over a prefix of the steps, and a rebuild, forget the last execution", "[dpor]") {
  ExecutionResult r;
  r.steps.resize(3);
  r.steps[0].footprint = {{7, true}};
  r.steps[1].footprint = {{7, false}, {9, false}};
  r.steps[2].footprint = {{9, true}};
  StepObjects objects;
  objects.build(r, 2);
  CHECK(objects.exact());
  CHECK(objects.dependent(0, 1));
  r.steps[0].footprint = {{8, true}};  // object 7 is gone: the old interning must not leak into the new one
  objects.build(r, 3);
  CHECK_FALSE(objects.dependent(0, 1));
  CHECK(objects.dependent(1, 2));
  CHECK_FALSE(objects.dependent(0, 2));
}

// pct: seeded and reproducible, priorities and change points as specified, the reported bounds.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/coverage.h"
#include "sim/strategies/pct.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

TEST_CASE("pct: depth 1 runs one actor at a time to its end, in a random priority order", "[pct]") {
  PctStrategy pct(PctOptions{.depth = 1, .steps = 6, .actors = 3});
  Explored e = explore_all(pct, world_of({stepper("a", 2), stepper("b", 2), stepper("c", 2)}), 200);
  CHECK(e.max_preemptions == 0);       // no change point: the top priority never changes while it runs
  CHECK(e.distinct_logs.size() == 6);  // every priority order appears in 200 executions (miss chance ~ 6 * (5/6)^200)
}

TEST_CASE("pct: d-1 distinct change points in 1..k, priorities a permutation of d..d+n-1", "[pct]") {
  PctStrategy pct(PctOptions{.depth = 3, .steps = 4, .actors = 3});
  for (uint64_t seed = 0; seed < 50; ++seed) {
    pct.begin_execution(seed);
    REQUIRE(pct.change_points().size() == 2);
    CHECK(pct.change_points()[0] != pct.change_points()[1]);
    for (uint64_t c : pct.change_points()) CHECK((c >= 1 && c <= 4));
    std::vector<uint64_t> p = pct.priorities();
    std::sort(p.begin(), p.end());
    CHECK(p == std::vector<uint64_t>{3, 4, 5});
  }
  // k smaller than d-1: as many change points as there are steps.
  PctStrategy small(PctOptions{.depth = 5, .steps = 2, .actors = 2});
  small.begin_execution(1);
  CHECK(small.change_points().size() == 2);
  CHECK_THROWS_AS(PctStrategy(PctOptions{.depth = 0, .steps = 1, .actors = 1}), std::invalid_argument);
}

TEST_CASE("pct: a seed decides the execution, depth 2 preempts at most once", "[pct]") {
  const auto make = world_of({stepper("a", 3), stepper("b", 3)});
  PctStrategy x(PctOptions{.depth = 2, .steps = 6, .actors = 2}), y(PctOptions{.depth = 2, .steps = 6, .actors = 2});
  Explored ex = explore_all(x, make, 100), ey = explore_all(y, make, 100);
  CHECK(ex.logs == ey.logs);
  CHECK(ex.max_preemptions == 1);
  CHECK(ex.distinct_logs.size() > 2);
}

TEST_CASE("pct: probability bounds as in the paper", "[pct]") {
  CHECK(pct_hit_probability(2, 10, 1) == Approx(0.5));
  CHECK(pct_hit_probability(3, 10, 3) == Approx(1.0 / 300));
  CHECK(pct_miss_probability(0.5, 3) == Approx(0.125));
  CHECK(pct_miss_probability(1.0 / 300, 0) == Approx(1.0));
  CHECK(pct_miss_probability(1e-12, 1000) == Approx(1 - 1e-9).epsilon(1e-12));
}

TEST_CASE("pct: calibration takes k from the first dfs schedule", "[pct]") {
  Engine engine;
  CHECK(calibrate_pct_steps(engine, world_of({stepper("a", 3), stepper("b", 2)})) == 5);
}

TEST_CASE("coverage: ordered pairs of point names at switches between actors", "[pct]") {
  ExecutionResult r;
  r.steps.push_back({0, PointKind::Call, "x", "", false, {}});
  r.steps.push_back({0, PointKind::Call, "y", "", false, {}});
  r.steps.push_back({1, PointKind::Call, "x", "", true, {}});
  r.steps.push_back({0, PointKind::Barrier, "z", "", true, {}});
  PairCoverage c;
  c.observe(r);
  CHECK(c.pairs() == 2);  // (y, x) and (x, z); (x, y) is one actor
  CHECK(c.seen().count({"y", "x"}) == 1);
  c.observe(r);
  CHECK(c.pairs() == 2);
}

TEST_CASE("coverage: a pair is one pair whatever storage its names come from", "[pct]") {
  // The same names at other addresses (another table's copy), and a name that is a prefix of another at the
  // same address: counted by content, as the report shows them.
  static const char kBoth[] = "delete.before";
  static const char kCopy[] = "delete.before";
  ExecutionResult r;
  r.steps.push_back({0, PointKind::Call, "x", "", false, {}});
  r.steps.push_back({1, PointKind::Barrier, std::string_view(kBoth), "", true, {}});
  r.steps.push_back({0, PointKind::Call, "x", "", true, {}});
  r.steps.push_back({1, PointKind::Barrier, std::string_view(kCopy), "", true, {}});
  r.steps.push_back({0, PointKind::Call, "x", "", true, {}});
  r.steps.push_back({1, PointKind::Barrier, std::string_view(kBoth, 6), "", true, {}});  // "delete"
  PairCoverage c;
  c.observe(r);
  c.observe(r);
  CHECK(c.pairs() == 3);  // (x, delete.before), (delete.before, x), (x, delete)
  CHECK(c.seen().count({"x", "delete.before"}) == 1);
  CHECK(c.seen().count({"x", "delete"}) == 1);
}

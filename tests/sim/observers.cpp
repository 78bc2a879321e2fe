// The campaign's execution observers (sim/campaign/observers.h) on the engine's test world: every execution fed
// in reaches the tally and is re-run when asked; a world that leaks state between executions diverges on its
// first execution and on every one after; a deterministic one never does.
#include <catch2/catch.hpp>

#include "sim/campaign/observers.h"
#include "sim/strategies/random.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;
using allocsim::campaign::Counters;
using allocsim::campaign::ExecutionObservers;
using allocsim::campaign::Outcomes;
using allocsim::campaign::Tally;

namespace {

/// Counts the worlds added; drains the count as a counter.
struct CountingTally : Tally {
  uint64_t added = 0;
  void add(const World&) override { ++added; }
  void drain(Outcomes&, std::map<std::string, uint64_t>&, Counters& counters) override {
    counters["worlds"] += added;
    added = 0;
  }
};

std::unique_ptr<World> steady_world() {
  auto w = std::make_unique<TestWorld>();
  w->actors = {stepper("a", 3), stepper("b", 2)};
  return w;
}

/// Runs `executions` random executions of `make` (seed 11) through one ExecutionObservers.
struct Observed {
  uint64_t executions = 0, rechecked = 0, divergent = 0;
  std::optional<allocsim::campaign::FirstDivergence> first;
  Counters counters;
};
Observed observe(const WorldFactory& make, uint64_t executions, bool recheck) {
  ExecutionObservers observers(std::make_unique<CountingTally>(), make, {.recheck = recheck, .max_steps = 100});
  Engine engine;
  RandomStrategy random;
  Observed out;
  const ExploreSummary sum = explore(engine, make, random, ExploreOptions{.seed = 11, .executions = executions},
                                     [&](uint64_t index, uint64_t seed, World& w, const ExecutionResult& r) {
                                       observers.observe(index, seed, w, r);
                                     });
  out.executions = sum.executions;
  out.rechecked = observers.rechecked();
  out.divergent = observers.divergent();
  out.first = observers.first_divergence();
  Outcomes outcomes;
  std::map<std::string, uint64_t> hits;
  std::set<std::pair<std::string, std::string>> pairs;
  std::set<std::string> faults;
  observers.drain(outcomes, hits, out.counters, pairs, faults);
  return out;
}

}  // namespace

TEST_CASE("observers: a deterministic world re-runs identically, and every execution reaches the tally",
          "[sim][determinism]") {
  const Observed o = observe(steady_world, 40, true);
  CHECK(o.executions == 40);
  CHECK(o.rechecked == 40);
  CHECK(o.divergent == 0);
  CHECK_FALSE(o.first.has_value());
  CHECK(o.counters.at("worlds") == 40);
  // Without the recheck nothing runs twice.
  CHECK(observe(steady_world, 40, false).rechecked == 0);
}

TEST_CASE("observers: a world that leaks state between executions diverges from the first execution on",
          "[sim][determinism]") {
  const Observed o = observe(leaking_world, 25, true);
  CHECK(o.executions == 25);
  CHECK(o.rechecked == 25);
  CHECK(o.divergent == 25);  // every second run is built later than its first, so b's second call differs
  REQUIRE(o.first.has_value());
  CHECK(o.first->index == 0);
  CHECK(o.first->seed == 11);  // execution 0 of a run seeded with S uses S itself
  CHECK_THAT(o.first->where.to_string(), Catch::Contains("first run: b call call"));
  CHECK(o.counters.at("worlds") == 25);
}

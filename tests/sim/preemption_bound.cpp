// Preemption bounding (CHESS's iterative context bounding): exact counts per bound, each schedule once,
// in order of preemption count.
#include <catch2/catch.hpp>

#include "sim/strategies/dfs.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {

Explored bounded(uint32_t k, std::vector<TestWorld::Actor> actors) {
  DfsStrategy dfs(DfsOptions{.preemption_bound = k});
  return explore_all(dfs, world_of(std::move(actors)));
}

}  // namespace

TEST_CASE("bound: two actors of two steps give 2, 4, 6 executions for bounds 0, 1, 2", "[bound]") {
  // The six interleavings and their preemptions: aabb 0, bbaa 0, abba 1, baab 1, abab 2, baba 2.
  const auto actors = std::vector{stepper("a", 2), stepper("b", 2)};
  Explored b0 = bounded(0, actors), b1 = bounded(1, actors), b2 = bounded(2, actors), b9 = bounded(9, actors);
  CHECK(b0.executions == 2);
  CHECK(b1.executions == 4);
  CHECK(b2.executions == 6);
  CHECK(b9.executions == 6);
  CHECK(b0.max_preemptions == 0);
  CHECK(b1.max_preemptions == 1);
  CHECK(b2.distinct_logs.size() == 6);  // each schedule once overall
  // Iterative: the 0-preemption schedules come first, then the 1-preemption ones.
  CHECK(b2.logs[0] == std::vector<std::string>{"a0", "a1", "b0", "b1"});
  CHECK(b2.logs[1] == std::vector<std::string>{"b0", "b1", "a0", "a1"});
  CHECK(b2.logs[2] == std::vector<std::string>{"a0", "b0", "b1", "a1"});
  CHECK(b2.logs[3] == std::vector<std::string>{"b0", "a0", "a1", "b1"});
}

TEST_CASE("bound: switching away from a finished actor is free", "[bound]") {
  // Three one-step actors: no schedule has a preemption, so bound 0 already gives all 3! = 6.
  CHECK(bounded(0, {stepper("a", 1), stepper("b", 1), stepper("c", 1)}).executions == 6);
  // a has 3 steps, b one: b goes before a (0), after a0 (1), after a1 (1), after a2 (0): 2 then 4.
  CHECK(bounded(0, {stepper("a", 3), stepper("b", 1)}).executions == 2);
  CHECK(bounded(1, {stepper("a", 3), stepper("b", 1)}).executions == 4);
}

TEST_CASE("bound: three actors of two steps, bound 1", "[bound]") {
  // Counted by hand over the 90 interleavings of aabbcc (a switch is a preemption when the actor switched
  // away from has a step left): 6 with no preemption, 18 with one, 36 with two, 30 with three.
  Explored b0 = bounded(0, {stepper("a", 2), stepper("b", 2), stepper("c", 2)});
  Explored b1 = bounded(1, {stepper("a", 2), stepper("b", 2), stepper("c", 2)});
  CHECK(b0.executions == 6);
  CHECK(b1.executions == 6 + 18);
  CHECK(b1.distinct_logs.size() == b1.executions);
  CHECK(bounded(2, {stepper("a", 2), stepper("b", 2), stepper("c", 2)}).executions == 6 + 18 + 36);
  CHECK(bounded(3, {stepper("a", 2), stepper("b", 2), stepper("c", 2)}).executions == 90);
}

TEST_CASE("bound: prefixes under a bound partition the bounded tree, checkpoints resume it", "[bound]") {
  const auto make = world_of({stepper("a", 2), stepper("b", 2), stepper("c", 1)});
  DfsStrategy whole(DfsOptions{.preemption_bound = 1});
  Explored ref = explore_all(whole, make);
  Engine engine;
  std::set<std::string> all;
  uint64_t total = 0;
  for (const auto& p : enumerate_prefixes(engine, make, 2, 1)) {
    DfsStrategy sub(DfsOptions{.preemption_bound = 1, .prefix = p});
    Explored e = explore_all(sub, make);
    total += e.executions;
    for (const auto& s : e.schedules) all.insert(text(s));
  }
  CHECK(total == ref.executions);
  std::set<std::string> want;
  for (const auto& s : ref.schedules) want.insert(text(s));
  CHECK(all == want);

  DfsStrategy first(DfsOptions{.preemption_bound = 1});
  Explored a = explore_all(first, make, 5);
  DfsStrategy second(DfsOptions{.preemption_bound = 1});
  second.restore(first.save());
  Explored b = explore_all(second, make);
  CHECK(a.executions + b.executions == ref.executions);
  CHECK(b.schedules.back() == ref.schedules.back());
}

// `dfs`: exact execution counts on tiny worlds, the order, draws as choices, blocking, prefixes, checkpoints.
#include <catch2/catch.hpp>

#include "sim/strategies/dfs.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

TEST_CASE("dfs: two actors of two steps give C(4,2) = 6 executions, all distinct", "[dfs]") {
  DfsStrategy dfs;
  Explored e = explore_all(dfs, world_of({stepper("a", 2), stepper("b", 2)}));
  CHECK(e.stopped_by_strategy);
  CHECK(dfs.exhausted());
  CHECK(e.executions == 6);
  CHECK(e.distinct_logs.size() == 6);
  // Depth-first, lowest actor first: the first is a then b, the last b then a.
  CHECK(e.logs.front() == std::vector<std::string>{"a0", "a1", "b0", "b1"});
  CHECK(e.logs[1] == std::vector<std::string>{"a0", "b0", "a1", "b1"});
  CHECK(e.logs.back() == std::vector<std::string>{"b0", "b1", "a0", "a1"});
}

TEST_CASE("dfs: three actors of one step give 3! = 6, 2+2+1 steps give 5!/(2!2!1!) = 30", "[dfs]") {
  DfsStrategy a;
  CHECK(explore_all(a, world_of({stepper("a", 1), stepper("b", 1), stepper("c", 1)})).executions == 6);
  DfsStrategy b;
  Explored e = explore_all(b, world_of({stepper("a", 2), stepper("b", 2), stepper("c", 1)}));
  CHECK(e.executions == 30);
  CHECK(e.distinct_logs.size() == 30);
}

TEST_CASE("dfs: a draw(3) inside a step is branched under every schedule: 6 x 3 = 18", "[dfs]") {
  TestWorld::Actor a{"a", [](TestWorld& w, ActorContext& ctx) {
                       ctx.point(PointKind::Call, "call", "0");
                       w.log.push_back("a0=" + std::to_string(ctx.draw(3)));
                       ctx.point(PointKind::Call, "call", "1");
                       w.log.push_back("a1");
                     }};
  DfsStrategy dfs;
  Explored e = explore_all(dfs, world_of({a, stepper("b", 2)}));
  CHECK(e.executions == 18);
  CHECK(e.distinct_logs.size() == 18);
  // Deepest node first: the three orders of a1 among b0 b1 under draw 0, then draw 1.
  CHECK(e.schedules[0] == std::vector<Choice>{{Choice::Actor, 0},
                                              {Choice::Draw, 0},
                                              {Choice::Actor, 0},
                                              {Choice::Actor, 1},
                                              {Choice::Actor, 1}});
  CHECK(text(e.schedules[1]) == "a0 d0 a1 a0 a1");
  CHECK(text(e.schedules[3]) == "a0 d1 a0 a1 a1");
}

TEST_CASE("dfs: with a SimMutex held across a barrier, two lockers give 4 executions", "[dfs]") {
  // Per first actor (say a): after a's first step (a holds the lock at `inside`), either a finishes and then b
  // runs alone (a a b b), or b's first step blocks on the lock, a must finish, then b (a b a b b): 2 x 2 = 4.
  DfsStrategy dfs;
  Explored e = explore_all(dfs, world_of({locker("a"), locker("b")}));
  CHECK(e.executions == 4);
  CHECK(e.distinct_logs.size() == 2);  // the effects only ever come in the two lock orders
  CHECK(e.violations.empty());
}

TEST_CASE("dfs: prefixes at a depth partition the tree, each subtree explores its share", "[dfs]") {
  const auto make = world_of({stepper("a", 2), stepper("b", 2), stepper("c", 1)});
  Engine engine;
  for (size_t depth : {1u, 2u, 3u}) {
    const auto prefixes = enumerate_prefixes(engine, make, depth);
    std::set<std::string> all;
    uint64_t total = 0;
    for (const auto& p : prefixes) {
      DfsStrategy sub(DfsOptions{.prefix = p});
      Explored e = explore_all(sub, make);
      total += e.executions;
      for (const auto& s : e.schedules) {
        CHECK(std::equal(p.begin(), p.end(), s.begin()));
        all.insert(text(s));
      }
    }
    CHECK(total == 30);
    CHECK(all.size() == 30);
  }
  CHECK(enumerate_prefixes(engine, make, 1).size() == 3);
  // After a or b, all three can run; after c (one step, done) only a and b: 3 + 3 + 2.
  CHECK(enumerate_prefixes(engine, make, 2).size() == 8);
}

TEST_CASE("dfs: a checkpoint taken between executions resumes exactly where it stopped", "[dfs]") {
  const auto make = world_of({stepper("a", 2), stepper("b", 2), stepper("c", 1)});
  DfsStrategy whole;
  Explored ref = explore_all(whole, make);
  for (uint64_t cut : {1u, 7u, 29u}) {
    DfsStrategy first;
    Explored a = explore_all(first, make, cut);
    const std::string saved = first.save().dump();
    DfsStrategy second;
    second.restore(nlohmann::json::parse(saved));
    Explored b = explore_all(second, make);
    std::vector<std::vector<Choice>> joined = a.schedules;
    joined.insert(joined.end(), b.schedules.begin(), b.schedules.end());
    CHECK(joined == ref.schedules);
  }
  DfsStrategy bad;
  CHECK_THROWS_AS(bad.restore(nlohmann::json{{"schema", "nope"}}), std::invalid_argument);
}

TEST_CASE("dfs: a prefix that does not fit the world is an error, not a silent empty run", "[dfs]") {
  DfsStrategy dfs(DfsOptions{.prefix = {{Choice::Actor, 5}}});
  CHECK_THROWS_AS(explore_all(dfs, world_of({stepper("a", 1)})), std::logic_error);
}

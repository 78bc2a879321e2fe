// DPOR (source sets + sleep sets): exact counts on tiny worlds, one execution per Mazurkiewicz trace where the
// theory promises it, and never fewer traces than plain DFS. The default has sleep sets; `source` runs source
// sets alone, to pin what sleep sets save.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {

// dpor: the default (source sets and sleep sets); source: source sets alone.
struct Both {
  Explored dfs, dpor, source;
};

Both both(std::vector<TestWorld::Actor> actors) {
  DfsStrategy d;
  DporStrategy p;
  DporStrategy s(DporOptions{.sleep_sets = false});
  const auto make = world_of(std::move(actors));
  Both b{explore_all(d, make), explore_all(p, make), explore_all(s, make)};
  CHECK(b.dpor.stopped_by_strategy);
  CHECK(b.dfs.traces == b.dpor.traces);  // DPOR covers every trace DFS sees
  CHECK(b.dfs.traces == b.source.traces);
  CHECK(b.dpor.executions <= b.source.executions);
  CHECK(b.source.executions <= b.dfs.executions);
  return b;
}

}  // namespace

TEST_CASE("dpor: two actors on disjoint objects: 1 execution where dfs needs 6", "[dpor]") {
  Both b = both({toucher("a", {{X}, {X}}), toucher("b", {{Y}, {Y}})});
  CHECK(b.dfs.executions == 6);
  CHECK(b.dfs.traces == 1);
  CHECK(b.dpor.executions == 1);
  CHECK(b.source.executions == 1);
}

TEST_CASE("dpor: two actors writing one object: both orders appear", "[dpor]") {
  Both b = both({toucher("a", {{X}}), toucher("b", {{X}})});
  CHECK(b.dfs.executions == 2);
  CHECK(b.dpor.executions == 2);
  CHECK(b.dpor.distinct_logs == std::set<std::vector<std::string>>{{"a0", "b0"}, {"b0", "a0"}});
}

TEST_CASE("dpor: reads commute, writes do not", "[dpor]") {
  // a and b read X, c writes it: the traces are c's place relative to a and to b: 2 x 2 = 4.
  Both reads = both({toucher("a", {{X, false}}), toucher("b", {{X, false}}), toucher("c", {{X, true}})});
  CHECK(reads.dfs.executions == 6);
  CHECK(reads.dfs.traces == 4);
  CHECK(reads.dpor.executions == 4);
  CHECK(reads.source.executions == 5);  // without sleep sets one trace is explored twice
  // Only reads: one trace.
  Both none = both({toucher("a", {{X, false}}), toucher("b", {{X, false}})});
  CHECK(none.dpor.executions == 1);
}

TEST_CASE("dpor: three actors in a chain of conflicts: 4 traces of 30 schedules", "[dpor]") {
  // a writes X then Z; b writes Y then X; c reads Z. a and b conflict on X, a and c on Z.
  Both b = both({toucher("a", {{X}, {Z}}), toucher("b", {{Y}, {X}}), toucher("c", {{Z, false}})});
  CHECK(b.dfs.executions == 30);
  // a0 vs b1 on X (2 orders) and a1 vs c0 on Z (2 orders), constrained by program order: a0<a1, b0<b1.
  // All four combinations are possible, so 4 traces.
  CHECK(b.dfs.traces == 4);
  CHECK(b.dpor.executions == 4);
  CHECK(b.source.executions == 9);
  // Three writers of one object: all 3! orders are distinct traces.
  Both w = both({toucher("a", {{X}}), toucher("b", {{X}}), toucher("c", {{X}})});
  CHECK(w.dpor.executions == 6);
  CHECK(w.source.executions == 6);
}

TEST_CASE("dpor: the mutex is a race: both lock orders, including the blocked waits", "[dpor]") {
  Both b = both({locker("a"), locker("b")});
  CHECK(b.dfs.executions == 4);
  CHECK(b.dfs.traces == 4);  // a blocked attempt is a step of its own, so a a b b and a b(blocked) a b b differ
  CHECK(b.dpor.executions == 4);
  // An independent third actor adds schedules, not traces.
  Both c = both({locker("a"), locker("b"), toucher("c", {{Z}})});
  CHECK(c.dfs.traces == 4);
  CHECK(c.dpor.executions == 4);
  CHECK(c.dfs.executions > 4);
}

TEST_CASE("dpor: draws are branched under every schedule prefix", "[dpor]") {
  // a draws 0..1 and writes X or Y accordingly; b writes X. Traces: draw 0 (X): 2 orders; draw 1 (Y): 1.
  TestWorld::Actor a{"a", [](TestWorld& w, ActorContext& ctx) {
                       ctx.point(PointKind::Call, "call", "0");
                       const uint64_t d = ctx.draw(2);
                       ctx.touch(d == 0 ? X : Y, true);
                       w.log.push_back("a=" + std::to_string(d));
                     }};
  Both b = both({a, toucher("b", {{X}})});
  CHECK(b.dfs.executions == 4);
  CHECK(b.dfs.traces == 3);
  CHECK(b.dpor.traces == 3);
  CHECK(b.dpor.executions <= 4);
}

TEST_CASE("dpor: a violation cut short does not hide the other order's violation", "[dpor]") {
  // a writes X, b writes Y; the invariant fails after the first write, naming who went first. The execution
  // that runs a first stops before b ever runs; DPOR must still try b first.
  const auto make = [] {
    auto w = std::make_unique<TestWorld>();
    w->actors = {toucher("a", {{X}}), toucher("b", {{Y}})};
    w->invariant = [](TestWorld& t) -> std::optional<Violation> {
      if (t.log.size() == 1) return Violation{t.log[0] == "a0" ? "a-first" : "b-first", "", ""};
      return std::nullopt;
    };
    return w;
  };
  DporStrategy p;
  Explored e = explore_all(p, make);
  CHECK(e.violations == std::set<std::string>{"a-first", "b-first"});
  CHECK(e.executions == 2);
}

TEST_CASE("dpor: the halt races every step, even when its actor has finished", "[dpor]") {
  // a writes Y, b writes X; the invariant fails once b has written, whether or not a ran. Explored first:
  // "a0 b0", cut short with both actors finished. "b0" alone (the halt before a0) is another trace: the halt
  // belongs to b, the violating actor, and races a0 although b has no step left. Dropping every finished
  // actor's unseen step, b's included, lost it.
  const auto make = [] {
    auto w = std::make_unique<TestWorld>();
    w->actors = {toucher("a", {{Y}}), toucher("b", {{X}})};
    w->invariant = [](TestWorld& t) -> std::optional<Violation> {
      if (std::find(t.log.begin(), t.log.end(), "b0") == t.log.end()) return std::nullopt;
      return Violation{"b-wrote", "", ""};
    };
    return w;
  };
  DfsStrategy d;
  DporStrategy p;
  const Explored dfs = explore_all(d, make), dpor = explore_all(p, make);
  CHECK(dfs.distinct_logs == std::set<std::vector<std::string>>{{"a0", "b0"}, {"b0"}});
  CHECK(dpor.distinct_logs == dfs.distinct_logs);
  CHECK(dpor.executions == 2);
}

TEST_CASE("dpor: a checkpoint resumes exactly where it stopped", "[dpor]") {
  const auto make = world_of({toucher("a", {{X}, {Z}}), toucher("b", {{Y}, {X}}), toucher("c", {{X}})});
  DporStrategy whole;
  Explored ref = explore_all(whole, make);
  REQUIRE(ref.executions > 3);
  DporStrategy first;
  Explored a = explore_all(first, make, 2);
  DporStrategy second;
  second.restore(nlohmann::json::parse(first.save().dump()));
  Explored b = explore_all(second, make);
  std::vector<std::vector<Choice>> joined = a.schedules;
  joined.insert(joined.end(), b.schedules.begin(), b.schedules.end());
  CHECK(joined == ref.schedules);
}

TEST_CASE("dpor: subtrees under the dfs prefixes cover every trace", "[dpor]") {
  const auto make = world_of({toucher("a", {{X}, {Z}}), toucher("b", {{Y}, {X}}), toucher("c", {{X}})});
  DfsStrategy d;
  const uint64_t traces = explore_all(d, make).traces;
  Engine engine;
  TraceCounter all;
  Engine fp(EngineOptions{.record_footprints = true});
  for (const auto& prefix : enumerate_prefixes(engine, make, 2)) {
    DporStrategy sub(DporOptions{.prefix = prefix});
    for (bool more = true; more;) {
      sub.begin_execution(0);
      auto w = make();
      ExecutionResult r = fp.run(*w, sub);
      all.add(r);
      more = sub.end_execution(r);
    }
  }
  CHECK(all.distinct() == traces);
}

TEST_CASE("dpor: a checkpoint with draws resumes exactly where it stopped, at every execution", "[dpor]") {
  // Sleep entries per draw combination and draw nodes' steps are part of the saved state (v2).
  const std::vector<std::vector<LockOp>> progs = {{{4, 1, true}, {0, 3, true}},
                                                  {{0, 1, true}, {4, 2, false}},
                                                  {{4, 2, true}}};
  const auto make = world_of(actors_of(progs));
  DporStrategy whole;
  const Explored ref = explore_all(whole, make);
  DfsStrategy d;
  CHECK(ref.traces == explore_all(d, make).traces);
  REQUIRE(ref.executions > 10);
  for (uint64_t k = 1; k < ref.executions; ++k) {
    DporStrategy first;
    const Explored a = explore_all(first, make, k);
    const nlohmann::json state = first.save();
    CHECK(state.at("schema") == "allocsim/dpor-state/v2");
    DporStrategy second;
    second.restore(nlohmann::json::parse(state.dump()));
    const Explored b = explore_all(second, make);
    std::vector<std::vector<Choice>> joined = a.schedules;
    joined.insert(joined.end(), b.schedules.begin(), b.schedules.end());
    CHECK(joined == ref.schedules);
  }
}

TEST_CASE("dpor: a v1 checkpoint (sleep entries over every draw) still resumes to every trace", "[dpor]") {
  const std::vector<std::vector<LockOp>> progs = {{{4, 1, true}}, {{0, 1, true}}, {{0, 2, true}}, {{4, 2, true}}};
  const auto make = world_of(actors_of(progs));
  DfsStrategy d;
  const Explored all = explore_all(d, make);
  for (uint64_t k = 1; k < 6; ++k) {
    DporStrategy first;
    const Explored a = explore_all(first, make, k);
    nlohmann::json state = first.save();
    // What the older version wrote: no "any"/"draws" per entry, no "step_node" per node.
    state["schema"] = "allocsim/dpor-state/v1";
    for (auto& node : state["stack"]) {
      node.erase("step_node");
      for (const char* list : {"sleep", "explored"})
        for (auto& e : node[list]) e.erase("any"), e.erase("draws");
    }
    DporStrategy second;
    second.restore(state);
    const Explored b = explore_all(second, make);
    std::set<std::vector<std::string>> logs = a.distinct_logs;
    logs.insert(b.distinct_logs.begin(), b.distinct_logs.end());
    CHECK(logs == all.distinct_logs);
  }
}

TEST_CASE("dpor: a malformed state names what is wrong", "[dpor]") {
  const auto make = world_of(actors_of({{{4, 1, true}}, {{0, 1, true}}}));
  DporStrategy first;
  explore_all(first, make, 1);
  nlohmann::json state = first.save();
  DporStrategy second;
  nlohmann::json bad = state;
  bad["schema"] = "allocsim/dpor-state/v3";
  CHECK_THROWS_WITH(second.restore(bad), Catch::Contains("not an allocsim/dpor-state/v2"));
  bad = state;
  bad["stack"][1]["c"] = "d7";  // the draw node after actor 0's choice: draw(2) cannot give 7
  CHECK_THROWS_WITH(second.restore(bad), Catch::Contains("draw node 1 does not fit the stack"));
}

// `order` constraints (sim/order.h) and their enforcement in the engine (sim/engine.h): parsing and its
// errors, the filter (strategies see only eligible actors), order-blocked executions, the single-schedule
// stop, and DPOR against plain DFS under random orders.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <iostream>

#include "sim/order.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "sim/strategies/random.h"
#include "sim/strategies/replay.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {

const std::vector<std::string> kAB = {"a", "b"};

OrderSpec order_of(const std::string& json, const std::vector<std::string>& actors = kAB) {
  return parse_order(nlohmann::ordered_json::parse(json), actors);
}

std::string order_error(const std::string& json, const std::vector<std::string>& actors = kAB) {
  try {
    order_of(json, actors);
  } catch (const OrderError& e) {
    return e.what();
  }
  return "(no error)";
}

/// A TestWorld whose executions follow `spec`.
struct OrderedWorld : TestWorld {
  const OrderSpec* spec = nullptr;
  const OrderSpec* order() const override { return spec; }
};

std::function<std::unique_ptr<TestWorld>()> ordered(std::vector<TestWorld::Actor> actors, const OrderSpec& spec) {
  return [actors, &spec] {
    auto w = std::make_unique<OrderedWorld>();
    w->actors = actors;
    w->spec = &spec;
    return std::unique_ptr<TestWorld>(std::move(w));
  };
}

}  // namespace

TEST_CASE("order: labels parse to actor ids, the occurrence defaulting to 1", "[order]") {
  const OrderSpec o = order_of(R"([["b:delete.before#2", "a:owner.update.after"]])");
  REQUIRE(o.constraints.size() == 1);
  CHECK(o.constraints[0].before == StepLabel{1, "b", "delete.before", 2});
  CHECK(o.constraints[0].after == StepLabel{0, "a", "owner.update.after", 1});
  CHECK(o.constraints[0].text() == R"(["b:delete.before#2", "a:owner.update.after#1"])");
  CHECK(order_json(o).dump() == R"([["b:delete.before#2","a:owner.update.after#1"]])");
}

TEST_CASE("order: malformed blocks name the pointer and what is wrong", "[order]") {
  CHECK(order_error(R"({"a": 1})") == R"(expected an array of ["ACTOR:POINT#N", "ACTOR:POINT#N"] pairs, got object)");
  CHECK(order_error(R"([["a:p"]])") == "/0: expected a pair [X, Y] of labels, got 1 element");
  CHECK(order_error(R"([["a:p", "b:q", "c:r"]])") == "/0: expected a pair [X, Y] of labels, got 3 elements");
  CHECK(order_error(R"([["a:p", 3]])") == "/0/1: expected a label string, got number");
  CHECK(order_error(R"([["a:p", "bp"]])") ==
        R"(/0/1: label "bp": no ':' between actor and point (expected ACTOR:POINT or ACTOR:POINT#N, N >= 1))");
  CHECK(order_error(R"([["c:p", "b:q"]])") == R"(/0/0: label "c:p": unknown actor "c" (actors: a, b))");
  CHECK(order_error(R"([["a:p#0", "b:q"]])") ==
        R"(/0/0: label "a:p#0": occurrence #0 is out of range (expected ACTOR:POINT or ACTOR:POINT#N, N >= 1))");
  // Past 2^32 - 1, and past 2^64 too: a number, out of range.
  CHECK(order_error(R"([["a:p#4294967296", "b:q"]])") ==
        R"(/0/0: label "a:p#4294967296": occurrence #4294967296 is out of range (expected ACTOR:POINT or )"
        R"(ACTOR:POINT#N, N >= 1))");
  CHECK(order_error(R"([["a:p#99999999999999999999999", "b:q"]])") ==
        R"(/0/0: label "a:p#99999999999999999999999": occurrence #99999999999999999999999 is out of range )"
        R"((expected ACTOR:POINT or ACTOR:POINT#N, N >= 1))");
  CHECK(order_error(R"([["a:p#x", "b:q"]])") ==
        R"(/0/0: label "a:p#x": occurrence "x" is not a whole number (expected ACTOR:POINT or ACTOR:POINT#N, N >= 1))");
  CHECK(order_error(R"([["a:#1", "b:q"]])") ==
        R"(/0/0: label "a:#1": empty point (expected ACTOR:POINT or ACTOR:POINT#N, N >= 1))");
  CHECK(order_error(R"([["a:p", "a:p#1"]])") == "/0: a step cannot come before itself (a:p#1 twice)");
}

TEST_CASE("order: with a point vocabulary, a point the actor never resumes from is refused", "[order]") {
  PointVocabulary points{{{"reserve", "delete.before", "lock.wait"}, {"release", "lock.wait"}}};
  const auto error = [&](const std::string& json) -> std::string {
    try {
      parse_order(nlohmann::ordered_json::parse(json), kAB, &points);
    } catch (const OrderError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const OrderSpec ok =
      parse_order(nlohmann::ordered_json::parse(R"([["a:delete.before#2", "b:lock.wait"]])"), kAB, &points);
  CHECK(ok.constraints.size() == 1);
  CHECK(error(R"([["a:reserve", "b:relase"]])") ==
        R"(/0/1: label "b:relase": actor "b" never resumes from point "relase" (did you mean "release"?))");
  // A near miss of an actor's name gets a suggestion instead of the list.
  CHECK(error(R"([["A:reserve", "b:release"]])") ==
        R"(/0/0: label "A:reserve": unknown actor "A" (did you mean "a"?))");
  // Another actor's point is not this one's.
  CHECK(error(R"([["a:release", "b:release"]])") ==
        R"(/0/0: label "a:release": actor "a" never resumes from point "release" (expected one of )"
        R"("reserve", "delete.before", "lock.wait"))");
  // A name the world can explain (an op whose calls have other names, a call this actor never makes) gets the
  // world's sentence instead of a suggestion.
  points.explain = [](ActorId actor, std::string_view point) -> std::string {
    return point == "await" ? fmt::format("actor #{} polls with observe", actor) : "";
  };
  CHECK(error(R"([["a:reserve", "b:await"]])") ==
        R"(/0/1: label "b:await": actor "b" never resumes from point "await" (actor #1 polls with observe))");
  CHECK(error(R"([["a:reserve", "b:relase"]])") ==
        R"(/0/1: label "b:relase": actor "b" never resumes from point "relase" (did you mean "release"?))");
  // Without a vocabulary (a block recorded from a trace) any point parses.
  CHECK(order_of(R"([["a:anything", "b:else"]])").constraints.size() == 1);
}

TEST_CASE("order: a cycle is refused at parse time, naming its constraints", "[order]") {
  CHECK(order_error(R"([["a:p", "b:q"], ["b:r", "a:s"], ["b:q", "a:p"]])") ==
        R"(no execution can satisfy these constraints: they form a cycle: ["a:p#1", "b:q#1"], ["b:q#1", "a:p#1"])");
  // Through an actor's own occurrences: a:p#1 always precedes a:p#2.
  CHECK(order_error(R"([["a:p#2", "b:q"], ["b:q", "a:p#1"]])") ==
        "no execution can satisfy these constraints: they form a cycle (with an actor's own occurrences of a point "
        R"(in order): ["a:p#2", "b:q#1"], ["b:q#1", "a:p#1"])");
  CHECK_NOTHROW(order_of(R"([["a:p#1", "b:q"], ["b:q", "a:p#2"]])"));
}

TEST_CASE("order: remap_order drops constraints of a removed actor and renumbers the rest", "[order]") {
  const OrderSpec o = order_of(R"([["a:p", "b:q"], ["c:r", "b:s"]])", {"a", "c", "b"});
  const OrderSpec r = remap_order(o, {"c", "b"});
  REQUIRE(r.constraints.size() == 1);
  CHECK(r.constraints[0].before == StepLabel{0, "c", "r", 1});
  CHECK(r.constraints[0].after == StepLabel{1, "b", "s", 1});
}

TEST_CASE("order: dfs explores exactly the schedules that satisfy the order", "[order]") {
  // b's second call before a's first: of the 20 interleavings of two 3-call actors, b0 b1 come first and
  // a0 a1 a2 interleave with b2: 4 schedules.
  const OrderSpec spec = order_of(R"([["b:call#2", "a:call#1"]])");
  DfsStrategy dfs;
  const Explored e = explore_all(dfs, ordered({stepper("a", 3), stepper("b", 3)}, spec));
  CHECK(e.executions == 4);
  CHECK(e.distinct_logs.size() == 4);
  for (const auto& log : e.logs) {
    REQUIRE(log.size() == 6);
    CHECK(log[0] == "b0");
    CHECK(log[1] == "b1");
  }
}

TEST_CASE("order: an X that never happens makes the execution order-blocked, and it runs out", "[order]") {
  const OrderSpec spec = order_of(R"([["a:nowhere", "b:call#1"]])");
  Engine engine;
  RandomStrategy random;
  random.begin_execution(1);
  auto w = ordered({stepper("a", 2), stepper("b", 2)}, spec)();
  const ExecutionResult r = engine.run(*w, random);
  // a's two steps under the order; then b, held back for good, runs out without it.
  CHECK(w->log == std::vector<std::string>{"a0", "a1", "b0", "b1"});
  CHECK_FALSE(r.violation);
  CHECK(r.quiescent);
  REQUIRE(r.order_blocked);
  CHECK(r.order_blocked->constraint == 0);
  CHECK(r.order_blocked->step == 2);
  CHECK(r.order_blocked->unfinished == std::vector<ActorId>{1});
  CHECK(
      r.order_blocked->message ==
      R"(constraint ["a:nowhere#1", "b:call#1"] was never met (a:nowhere#1 did not happen before b:call#1: a ended first))");
  // The run-out records no choice (the schedule ends at the block) and preempts nobody.
  CHECK(r.schedule == std::vector<Choice>{{Choice::Actor, 0}, {Choice::Actor, 0}});
  CHECK(r.steps.size() == 4);
  CHECK(r.preemptions == 0);
  CHECK(r.unfinished.empty());
}

namespace {

/// A strategy that fails the test if it is asked anything after `allowed` questions.
struct CountingStrategy final : Strategy {
  RandomStrategy inner;
  uint64_t asked = 0, allowed = 0;
  void begin_execution(uint64_t seed) override { inner.begin_execution(seed); }
  ActorId choose(std::span<const Candidate> options, ActorId current) override {
    if (++asked > allowed) throw std::logic_error("asked to choose during the run-out");
    return inner.choose(options, current);
  }
  uint64_t draw(uint64_t bound) override {
    if (++asked > allowed) throw std::logic_error("asked to draw during the run-out");
    return inner.draw(bound);
  }
  bool end_execution(const ExecutionResult& r) override { return inner.end_execution(r); }
};

}  // namespace

TEST_CASE("order: a run-out asks the strategy nothing, draws 0, and is judged at quiescence", "[order]") {
  // b draws among 3 values at each of its calls: 0 in the run-out whatever the strategy would pick. The
  // quiescence check fires on the run-out's end state: an order does not hide it.
  const OrderSpec spec = order_of(R"([["a:nowhere", "b:call#1"]])");
  auto w = ordered({stepper("a", 1),
                    {"b",
                     [](TestWorld& tw, ActorContext& ctx) {
                       for (int i = 0; i < 2; ++i) {
                         ctx.point(PointKind::Call, "call", "");
                         tw.log.push_back("b drew " + std::to_string(ctx.draw(3)));
                       }
                     }}},
                   spec)();
  w->at_quiescence = [](TestWorld& tw) -> std::optional<Violation> {
    return Violation{"q-check", "judged after " + std::to_string(tw.log.size()) + " effects", ""};
  };
  Engine engine;
  CountingStrategy strategy;
  strategy.allowed = 1;  // the one choice before the block: a's call
  strategy.begin_execution(7);
  const ExecutionResult r = engine.run(*w, strategy);
  CHECK(strategy.asked == 1);
  CHECK(w->log == std::vector<std::string>{"a0", "b drew 0", "b drew 0"});
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "q-check");
  CHECK(r.violation->message == "judged after 3 effects");
  REQUIRE(r.order_blocked);
  CHECK(r.order_blocked->step == 1);
  CHECK(r.schedule == std::vector<Choice>{{Choice::Actor, 0}});
}

TEST_CASE("order: a lock leaked under an order ends in no-deadlock, not as an unmet order", "[order]") {
  // a takes the lock and ends holding it; b waits for it; c is held back until b's second call, which never
  // comes. The order blocks, the run-out runs c, and then only the waiter is left: a deadlock.
  const OrderSpec spec = order_of(R"([["b:call#2", "c:call#1"]])", {"a", "b", "c"});
  auto w = ordered({{"a",
                     [](TestWorld& tw, ActorContext& ctx) {
                       ctx.point(PointKind::Call, "call", "");
                       tw.mutex.lock(ctx);
                     }},
                    {"b",
                     [](TestWorld& tw, ActorContext& ctx) {
                       ctx.point(PointKind::Call, "call", "");
                       tw.mutex.lock(ctx);
                       ctx.point(PointKind::Call, "call", "");
                       tw.mutex.unlock();
                     }},
                    stepper("c", 1)},
                   spec)();
  Engine engine;
  ReplayStrategy replay({{Choice::Actor, 0}, {Choice::Actor, 1}}, {"a", "b", "c"});
  replay.begin_execution(0);
  const ExecutionResult r = engine.run(*w, replay);
  CHECK_FALSE(replay.divergence());
  REQUIRE(r.order_blocked);
  CHECK(r.order_blocked->step == 2);
  CHECK_THAT(r.order_blocked->message, Catch::Contains("b was waiting for a lock"));
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "no-deadlock");
  CHECK(r.violation->state == "b waits for the lock held by a (finished while holding it)\n");
  CHECK(w->log == std::vector<std::string>{"c0"});
}

TEST_CASE("order: a full pin leaves one schedule, and every strategy stops after it", "[order]") {
  // a0 b0 b1 a1: [a:call#1, b:call#1], [b:call#2, a:call#2].
  const OrderSpec spec = order_of(R"([["a:call#1", "b:call#1"], ["b:call#2", "a:call#2"]])");
  const auto make = ordered({stepper("a", 2), stepper("b", 2)}, spec);
  Engine engine;
  RandomStrategy random;
  const ExploreSummary sum = explore(
      engine, [&] { return std::unique_ptr<World>(make()); }, random, ExploreOptions{.executions = 100});
  CHECK(sum.executions == 1);
  CHECK(sum.single_schedule);
  DporStrategy dpor;
  const Explored e = explore_all(dpor, make);
  CHECK(e.executions == 1);
  CHECK(e.logs[0] == std::vector<std::string>{"a0", "b0", "b1", "a1"});
}

TEST_CASE("order: without an order, no execution is order-blocked or single-schedule", "[order]") {
  Engine engine;
  RandomStrategy random;
  random.begin_execution(0);
  auto w = world_of({stepper("a", 1)})();
  const ExecutionResult r = engine.run(*w, random);
  CHECK(r.quiescent);
  CHECK_FALSE(r.order_blocked);
  CHECK_FALSE(r.single_schedule);  // one actor, one option at each choice: still not claimed without an order
}

TEST_CASE("order: a replayed schedule that breaks the order diverges", "[order]") {
  const OrderSpec spec = order_of(R"([["a:call#1", "b:call#1"]])");
  ReplayStrategy replay({{Choice::Actor, 1}, {Choice::Actor, 0}}, {"a", "b"});
  Engine engine;
  replay.begin_execution(0);
  auto w = ordered({stepper("a", 1), stepper("b", 1)}, spec)();
  engine.run(*w, replay);
  REQUIRE(replay.divergence());
  CHECK(*replay.divergence() == "choice 0: the schedule runs b, which cannot run here (runnable: a)");
}

TEST_CASE("order: dpor sees the same traces as dfs under random orders on 600 lock-and-touch programs", "[order]") {
  uint64_t dpor_executions = 0, dfs_executions = 0, traces = 0, blocked_programs = 0;
  for (uint64_t seed = 0; seed < 600; ++seed) {
    const int n = 2 + (seed % 3 == 0);
    std::string desc;
    const auto progs = random_lock_program(seed, n, desc);
    // One or two constraints between call points of different actors (occurrences within the program).
    Prng g(seed ^ 0x5eed);
    std::vector<std::string> names;
    std::vector<int> calls(size_t(n), 0);
    for (int a = 0; a < n; ++a) {
      names.push_back(std::to_string(a));
      for (const LockOp& o : progs[size_t(a)]) calls[size_t(a)] += o.kind == 0;
    }
    nlohmann::ordered_json block = nlohmann::ordered_json::array();
    const int count = 1 + int(g.below(2));
    for (int k = 0; k < count; ++k) {
      const int x = int(g.below(uint64_t(n))), y = (x + 1 + int(g.below(uint64_t(n - 1)))) % n;
      block.push_back({names[size_t(x)] + ":call#" + std::to_string(1 + g.below(uint64_t(calls[size_t(x)]))),
                       names[size_t(y)] + ":call#" + std::to_string(1 + g.below(uint64_t(calls[size_t(y)])))});
    }
    OrderSpec spec;
    try {
      spec = parse_order(block, names);
    } catch (const OrderError&) {
      continue;  // a cycle: refused before anything runs
    }
    DfsStrategy d;
    DporStrategy q;
    const auto make = ordered(actors_of(progs), spec);
    const Explored a = explore_all(d, make), b = explore_all(q, make);
    if (a.traces != b.traces || b.executions > a.executions) {
      std::cout << "seed " << seed << " order " << block.dump() << " dfs traces " << a.traces << " dpor traces "
                << b.traces << " dpor execs " << b.executions << "\n"
                << desc;
      FAIL();
    }
    dfs_executions += a.executions;
    dpor_executions += b.executions;
    traces += b.traces;
    blocked_programs += a.executions < 1;
  }
  // Measured: 2597 DPOR executions for 2597 traces (1.00 per trace; 2882 before order-blocked executions ran
  // out, when a blocked prefix's equivalent orderings each counted as a trace of its own). DPOR analyses an
  // order-blocked execution as cut short at its block, so its held-back actors' races are reversed
  // conservatively; plain DFS ran 38,720.
  std::cout << "order differential: dfs " << dfs_executions << ", dpor " << dpor_executions << ", traces " << traces
            << "\n";
  CHECK(dpor_executions < dfs_executions);
  CHECK(dpor_executions * 100 <= traces * 112);
  CHECK(blocked_programs == 0);
}

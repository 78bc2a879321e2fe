// ALLOCSIM_ASSERT at the engine's and the strategies' contracts (sim/assert.h): each check fires. The
// handler is replaced by one that records the message and throws, so no death test is needed.
#include <catch2/catch.hpp>

#include <string>

#include "sim/assert.h"
#include "sim/engine.h"
#include "sim/prng.h"
#include "sim/strategies/random.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::stepper;
using allocsim::sim::testing::TestWorld;

namespace {

std::string g_fired;  // the last failed assertion's message

void recording_handler(const char* condition, const char* file, int line, const std::string& message) {
  g_fired = message;
  throwing_assert_handler(condition, file, line, message);
}

/// Installs the recording handler for one test case and restores the previous one.
struct RecordAsserts {
  AssertHandler previous = set_assert_handler(recording_handler);
  RecordAsserts() { g_fired.clear(); }
  ~RecordAsserts() { set_assert_handler(previous); }
};

/// A broken strategy: picks `pick` whatever is runnable, draws `value` whatever the bound.
struct Broken : Strategy {
  ActorId pick = 0;
  uint64_t value = 0;
  void begin_execution(uint64_t) override {}
  ActorId choose(std::span<const Candidate>, ActorId) override { return pick; }
  uint64_t draw(uint64_t) override { return value; }
  bool end_execution(const ExecutionResult&) override { return false; }
};

}  // namespace

TEST_CASE("ALLOCSIM_ASSERT: the engine refuses a pick of an actor that cannot run", "[assert][engine]") {
  RecordAsserts guard;
  TestWorld w;
  w.actors = {stepper("a", 1), stepper("b", 3)};
  Broken s;  // always picks a: after a's one step, a has finished
  Engine engine;
  CHECK_THROWS_AS(engine.run(w, s), AssertionFailure);
  CHECK(g_fired == "the strategy chose actor 0, which is not runnable");
}

TEST_CASE("ALLOCSIM_ASSERT: the engine refuses a draw outside 0..bound-1", "[assert][engine]") {
  RecordAsserts guard;
  TestWorld w;
  w.actors = {{"a", [](TestWorld&, ActorContext& ctx) {
                 ctx.point(PointKind::Call, "call", "");
                 (void)ctx.draw(3);
               }}};
  Broken s;
  s.value = 3;
  Engine engine;
  // The draw happens inside the actor's step: the failure surfaces as that actor's exception.
  const ExecutionResult r = engine.run(w, s);
  CHECK(g_fired == "the strategy drew 3 outside [0, 3)");
  REQUIRE(r.violation);
  CHECK_THAT(r.violation->message, Catch::Contains("the strategy drew 3 outside [0, 3)"));
}

TEST_CASE("ALLOCSIM_ASSERT: an actor may not reach a point after reporting its crash", "[assert][engine]") {
  RecordAsserts guard;
  TestWorld w;
  w.actors = {{"a", [](TestWorld&, ActorContext& ctx) {
                 ctx.point(PointKind::Call, "call", "");
                 ctx.crashed("call");
                 ctx.point(PointKind::Call, "after", "");  // ActorContext::crashed's REQUIRES, broken
               }}};
  Broken s;
  Engine engine;
  // Inside the actor's step, as for a draw: the failure surfaces as that actor's exception.
  const ExecutionResult r = engine.run(w, s);
  CHECK(g_fired == "actor 0 reached a point after reporting its crash at call");
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "actor-exception");
}

TEST_CASE("ALLOCSIM_ASSERT: the PRNG refuses an empty range", "[assert][prng]") {
  RecordAsserts guard;
  Prng p(1);
  CHECK_THROWS_AS(p.below(0), AssertionFailure);
  CHECK(g_fired == "Prng::below(0): the range [0, 0) is empty");
  CHECK(p.below(1) == 0);  // a valid call passes the check
}

TEST_CASE("ALLOCSIM_ASSERT: without a handler installed, a failure aborts (default handler restored)", "[assert]") {
  { RecordAsserts guard; }
  // The guard restored the previous handler: installing ours again returns the default, not ours.
  const AssertHandler before = set_assert_handler(recording_handler);
  CHECK(before != recording_handler);
  set_assert_handler(before);
}

TEST_CASE("ALLOCSIM_ASSERT: a strategy asked to pick from no runnable actor fires", "[assert][strategy]") {
  RecordAsserts guard;
  RandomStrategy random;
  random.begin_execution(7);
  CHECK_THROWS_AS(random.choose({}, kNoActor), AssertionFailure);
  CHECK(g_fired == "Prng::below(0): the range [0, 0) is empty");
}

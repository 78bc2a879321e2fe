// sim::first_difference and sim::recheck_execution (sim/determinism.h): a deterministic world re-runs
// identically from its schedule; a world that leaks state between executions is caught, at the first
// step that differs.
#include <catch2/catch.hpp>

#include "sim/determinism.h"
#include "sim/strategies/random.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {

std::unique_ptr<World> two_steppers() {
  auto w = std::make_unique<TestWorld>();
  w->actors = {stepper("a", 3), stepper("b", 3)};
  return w;
}

ExecutionResult run_once(Engine& engine, const WorldFactory& make, uint64_t seed) {
  RandomStrategy random;
  random.begin_execution(seed);
  auto world = make();
  return engine.run(*world, random);
}

}  // namespace

TEST_CASE("recheck: a deterministic world re-runs identically from its schedule", "[sim][determinism]") {
  Engine engine;
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const ExecutionResult first = run_once(engine, two_steppers, seed);
    INFO(seed);
    CHECK(!recheck_execution(engine, two_steppers, first));
  }
}

TEST_CASE("recheck: state leaking between executions is found at its first differing step", "[sim][determinism]") {
  Engine engine;
  const ExecutionResult first = run_once(engine, leaking_world, 3);
  const auto d = recheck_execution(engine, leaking_world, first);
  REQUIRE(d.has_value());
  // b's second call carries the world's generation; it is b's second step in the schedule.
  size_t expected = 0, b_steps = 0;
  for (size_t i = 0; i < first.steps.size(); ++i)
    if (first.steps[i].actor == 1 && ++b_steps == 2) expected = i;
  CHECK(d->step == expected);
  CHECK_THAT(d->to_string(), Catch::Contains(std::to_string(d->step)));
  CHECK_THAT(d->to_string(), Catch::Contains("first run: b call call"));
}

TEST_CASE("first_difference: length and violation differences", "[sim][determinism]") {
  Engine engine;
  const ExecutionResult a = run_once(engine, two_steppers, 1);
  ExecutionResult shorter = a;
  shorter.steps.pop_back();
  const auto name = [](ActorId id) { return std::string(id == 0 ? "a" : "b"); };
  const auto d = first_difference(a, shorter, name);
  REQUIRE(d);
  CHECK(d->step == shorter.steps.size());
  CHECK_THAT(d->to_string(), Catch::Contains("ended after"));
  ExecutionResult violated = a;
  violated.violation = Violation{"x", "broken", ""};
  const auto v = first_difference(a, violated, name);
  REQUIRE(v);
  CHECK_THAT(v->to_string(), Catch::Contains("violation x: broken"));
  CHECK(!first_difference(a, a, name));
}

TEST_CASE("determinism: a Divergence prints its label, both versions, and the runnable actors by name",
          "[determinism]") {
  const Divergence d{3, "step 3", "first run: a call x", "second run: b call x", {}};
  CHECK(d.to_string() == "step 3: first run: a call x\n  second run: b call x");
  const Divergence r{1,
                     "choice 1",
                     "the schedule is followed",
                     "the schedule runs a, which cannot run here",
                     {"b", "c"}};
  CHECK(r.to_string() ==
        "choice 1: the schedule is followed\n  the schedule runs a, which cannot run here (runnable: b, c)");
}

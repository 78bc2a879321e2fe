// sim::explore stops at the next execution boundary once a signal is recorded (sim/interrupt.h).
#include <csignal>

#include <catch2/catch.hpp>

#include "sim/explorer.h"
#include "sim/interrupt.h"
#include "sim/strategies/random.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::stepper;
using allocsim::sim::testing::TestWorld;

namespace {

WorldFactory two_stepper_factory() {
  return [] {
    auto w = std::make_unique<TestWorld>();
    w->actors = {stepper("a", 2), stepper("b", 2)};
    return w;
  };
}

}  // namespace

TEST_CASE("explore: a signal recorded mid-run stops it after the execution in progress", "[explore][interrupt]") {
  RandomStrategy random;
  Engine engine;
  ExploreOptions opt;
  opt.executions = 100;
  uint64_t observed = 0;
  const ExploreSummary sum = explore(engine, two_stepper_factory(), random, opt,
                                     [&](uint64_t index, uint64_t, World&, const ExecutionResult&) {
                                       ++observed;
                                       if (index == 6) request_interrupt(SIGTERM);  // arrives during #6
                                     });
  CHECK(interrupt_signal() == SIGTERM);
  clear_interrupt();
  CHECK(interrupt_signal() == 0);
  CHECK(sum.interrupted);
  CHECK_FALSE(sum.paused);
  CHECK(sum.executions == 7);  // #0..#6: the one in progress finished, no further one started
  CHECK(observed == 7);
}

TEST_CASE("explore: without a signal nothing changes", "[explore][interrupt]") {
  RandomStrategy random;
  Engine engine;
  ExploreOptions opt;
  opt.executions = 20;
  const ExploreSummary sum = explore(engine, two_stepper_factory(), random, opt);
  CHECK_FALSE(sum.interrupted);
  CHECK(sum.executions == 20);
}

TEST_CASE("signal_name names the two signals a run stops on", "[interrupt]") {
  CHECK(signal_name(SIGINT) == "SIGINT");
  CHECK(signal_name(SIGTERM) == "SIGTERM");
  CHECK(signal_name(SIGHUP) == "signal 1");
}

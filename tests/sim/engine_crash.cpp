// sim::ActorCrash (sim/world.h): a crash ends only that actor, is recorded with its step, unwinds the
// actor's stack (so a SimMutex held through RAII is released), and is not a finding.
#include <catch2/catch.hpp>

#include <memory>

#include "sim/engine.h"
#include "sim/strategies/replay.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::picks;
using allocsim::sim::testing::TestWorld;

namespace {

/// Holds the world's mutex for its scope (the world's RAII lock guard).
struct Guard {
  SimMutex& m;
  Guard(SimMutex& mutex, ActorContext& ctx) : m(mutex) { m.lock(ctx); }
  ~Guard() { m.unlock(); }
};

}  // namespace

TEST_CASE("a crash ends the actor, releases what it held through RAII, and the others go on", "[engine][crash]") {
  int unwound = 0;
  struct Counter {
    int* n;
    ~Counter() { ++*n; }
  };
  TestWorld w;
  w.actors = {
      {"crasher",
       [&unwound](TestWorld& w, ActorContext& ctx) {
         Counter c{&unwound};
         Guard g(w.mutex, ctx);  // prologue: uncontended
         ctx.point(PointKind::Barrier, "inside", "k=v");
         throw ActorCrash{"inside"};
       }},
      {"waiter",
       [](TestWorld& w, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         w.mutex.lock(ctx);  // blocks until the crasher's guard lets go
         w.log.push_back("got the lock");
         w.mutex.unlock();
       }},
  };
  ReplayStrategy replay(picks({1, 0, 1}));
  Engine engine;
  replay.begin_execution(0);
  ExecutionResult r = engine.run(w, replay);
  CHECK_FALSE(replay.divergence());
  CHECK_FALSE(r.violation);  // a crash is not a finding
  CHECK(r.quiescent);        // crashed counts as ended
  REQUIRE(r.steps.size() == 3);
  CHECK(r.steps[0].what == "call");
  CHECK(r.steps[1].what == "inside");
  CHECK(r.steps[1].detail == "k=v crashed=inside");
  CHECK(r.steps[2].what == "lock.wait");
  REQUIRE(r.crashes.size() == 1);
  CHECK(r.crashes[0] == Crash{0, 1, "inside"});
  CHECK(unwound == 1);
  CHECK(w.log == std::vector<std::string>{"got the lock"});
  CHECK(w.mutex.holder() == kNoActor);
}

TEST_CASE("a crash the actor caught and reported with crashed() is the same crash, unwound no further",
          "[engine][crash]") {
  // The same world as above, except that the crasher catches its ActorCrash inside run_actor and returns.
  const auto world = [](bool thrown) {
    auto w = std::make_unique<TestWorld>();
    w->actors = {
        {"crasher",
         [thrown](TestWorld& w, ActorContext& ctx) {
           try {
             Guard g(w.mutex, ctx);
             ctx.point(PointKind::Barrier, "inside", "k=v");
             throw ActorCrash{"inside"};
           } catch (const ActorCrash& c) {
             if (thrown) throw;
             ctx.crashed(c.where);
           }
         }},
        {"waiter",
         [](TestWorld& w, ActorContext& ctx) {
           ctx.point(PointKind::Call, "call", "");
           w.mutex.lock(ctx);
           w.log.push_back("got the lock");
           w.mutex.unlock();
         }},
    };
    return w;
  };
  Engine engine;
  auto reported_world = world(false), thrown_world = world(true);
  ReplayStrategy a(picks({1, 0, 1})), b(picks({1, 0, 1}));
  const ExecutionResult reported = engine.run(*reported_world, a);
  const ExecutionResult thrown = engine.run(*thrown_world, b);
  REQUIRE(reported.crashes.size() == 1);
  CHECK(reported.crashes[0] == Crash{0, 1, "inside"});
  CHECK(reported.steps[1].detail == "k=v crashed=inside");
  CHECK(reported.quiescent);
  CHECK_FALSE(reported.violation);
  CHECK(reported_world->log == std::vector<std::string>{"got the lock"});
  CHECK(reported.fingerprint() == thrown.fingerprint());
  CHECK(reported.crashes == thrown.crashes);
}

TEST_CASE("note appends to the current step's detail, ignored in the prologue", "[engine][crash]") {
  TestWorld w;
  w.actors = {{"a", [](TestWorld&, ActorContext& ctx) {
                 ctx.note("ignored");
                 ctx.point(PointKind::Call, "call", "x=1");
                 ctx.note("fault=raise");
                 ctx.point(PointKind::Call, "call", "");
                 ctx.note("second");
               }}};
  ReplayStrategy replay(picks({0, 0}));
  Engine engine;
  replay.begin_execution(0);
  ExecutionResult r = engine.run(w, replay);
  REQUIRE(r.steps.size() == 2);
  CHECK(r.steps[0].detail == "x=1 fault=raise");
  CHECK(r.steps[1].detail == "second");
  CHECK(r.crashes.empty());
}

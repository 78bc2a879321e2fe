// sim::ActorCrash (sim/world.h): a crash ends only that actor, is recorded with its step, unwinds the
// actor's stack (so a SimMutex held through RAII is released), and is not a finding.
#include <catch2/catch.hpp>

#include "sim/engine.h"
#include "sim/strategies/replay.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::TestWorld;

namespace {

std::vector<Choice> picks(std::initializer_list<uint64_t> actors) {
  std::vector<Choice> out;
  for (uint64_t a : actors) out.push_back({Choice::Actor, a});
  return out;
}

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

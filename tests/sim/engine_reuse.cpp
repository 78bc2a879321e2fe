// Engine::execute reuses the engine's storage (step records, details, footprints, schedule) across
// executions; Engine::run hands a fresh result to the caller. Both must record the same executions.
#include <catch2/catch.hpp>

#include <string>

#include "sim/engine.h"
#include "sim/strategies/random.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::TestWorld;

namespace {

// Actors of different lengths and detail sizes, a lock held across a point, footprints and draws: executions
// of varying length, so that reused records come from longer and shorter executions than the current one.
TestWorld busy(uint64_t variant) {
  TestWorld w;
  for (int a = 0; a < 3; ++a) {
    const int calls = 2 + int((variant + uint64_t(a)) % 4);
    w.actors.push_back({"actor" + std::to_string(a), [a, calls](TestWorld& tw, ActorContext& ctx) {
                          for (int i = 0; i < calls; ++i) {
                            const std::string detail(size_t(i * 9 + a), char('a' + i));
                            ctx.point(PointKind::Call, "call", detail);
                            ctx.touch(uint64_t(10 + i % 2), i % 2 == 0);
                            if (i == 1) {
                              tw.mutex.lock(ctx);
                              ctx.point(PointKind::Barrier, "held", "inside the lock");
                              if (ctx.draw(3) == 2) ctx.note("fault=raise");
                              tw.mutex.unlock();
                            }
                          }
                        }});
  }
  return w;
}

}  // namespace

TEST_CASE("engine: execute() reusing its storage records exactly what run() records, execution after execution") {
  Engine reusing(EngineOptions{.record_footprints = true});
  Engine fresh(EngineOptions{.record_footprints = true});
  RandomStrategy r1, r2;
  for (uint64_t i = 0; i < 300; ++i) {
    TestWorld w1 = busy(i), w2 = busy(i);
    r1.begin_execution(i);
    r2.begin_execution(i);
    const ExecutionResult& a = reusing.execute(w1, r1);
    const ExecutionResult b = fresh.run(w2, r2);
    REQUIRE(a.steps.size() == b.steps.size());
    for (size_t k = 0; k < a.steps.size(); ++k) {
      const StepRecord &x = a.steps[k], &y = b.steps[k];
      REQUIRE(x.actor == y.actor);
      REQUIRE(x.kind == y.kind);
      REQUIRE(x.what == y.what);
      REQUIRE(x.detail == y.detail);
      REQUIRE(x.preemption == y.preemption);
      REQUIRE(x.footprint == y.footprint);
      REQUIRE(x.waited_lock == y.waited_lock);
    }
    REQUIRE(a.schedule == b.schedule);
    REQUIRE(a.crashes == b.crashes);
    REQUIRE(a.preemptions == b.preemptions);
    REQUIRE(a.quiescent == b.quiescent);
    REQUIRE(a.violation.has_value() == b.violation.has_value());
    REQUIRE(a.fingerprint() == b.fingerprint());
    REQUIRE(w1.log == w2.log);
  }
}

TEST_CASE("engine: run() after execute() on the same engine starts from a fresh result") {
  Engine engine;
  RandomStrategy random;
  TestWorld long_one, short_one;
  for (const char* name : {"a", "b", "c"}) long_one.actors.push_back(allocsim::sim::testing::stepper(name, 10));
  for (const char* name : {"a", "b"}) short_one.actors.push_back(allocsim::sim::testing::stepper(name, 2));
  random.begin_execution(1);
  CHECK(engine.execute(long_one, random).steps.size() == 30);
  random.begin_execution(2);
  const ExecutionResult r = engine.run(short_one, random);
  CHECK(r.steps.size() == 4);  // no record left over from the longer execution before it
  CHECK(r.schedule.size() == 4);
  CHECK(r.quiescent);
  random.begin_execution(3);
  CHECK(engine.execute(long_one, random).steps.size() == 30);  // and the engine goes on after handing it out
}

#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>

#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "sim/strategies/replay.h"
#include "tests/sim/test_world.h"

using namespace allocsim::sim;
using allocsim::sim::testing::picks;
using allocsim::sim::testing::stepper;
using allocsim::sim::testing::TestWorld;

namespace {

// Records what the engine offered at every choice, then delegates.
struct Recording : Strategy {
  Strategy& inner;
  std::vector<std::vector<ActorId>> offered;
  explicit Recording(Strategy& s) : inner(s) {}
  void begin_execution(uint64_t s) override { inner.begin_execution(s); }
  ActorId choose(std::span<const Candidate> r, ActorId cur) override {
    std::vector<ActorId> ids;
    for (auto& c : r) ids.push_back(c.actor);
    offered.push_back(ids);
    return inner.choose(r, cur);
  }
  uint64_t draw(uint64_t b) override { return inner.draw(b); }
  bool end_execution(const ExecutionResult& r) override { return inner.end_execution(r); }
};

}  // namespace

TEST_CASE("a schedule decides the interleaving, steps and preemptions are counted as defined", "[engine]") {
  TestWorld w;
  w.actors = {stepper("a", 2), stepper("b", 2)};
  ReplayStrategy replay(picks({0, 1, 0, 1}));
  Engine engine;
  replay.begin_execution(0);
  ExecutionResult r = engine.run(w, replay);
  CHECK(w.log == std::vector<std::string>{"a0", "b0", "a1", "b1"});
  REQUIRE(r.steps.size() == 4);
  CHECK(r.quiescent);
  CHECK_FALSE(r.violation);
  // 0->1 while a could go on: preemption; 1->0 while b could go on: preemption; 0->1 after a finished: not.
  CHECK(r.preemptions == 2);
  CHECK(r.steps[1].preemption);
  CHECK(r.steps[2].preemption);
  CHECK_FALSE(r.steps[3].preemption);
  CHECK(w.checks == 4);  // invariants after every step
  CHECK_FALSE(replay.divergence());
  CHECK(replay.consumed_all());
}

TEST_CASE("running an actor to its end is not a preemption", "[engine]") {
  TestWorld w;
  w.actors = {stepper("a", 3), stepper("b", 1)};
  ReplayStrategy replay(picks({0, 0, 0, 1}));
  Engine engine;
  ExecutionResult r = engine.run(w, replay);
  CHECK(r.preemptions == 0);
  CHECK(w.log == std::vector<std::string>{"a0", "a1", "a2", "b0"});
}

TEST_CASE("random explores every interleaving of two actors of two steps, deterministically", "[engine]") {
  std::set<std::vector<std::string>> seen;
  RandomStrategy random;
  Engine engine;
  uint64_t fp_first = 0;
  for (int pass = 0; pass < 2; ++pass) {
    ExploreOptions opt;
    opt.seed = 11;
    opt.executions = 200;
    uint64_t fp = 0;
    explore(
        engine,
        [] {
          auto w = std::make_unique<TestWorld>();
          w->actors = {stepper("a", 2), stepper("b", 2)};
          return w;
        },
        random, opt,
        [&](uint64_t, uint64_t, World& w, const ExecutionResult& r) {
          seen.insert(static_cast<TestWorld&>(w).log);
          fp ^= r.fingerprint() * 31 + r.steps.size();
        });
    if (pass == 0)
      fp_first = fp;
    else
      CHECK(fp == fp_first);
  }
  CHECK(seen.size() == 6);  // C(4,2) interleavings
}

TEST_CASE("an actor parked inside the lock keeps another waiting, and the waiter is not offered", "[engine][lock]") {
  TestWorld w;
  int b_resumes = 0;
  w.actors = {
      {"holder",
       [](TestWorld& w, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         w.mutex.lock(ctx);
         ctx.point(PointKind::Barrier, "inside", "");
         ctx.point(PointKind::Barrier, "inside.again", "");
         w.log.push_back("holder-done");
         w.mutex.unlock();
       }},
      {"waiter",
       [&b_resumes](TestWorld& w, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         ++b_resumes;
         w.mutex.lock(ctx);
         ++b_resumes;
         w.log.push_back("waiter-in");
         w.mutex.unlock();
       }},
  };
  ReplayStrategy replay(picks({0, 1, 0, 0, 1}));
  Recording rec(replay);
  Engine engine;
  ExecutionResult r = engine.run(w, rec);
  REQUIRE_FALSE(replay.divergence());
  CHECK(w.log == std::vector<std::string>{"holder-done", "waiter-in"});
  REQUIRE(rec.offered.size() == 5);
  CHECK(rec.offered[2] == std::vector<ActorId>{0});  // waiter blocked: only the holder is offered
  CHECK(rec.offered[3] == std::vector<ActorId>{0});
  CHECK(rec.offered[4] == std::vector<ActorId>{1});  // lock released: the waiter competes again
  CHECK(r.steps[4].kind == PointKind::LockWait);
  CHECK(r.steps[4].what == "lock.wait");
  CHECK(r.steps[4].detail == "held by holder");  // who held it when the waiter blocked
  CHECK(b_resumes == 2);                         // resumed once to block and once to acquire: no spinning
}

TEST_CASE(
    "the options are exact at every choice: the last actor's point moves, a waiter the lock lets through "
    "shuts out the other waiter",
    "[engine][lock]") {
  // The engine refreshes only the last actor's option between steps in which nobody blocked or ended, and
  // rebuilds them while anyone waits for a lock (sim/engine_impl.h, update_options). Here both waiters are
  // runnable once the holder unlocks; the one picked takes the lock, and from then on the other is not offered.
  const auto waiter = [](const char* inside) {
    return [inside](TestWorld& w, ActorContext& ctx) {
      ctx.point(PointKind::Call, "call", "");
      w.mutex.lock(ctx);
      ctx.point(PointKind::Barrier, inside, "");
      w.mutex.unlock();
    };
  };
  TestWorld w;
  w.actors = {{"holder",
               [](TestWorld& w, ActorContext& ctx) {
                 ctx.point(PointKind::Call, "call", "");
                 w.mutex.lock(ctx);
                 ctx.point(PointKind::Barrier, "inside", "");
                 w.mutex.unlock();
                 ctx.point(PointKind::Call, "after", "");
               }},
              {"w1", waiter("w1.inside")},
              {"w2", waiter("w2.inside")}};
  struct Offers : Strategy {
    ReplayStrategy inner;
    std::vector<std::string> offered;  // per choice: "actor@what" of every option, space-separated
    explicit Offers(std::vector<Choice> s) : inner(std::move(s)) {}
    void begin_execution(uint64_t s) override { inner.begin_execution(s); }
    ActorId choose(std::span<const Candidate> r, ActorId cur) override {
      std::string line;
      for (const Candidate& c : r)
        line += (line.empty() ? "" : " ") + std::to_string(c.actor) + "@" + std::string(c.what);
      offered.push_back(line);
      return inner.choose(r, cur);
    }
    uint64_t draw(uint64_t b) override { return inner.draw(b); }
    bool end_execution(const ExecutionResult& r) override { return inner.end_execution(r); }
  } offers(picks({0, 1, 2, 0, 1, 0, 1, 2, 2}));
  Engine engine;
  ExecutionResult r = engine.run(w, offers);
  REQUIRE_FALSE(offers.inner.divergence());
  CHECK(r.quiescent);
  CHECK_FALSE(r.violation);
  CHECK(offers.offered == std::vector<std::string>{
                              "0@call 1@call 2@call",             // the start
                              "0@inside 1@call 2@call",           // holder moved: its option follows it
                              "0@inside 2@call",                  // w1 waits: not offered
                              "0@inside",                         // w2 waits too
                              "0@after 1@lock.wait 2@lock.wait",  // unlocked: both waiters runnable
                              "0@after 1@w1.inside",              // w1 took the lock: w2 is shut out
                              "1@w1.inside",                      // holder ended
                              "2@lock.wait",                      // w1 unlocked and ended
                              "2@w2.inside",
                          });
}

TEST_CASE("nothing runnable with someone blocked is a deadlock finding", "[engine][lock]") {
  TestWorld w;
  w.actors = {
      {"leaky",
       [](TestWorld& w, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         w.mutex.lock(ctx);  // never unlocked
       }},
      {"victim",
       [](TestWorld& w, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         w.mutex.lock(ctx);
         w.mutex.unlock();
       }},
  };
  ReplayStrategy replay(picks({0, 1}));
  Engine engine;
  ExecutionResult r = engine.run(w, replay);
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "no-deadlock");
  CHECK(r.violation->state == "victim waits for the lock held by leaky (finished while holding it)\n");
}

TEST_CASE("an exception in an actor is a finding and never crosses a switch, others are unwound", "[engine]") {
  struct Counter {
    int* n;
    ~Counter() { ++*n; }
  };
  int destroyed = 0;
  TestWorld w;
  w.actors = {
      {"thrower",
       [](TestWorld&, ActorContext& ctx) {
         ctx.point(PointKind::Call, "call", "");
         throw std::runtime_error("boom");
       }},
      {"bystander",
       [&destroyed](TestWorld&, ActorContext& ctx) {
         Counter c{&destroyed};
         ctx.point(PointKind::Call, "call", "");
         ctx.point(PointKind::Call, "never", "");
       }},
  };
  ReplayStrategy replay(picks({1, 0}));
  Engine engine;
  ExecutionResult r = engine.run(w, replay);
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "actor-exception");
  CHECK(r.violation->message == "actor thrower threw: boom");
  CHECK(r.violation_actor == ActorId{0});
  CHECK(destroyed == 1);  // the bystander's stack was unwound (forced_unwind went through)
  // The engine is reusable after an unwound execution.
  TestWorld w2;
  w2.actors = {stepper("a", 1)};
  ReplayStrategy again(picks({0}));
  CHECK(engine.run(w2, again).quiescent);
}

TEST_CASE("an abandoned actor's frames run their destructors, its catch (...) rethrows, its typed catches see nothing",
          "[engine]") {
  // The engine ends suspended actors with a forced unwind (sim/engine_abandon.cpp, sim/world.h run_actor): one at
  // a point deep in its frames, one at a point while it holds the lock, one blocked waiting for that lock.
  struct Counter {
    int* n;
    ~Counter() { ++*n; }
  };
  int destroyed = 0, typed = 0, caught_all = 0, after = 0;
  const auto deep = [&](auto& self, ActorContext& ctx, int depth) -> void {
    Counter c{&destroyed};
    if (depth == 0) {
      ctx.point(PointKind::Call, "first", "");
      ctx.point(PointKind::Call, "never", "");  // the execution ends before this point returns
      ++after;
      return;
    }
    self(self, ctx, depth - 1);
  };
  TestWorld w;
  w.actors = {{"suspended",
               [&](TestWorld&, ActorContext& ctx) {
                 try {
                   try {
                     deep(deep, ctx, 3);
                   } catch (const std::exception&) {
                     ++typed;
                   }
                 } catch (...) {
                   ++caught_all;
                   throw;
                 }
                 ++after;
               }},
              {"holder",
               [&](TestWorld& w, ActorContext& ctx) {
                 ctx.point(PointKind::Call, "call", "");
                 w.mutex.lock(ctx);
                 Counter c{&destroyed};
                 ctx.point(PointKind::Barrier, "inside", "");
                 ctx.point(PointKind::Barrier, "never", "");
                 ++after;
                 w.mutex.unlock();
               }},
              {"waiter", [&](TestWorld& w, ActorContext& ctx) {
                 Counter c{&destroyed};
                 ctx.point(PointKind::Call, "call", "");
                 w.mutex.lock(ctx);  // blocks: the holder never lets go
                 ++after;
                 w.mutex.unlock();
               }}};
  // These picks, then kAbandon (as a search answers at a visited state).
  struct PicksThenAbandon : Strategy {
    std::vector<ActorId> picks;
    size_t calls = 0;
    ActorId choose(std::span<const Candidate>, ActorId) override {
      return calls < picks.size() ? picks[calls++] : kAbandon;
    }
    void begin_execution(uint64_t) override { calls = 0; }
    uint64_t draw(uint64_t) override { return 0; }
    bool end_execution(const ExecutionResult&) override { return true; }
  };
  Engine engine;
  for (int run = 1; run <= 200; ++run) {
    PicksThenAbandon strategy;
    strategy.picks = {0, 1, 2, 1};  // suspended to its second point, holder in, waiter blocked, holder on
    const ExecutionResult r = engine.run(w, strategy);
    CHECK_FALSE(r.quiescent);
    CHECK_FALSE(r.violation);
    CHECK(r.unfinished == std::vector<ActorId>{0, 1, 2});
    CHECK(destroyed == 6 * run);  // deep()'s four frames, the holder's and the waiter's
    CHECK(caught_all == run);     // catch (...) saw it once and rethrew
    CHECK(typed == 0);
    CHECK(after == 0);     // nothing after a point or a wait of an abandoned actor ran
    w.mutex = SimMutex();  // the holder never let go: a fresh lock for the next execution
  }
}

TEST_CASE("an execution that does not end is stopped at the step limit", "[engine]") {
  TestWorld w;
  w.actors = {{"spinner", [](TestWorld&, ActorContext& ctx) {
                 for (;;) ctx.point(PointKind::Call, "poll", "");
               }}};
  RandomStrategy random;
  random.begin_execution(1);
  Engine engine(EngineOptions{.max_steps = 57});
  ExecutionResult r = engine.run(w, random);
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "steps-bounded");
  CHECK(r.steps.size() == 57);
}

TEST_CASE("an invariant violation stops the execution at that step, quiescence is checked once", "[engine]") {
  TestWorld w;
  w.actors = {stepper("a", 3), stepper("b", 3)};
  w.invariant = [](TestWorld& w) -> std::optional<Violation> {
    if (w.log.size() == 4) return Violation{"four", "four effects", ""};
    return std::nullopt;
  };
  RandomStrategy random;
  random.begin_execution(9);
  Engine engine;
  ExecutionResult r = engine.run(w, random);
  REQUIRE(r.violation);
  CHECK(r.violation->invariant == "four");
  CHECK(r.steps.size() == 4);
  CHECK_FALSE(r.quiescent);

  int quiescent_checks = 0;
  TestWorld w2;
  w2.actors = {stepper("a", 2)};
  w2.at_quiescence = [&](TestWorld&) -> std::optional<Violation> {
    ++quiescent_checks;
    return std::nullopt;
  };
  CHECK(engine.run(w2, random).quiescent);
  CHECK(quiescent_checks == 1);
}

TEST_CASE("draws are part of the schedule and replay exactly", "[engine]") {
  auto make = [] {
    TestWorld w;
    w.actors = {{"dice",
                 [](TestWorld& w, ActorContext& ctx) {
                   for (int i = 0; i < 5; ++i) {
                     ctx.point(PointKind::Call, "roll", "");
                     w.log.push_back(std::to_string(ctx.draw(6)));
                   }
                 }},
                stepper("b", 2)};
    return w;
  };
  TestWorld w = make();
  RandomStrategy random;
  random.begin_execution(123);
  Engine engine;
  ExecutionResult r = engine.run(w, random);
  size_t draws = 0;
  for (auto& c : r.schedule) draws += c.kind == Choice::Draw;
  CHECK(draws == 5);
  TestWorld w2 = make();
  ReplayStrategy replay(r.schedule);
  replay.begin_execution(0);
  ExecutionResult r2 = engine.run(w2, replay);
  CHECK_FALSE(replay.divergence());
  CHECK(w2.log == w.log);
  CHECK(r2.fingerprint() == r.fingerprint());
}

TEST_CASE("replay reports the first choice that no longer fits", "[engine][replay]") {
  TestWorld w;
  w.actors = {stepper("a", 1), stepper("b", 1)};
  ReplayStrategy replay(picks({0, 0}));  // a finished after one step: choice 1 cannot run it
  Engine engine;
  engine.run(w, replay);
  REQUIRE(replay.divergence());
  CHECK(*replay.divergence() == "choice 1: the schedule runs actor #0, which cannot run here (runnable: actor #1)");
  CHECK(replay.divergence_choice() == size_t{1});

  TestWorld named;
  named.actors = {stepper("a", 1), stepper("b", 1)};
  ReplayStrategy by_name(picks({0, 0}), {"a", "b"});
  engine.run(named, by_name);
  REQUIRE(by_name.divergence());
  CHECK(*by_name.divergence() == "choice 1: the schedule runs a, which cannot run here (runnable: b)");
  CHECK(by_name.divergence_runnable() == std::vector<std::string>{"b"});

  TestWorld w2;
  w2.actors = {stepper("a", 2)};
  ReplayStrategy short_schedule(picks({0}));
  engine.run(w2, short_schedule);
  REQUIRE(short_schedule.divergence());
  CHECK(*short_schedule.divergence() == "choice 1: the schedule ended but the program goes on");
  CHECK(short_schedule.divergence_runnable().empty());
}

TEST_CASE("the context says whether footprints are recorded, and touches land only when they are", "[engine]") {
  for (const bool record : {false, true}) {
    INFO("record_footprints " << record);
    std::vector<bool> told;
    TestWorld w;
    w.actors = {{"a", [&](TestWorld&, ActorContext& ctx) {
                   told.push_back(ctx.records_footprints());
                   ctx.point(PointKind::Call, "call", "");
                   ctx.touch(42, true);
                 }}};
    Engine engine(EngineOptions{.record_footprints = record});
    RandomStrategy strategy;
    strategy.begin_execution(1);
    const ExecutionResult r = engine.run(w, strategy);
    CHECK(told == std::vector<bool>{record});
    REQUIRE(r.steps.size() == 1);
    CHECK(r.steps[0].footprint.size() == (record ? 1u : 0u));
  }
}

TEST_CASE("what deciding throws on an actor's stack leaves execute(), past the actor's handlers, after the unwind",
          "[engine]") {
  // Deciding runs on the stack of the actor that stopped (sim/engine.h, Switching). A strategy that throws there
  // (as DPOR does on a nondeterministic world) must end the execution, not become that actor's exception.
  struct Counter {
    int* n;
    ~Counter() { ++*n; }
  };
  struct ThrowsAt : Strategy {
    size_t at, calls = 0;
    explicit ThrowsAt(size_t a) : at(a) {}
    ActorId choose(std::span<const Candidate> r, ActorId) override {
      if (++calls == at) throw std::logic_error("no fit");
      return r[0].actor;
    }
    void begin_execution(uint64_t) override {}
    uint64_t draw(uint64_t) override { return 0; }
    bool end_execution(const ExecutionResult&) override { return true; }
  };
  int destroyed = 0, swallowed = 0;
  TestWorld w;
  const auto careful = [&](TestWorld&, ActorContext& ctx) {
    Counter c{&destroyed};
    try {
      for (int i = 0; i < 3; ++i) ctx.point(PointKind::Call, "call", "");
    } catch (const std::exception&) {
      ++swallowed;
    }
  };
  w.actors = {{"a", careful}, {"b", careful}};
  Engine engine;
  for (size_t at : {1, 2, 4}) {  // on the engine's own context (the first choice), then on an actor's stack
    destroyed = swallowed = 0;
    ThrowsAt strategy(at);
    CHECK_THROWS_WITH(engine.run(w, strategy), "no fit");
    CHECK(swallowed == 0);
    CHECK(destroyed == 2);  // both actors' stacks unwound before run() threw
  }
  // The engine runs the next execution as usual.
  ThrowsAt never(100);
  const ExecutionResult r = engine.run(w, never);
  CHECK(r.quiescent);
  CHECK(r.steps.size() == 6);
  CHECK(r.preemptions == 0);  // r[0] first: a runs to its end, then b
}

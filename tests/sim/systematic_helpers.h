// Helpers for the systematic-strategy tests (dfs, preemption bounding, dpor): tiny worlds whose actors
// touch named objects, and a driver that runs a strategy to exhaustion and collects what it saw.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/prng.h"
#include "sim/trace_equivalence.h"
#include "tests/sim/test_world.h"

namespace allocsim::sim::testing {

/// Property tests over numbered random programs take every seed in the optimized suite and every
/// kSeedStride-th under the sanitizers (tools/dev.sh sanitize: -O1 with ASan, several times slower), where
/// they were the stage's five longest tests: a memory error shows on a fifth of the programs as well. 5 is
/// prime to the 2, 3 and 4 the tests cycle program shapes by (seed % 2, % 3, % 4), so every shape still runs.
/// Pinned counts are pinned for both (kSanitized).
#if defined(BOOST_USE_ASAN)
inline constexpr uint64_t kSeedStride = 5;
inline constexpr bool kSanitized = true;
#else
inline constexpr uint64_t kSeedStride = 1;
inline constexpr bool kSanitized = false;
#endif

/// One step of a toucher: it reads or writes `object` (0 = touches nothing).
struct Touch {
  uint64_t object = 0;
  bool write = true;
};

/// An actor with one scheduling point per entry of `steps`; after each point it touches that entry's object
/// and logs "<name><i>".
inline TestWorld::Actor toucher(std::string name, std::vector<Touch> steps) {
  return {name, [name, steps](TestWorld& w, ActorContext& ctx) {
            for (size_t i = 0; i < steps.size(); ++i) {
              ctx.point(PointKind::Call, "call", std::to_string(i));
              if (steps[i].object) ctx.touch(steps[i].object, steps[i].write);
              w.log.push_back(name + std::to_string(i));
            }
          }};
}

/// Object ids for touchers, as the DPOR tests name them.
inline constexpr uint64_t X = 11, Y = 12, Z = 13;

/// A schedule as text ("a0 d1 a1"), for ordered sets of schedules.
inline std::string text(const std::vector<Choice>& s) {
  std::string out;
  for (const Choice& c : s) {
    if (!out.empty()) out += ' ';
    out += c.kind == Choice::Actor ? 'a' : 'd';
    out += std::to_string(c.value);
  }
  return out;
}

/// What a run to exhaustion saw.
struct Explored {
  uint64_t executions = 0;
  uint64_t abandoned = 0;                            // ExecutionResult::abandoned, not among `executions`
  std::vector<std::vector<std::string>> logs;        // per execution, in order
  std::set<std::vector<std::string>> distinct_logs;  // distinct interleavings of effects
  std::vector<std::vector<Choice>> schedules;
  std::set<std::string> violations;
  uint64_t traces = 0;  // distinct Mazurkiewicz traces
  uint64_t max_preemptions = 0;
  bool stopped_by_strategy = false;
};

/// Runs `strategy` on fresh worlds from `make` until it says stop (or `limit` executions).
inline Explored explore_all(Strategy& strategy, const std::function<std::unique_ptr<TestWorld>()>& make,
                            uint64_t limit = 100000) {
  Explored out;
  TraceCounter traces;
  Engine engine(EngineOptions{.record_footprints = true});
  for (uint64_t i = 0; i < limit; ++i) {
    strategy.begin_execution(i);
    auto w = make();
    ExecutionResult r = engine.run(*w, strategy);
    if (r.abandoned) {  // a redundant prefix (DPOR, sleep-set blocked): counted apart, as the explorer does
      ++out.abandoned;
      if (!strategy.end_execution(r)) {
        out.stopped_by_strategy = true;
        break;
      }
      continue;
    }
    ++out.executions;
    out.logs.push_back(w->log);
    out.distinct_logs.insert(w->log);
    out.schedules.push_back(r.schedule);
    if (r.violation) out.violations.insert(r.violation->invariant);
    traces.add(r);
    out.max_preemptions = std::max<uint64_t>(out.max_preemptions, r.preemptions);
    if (!strategy.end_execution(r)) {
      out.stopped_by_strategy = true;
      break;
    }
  }
  out.traces = traces.distinct();
  return out;
}

/// A world of the given actors.
inline std::function<std::unique_ptr<TestWorld>()> world_of(std::vector<TestWorld::Actor> actors) {
  return [actors] {
    auto w = std::make_unique<TestWorld>();
    w->actors = actors;
    return w;
  };
}

/// An actor that makes a call, then takes the world's mutex across a barrier and releases it (two steps:
/// "lock and reach the barrier", "unlock and finish").
inline TestWorld::Actor locker(std::string name) {
  return {name, [name](TestWorld& w, ActorContext& ctx) {
            ctx.point(PointKind::Call, "call", "");
            w.mutex.lock(ctx);
            w.log.push_back(name + "-in");
            ctx.point(PointKind::Barrier, "inside", "");
            w.log.push_back(name + "-out");
            w.mutex.unlock();
          }};
}

/// One operation of a random lock-and-touch program. kind 0: a call point, then touch `obj` (a write when
/// `w`); 1: lock the world's mutex; 2: unlock it; 3: a barrier point; 4: a call point, then draw(2) and touch
/// `obj` or `obj + 1` by the value (a fault-like choice inside the step).
struct LockOp {
  int kind;
  uint64_t obj;
  bool w;
};

/// The actors running `progs` (one program per actor, named by index).
inline std::vector<TestWorld::Actor> actors_of(const std::vector<std::vector<LockOp>>& progs) {
  std::vector<TestWorld::Actor> actors;
  for (size_t a = 0; a < progs.size(); ++a) {
    auto p = progs[a];
    actors.push_back({std::to_string(a), [p](TestWorld& w, ActorContext& ctx) {
                        for (const LockOp& o : p) {
                          if (o.kind == 0) {
                            ctx.point(PointKind::Call, "call", "");
                            ctx.touch(o.obj, o.w);
                          } else if (o.kind == 4) {
                            ctx.point(PointKind::Call, "call", "");
                            ctx.touch(o.obj + ctx.draw(2), o.w);
                          } else if (o.kind == 1) {
                            w.mutex.lock(ctx);
                          } else if (o.kind == 2) {
                            w.mutex.unlock();
                          } else {
                            ctx.point(PointKind::Barrier, "b", "");
                          }
                        }
                      }});
  }
  return actors;
}

/// A random program of `actors` actors, each 1-3 touches (`touch(g)` draws one: kind 0 plain, 4 drawing, 5
/// drawing with a crash, and its object and mode) with some of them inside a locked section that spans a
/// barrier; `desc` gets it as text ("actor 0: P2w L B D1r U"). The PRNG draws are in a fixed order, so a seed
/// names one program.
template <class Touch>
std::vector<std::vector<LockOp>> random_program(uint64_t seed, int actors, std::string& desc, Touch touch) {
  Prng g(seed);
  std::vector<std::vector<LockOp>> progs;
  for (int a = 0; a < actors; ++a) {
    std::vector<LockOp> p;
    const int len = 1 + static_cast<int>(g.below(3));
    bool locked = false;
    for (int k = 0; k < len; ++k) {
      p.push_back(touch(g));
      if (!locked && g.below(3) == 0) {
        p.push_back({1, 0, false});
        locked = true;
        p.push_back({3, 0, false});
      } else if (locked && g.below(2) == 0) {
        p.push_back({2, 0, false});
        locked = false;
      }
    }
    if (locked) p.push_back({2, 0, false});
    progs.push_back(p);
    desc += "actor " + std::to_string(a) + ":";
    for (const LockOp& o : p)
      desc += o.kind == 1   ? " L"
              : o.kind == 2 ? " U"
              : o.kind == 3 ? " B"
                            : std::string(o.kind == 0   ? " P"
                                          : o.kind == 4 ? " D"
                                                        : " C") +
                                  std::to_string(o.obj) + (o.w ? "w" : "r");
    desc += "\n";
  }
  return progs;
}

/// random_program() with plain touches of objects 1-3; with `draws`, each touch is a drawing one (kind 4)
/// with probability 1/3.
inline std::vector<std::vector<LockOp>> random_lock_program(uint64_t seed, int actors, std::string& desc,
                                                            bool draws = false) {
  return random_program(seed, actors, desc, [draws](Prng& g) {
    LockOp o{0, 1 + g.below(3), g.below(2) == 0};
    if (draws && g.below(3) == 0) o.kind = 4;
    return o;
  });
}

}  // namespace allocsim::sim::testing

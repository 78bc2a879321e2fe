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
#include "sim/trace_equivalence.h"
#include "tests/sim/test_world.h"

namespace allocsim::sim::testing {

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
  std::vector<std::vector<std::string>> logs;        // per execution, in order
  std::set<std::vector<std::string>> distinct_logs;  // distinct interleavings of effects
  std::vector<std::vector<Choice>> schedules;
  std::set<std::string> violations;
  uint64_t traces = 0;                               // distinct Mazurkiewicz traces
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

}  // namespace allocsim::sim::testing

// A tiny world for engine tests: each actor runs a script of (kind, count) steps over shared counters,
// optionally taking a SimMutex around a scheduling point, throwing, or looping forever.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/world.h"

namespace allocsim::sim::testing {

struct TestWorld : World {
  struct Actor {
    std::string name;
    std::function<void(TestWorld&, ActorContext&)> body;
  };
  std::vector<Actor> actors;
  std::vector<std::string> log;  // shared effects, in execution order
  SimMutex mutex;
  std::function<std::optional<Violation>(TestWorld&)> invariant;
  std::function<std::optional<Violation>(TestWorld&)> at_quiescence;
  int checks = 0;

  size_t actor_count() const override { return actors.size(); }
  std::string_view actor_name(ActorId id) const override { return actors[id].name; }
  void run_actor(ActorId id, ActorContext& ctx) override { actors[id].body(*this, ctx); }
  std::optional<Violation> check_step(uint64_t, ActorId) override {
    ++checks;
    return invariant ? invariant(*this) : std::nullopt;
  }
  std::optional<Violation> check_quiescent() override { return at_quiescence ? at_quiescence(*this) : std::nullopt; }
};

/// A schedule of actor choices only, one per id in `actors`.
inline std::vector<Choice> picks(std::initializer_list<uint64_t> actors) {
  std::vector<Choice> out;
  for (uint64_t a : actors) out.push_back({Choice::Actor, a});
  return out;
}

/// An actor that makes `calls` calls, each a scheduling point followed by a logged effect "<name><i>".
inline TestWorld::Actor stepper(std::string name, int calls) {
  return {name, [name, calls](TestWorld& w, ActorContext& ctx) {
            for (int i = 0; i < calls; ++i) {
              ctx.point(PointKind::Call, "call", std::to_string(i));
              w.log.push_back(name + std::to_string(i));
            }
          }};
}

/// A world that is nondeterministic on purpose (for the determinism recheck): actor a makes two calls; actor b
/// makes two, and its second carries how many worlds this factory built before, so a world built later runs
/// differently from the same schedule.
inline std::unique_ptr<World> leaking_world() {
  static int built = 0;
  auto w = std::make_unique<TestWorld>();
  const int generation = ++built;
  w->actors = {stepper("a", 2), {"b", [generation](TestWorld&, ActorContext& ctx) {
                                   ctx.point(PointKind::Call, "call", "0");
                                   ctx.point(PointKind::Call, "call", std::to_string(generation));
                                 }}};
  return w;
}

}  // namespace allocsim::sim::testing

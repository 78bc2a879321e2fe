#include <catch2/catch.hpp>
#include <iostream>
#include "sim/prng.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "tests/sim/systematic_helpers.h"
using namespace allocsim::sim;
using namespace allocsim::sim::testing;
// op: 0 = point+touch(obj,w), 1 = lock, 2 = unlock, 3 = point(barrier)
struct Op { int kind; uint64_t obj; bool w; };
TEST_CASE("zz fuzz dpor", "[.fuzz]") {
  for (uint64_t seed = 0; seed < 20000; ++seed) {
    Prng g(seed);
    std::vector<std::vector<Op>> progs;
    const int n = 2 + (seed % 3 == 0);
    std::string desc;
    for (int a = 0; a < n; ++a) {
      std::vector<Op> p;
      const int len = 1 + g.below(3);
      bool locked = false;
      for (int k = 0; k < len; ++k) {
        p.push_back({0, 1 + g.below(3), g.below(2) == 0});
        if (!locked && g.below(3) == 0) { p.push_back({1, 0, 0}); locked = true; p.push_back({3, 0, 0}); }
        else if (locked && g.below(2) == 0) { p.push_back({2, 0, 0}); locked = false; }
      }
      if (locked) p.push_back({2, 0, 0});
      progs.push_back(p);
      desc += "actor " + std::to_string(a) + ":";
      for (auto& o : p) desc += o.kind == 0 ? " P" + std::to_string(o.obj) + (o.w ? "w" : "r") : o.kind == 1 ? " L" : o.kind == 2 ? " U" : " B";
      desc += "\n";
    }
    std::vector<TestWorld::Actor> actors;
    for (int a = 0; a < n; ++a) {
      auto p = progs[a];
      actors.push_back({std::to_string(a), [p](TestWorld& w, ActorContext& ctx) {
        for (auto& o : p) {
          if (o.kind == 0) { ctx.point(PointKind::Call, "call", ""); ctx.touch(o.obj, o.w); }
          else if (o.kind == 1) w.mutex.lock(ctx);
          else if (o.kind == 2) w.mutex.unlock();
          else ctx.point(PointKind::Barrier, "b", "");
        }
      }});
    }
    DfsStrategy d; DporStrategy q;
    auto make = world_of(actors);
    Explored a = explore_all(d, make), b = explore_all(q, make);
    size_t tot = 0; for (auto& p : progs) tot += p.size();
    static size_t best = 99; if (a.traces != b.traces && tot < best) { best = tot; std::cout << "seed " << seed << " dfs traces " << a.traces << " dpor traces " << b.traces << " dpor execs " << b.executions << "\n" << desc; }
  }
}
#include <map>
static std::string show(const ExecutionResult& x) {
  std::string o;
  for (size_t k = 0; k < x.steps.size(); ++k) {
    o += " a" + std::to_string(x.steps[k].actor) + ":" + std::string(x.steps[k].what) + "{";
    for (auto a : normalized(x.steps[k].footprint)) o += std::to_string(a.object % 1000) + (a.write ? "w " : "r ");
    o += "}";
  }
  return o;
}
TEST_CASE("zz one", "[.fuzz]") {
  auto mk = [](std::vector<std::pair<uint64_t,bool>> t) {
    return [t](TestWorld& w, ActorContext& ctx) {
      for (auto [o, wr] : t) { ctx.point(PointKind::Call, "call", ""); ctx.touch(o, wr); w.mutex.lock(ctx); ctx.point(PointKind::Barrier, "b", ""); w.mutex.unlock(); }
    };
  };
  auto make = world_of({{"0", mk({{3, true}})}, {"1", mk({{1, false}})}, {"2", mk({{3, true}})}});
  Engine engine(EngineOptions{.record_footprints = true});
  std::map<uint64_t, std::string> A, B;
  for (int mode = 0; mode < 2; ++mode) {
    std::unique_ptr<Strategy> s;
    if (mode == 0) s = std::make_unique<DfsStrategy>(); else s = std::make_unique<DporStrategy>();
    for (;;) { s->begin_execution(0); auto w = make(); auto r = engine.run(*w, *s); (mode ? B : A)[trace_fingerprint(r)] = show(r); if (!s->end_execution(r)) break; }
  }
  for (auto& [k, v] : A) if (!B.count(k)) std::cout << "MISSING" << v << "\n";
  for (auto& [k, v] : B) std::cout << "DPOR   " << v << "\n";
}

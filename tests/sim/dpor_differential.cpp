// DPOR against plain DFS on random tiny programs (see the test case).
#include <catch2/catch.hpp>

#include <iostream>

#include "sim/prng.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "tests/sim/systematic_helpers.h"
using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {
// kind 0: a call point, then touch obj (write w); 1: lock the world's mutex; 2: unlock; 3: a barrier point.
struct Op {
  int kind;
  uint64_t obj;
  bool w;
};
}  // namespace

// Differential soundness test: on random small programs of touches and SimMutex sections (2-3 actors),
// DPOR (default options) must see exactly the Mazurkiewicz traces plain DFS sees. This is the test that
// found sleep sets unsound with blocking (DporOptions::sleep_sets).
TEST_CASE("dpor: same traces as dfs on 1500 random lock-and-touch programs", "[dpor]") {
  for (uint64_t seed = 0; seed < 1500; ++seed) {
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
    if (a.traces != b.traces || b.executions > a.executions) { std::cout << "seed " << seed << " dfs traces " << a.traces << " dpor traces " << b.traces << " dpor execs " << b.executions << "\n" << desc; FAIL(); }
  }
}

// DPOR against plain DFS on random tiny programs (see the test case).
#include <catch2/catch.hpp>

#include <iostream>

#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "tests/sim/systematic_helpers.h"
using namespace allocsim::sim;
using namespace allocsim::sim::testing;

// Differential soundness test: on random small programs of touches and SimMutex sections (2-3 actors),
// DPOR (default options: sleep sets on) must see exactly the Mazurkiewicz traces plain DFS sees. This is the
// test that found sleep sets hiding traces when a release and the waiter's retry were taken for a
// reversible race (DporStrategy::analyse, `reversible`). Offline, 25,000 such programs (2-4 actors) ran
// clean at 1.003 executions per trace.
TEST_CASE("dpor: same traces as dfs on 1500 random lock-and-touch programs", "[dpor]") {
  uint64_t dpor_executions = 0, traces = 0;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    const int n = 2 + (seed % 3 == 0);
    std::string desc;
    const auto progs = random_lock_program(seed, n, desc);
    DfsStrategy d;
    DporStrategy q;
    auto make = world_of(actors_of(progs));
    Explored a = explore_all(d, make), b = explore_all(q, make);
    if (a.traces != b.traces || b.executions > a.executions) {
      std::cout << "seed " << seed << " dfs traces " << a.traces << " dpor traces " << b.traces << " dpor execs "
                << b.executions << "\n"
                << desc;
      FAIL();
    }
    dpor_executions += b.executions;
    traces += b.traces;
  }
  // Near-optimal: at most 1% more executions than traces over the whole corpus (measured: 1.003 on 25,000).
  CHECK(dpor_executions * 100 <= traces * 101);
}

TEST_CASE("dpor: a release and the waiter's retry are not a reversible race (sleep sets regression)", "[dpor]") {
  // The smallest program the differential test found where sleep sets lost 2 of 27 traces: actor 2 blocks on
  // actor 0's lock; after the release, both actor 0 (re-locking) and actor 2 (its retry) can take the lock.
  // Taking "release, then retry" for a race reversible through actor 1 (an initial of notdep) put actor 1 in
  // the backtrack set instead of actor 2 at the re-lock, and sleep sets then pruned the other lock order.
  const std::vector<std::vector<LockOp>> progs = {
      {{0, 2, true}, {1, 0, 0}, {3, 0, 0}, {0, 1, false}, {2, 0, 0}, {0, 2, true}, {1, 0, 0}, {3, 0, 0}, {2, 0, 0}},
      {{0, 2, true}},
      {{0, 1, true}, {1, 0, 0}, {3, 0, 0}, {2, 0, 0}},
  };
  DfsStrategy d;
  DporStrategy q;
  DporStrategy source(DporOptions{.sleep_sets = false});
  auto make = world_of(actors_of(progs));
  Explored a = explore_all(d, make), b = explore_all(q, make), c = explore_all(source, make);
  CHECK(a.traces == 27);
  CHECK(b.traces == 27);
  CHECK(b.executions == 27);
  CHECK(c.traces == 27);
  CHECK(c.executions > 27);
}

TEST_CASE("dpor: same traces as dfs on 800 random programs with draws inside steps", "[dpor]") {
  // A drawing step is one event for sleep sets, with the union footprint of its draw values (dpor.h). The
  // finer choice, one sleep entry per draw combination, lost traces here (seed 47: 5 of 6); this pins the
  // sound one. Programs whose plain DFS does not finish within 20,000 executions are left out.
  uint64_t dpor_executions = 0, traces = 0, programs = 0;
  for (uint64_t seed = 0; seed < 800; ++seed) {
    std::string desc;
    const auto make = world_of(actors_of(random_lock_program(seed, 2 + (seed % 3 == 0), desc, true)));
    DfsStrategy d;
    DporStrategy q;
    Explored a = explore_all(d, make, 20000);
    if (!a.stopped_by_strategy) continue;
    ++programs;
    Explored b = explore_all(q, make);
    if (a.traces != b.traces || b.executions > a.executions) {
      std::cout << "seed " << seed << " dfs traces " << a.traces << " dpor traces " << b.traces << " dpor execs "
                << b.executions << "\n"
                << desc;
      FAIL();
    }
    dpor_executions += b.executions;
    traces += b.traces;
  }
  CHECK(programs > 700);
  // The union footprint wakes sleepers early: more executions per trace than without draws (measured: 43,965
  // executions for 32,775 traces in 785 programs, 1.34).
  CHECK(dpor_executions * 100 <= traces * 140);
}

// `allocsim run --strategy dfs|pct`: exact, pinned counts, exhaustion reporting, and flag validation.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

using Out = cli_test::Captured;
using cli_test::allocsim;

}  // namespace

TEST_CASE("run --strategy dfs: exhaustive counts, pinned, and deterministic", "[cli][dfs]") {
  // Pinned from the implementation and cross-checked: plain DFS and DPOR agree on the 19 traces.
  Out none = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs --reduction none");
  CHECK(none.code == 0);
  CHECK_THAT(none.text, Catch::Contains("118 executions"));
  CHECK_THAT(none.text, Catch::Contains("exhaustive: all 118 executions explored (reduction none)"));
  CHECK_THAT(none.text, Catch::Contains("distinct Mazurkiewicz traces: 19"));
  Out dpor = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs");  // dpor by default
  CHECK(dpor.code == 0);
  CHECK_THAT(dpor.text, Catch::Contains("exhaustive: all 19 executions explored (reduction dpor)"));  // one per trace
  CHECK_THAT(dpor.text, Catch::Contains("distinct Mazurkiewicz traces: 19"));
  CHECK(allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs").text == dpor.text);
}

TEST_CASE("run --strategy dpor: sleep-set-blocked prefixes are abandoned and counted apart", "[cli][dpor]") {
  // 28 traces; 4 prefixes end with every runnable actor asleep. They used to run out to 32 executions.
  Out o = allocsim("run scenarios/mutants/release-spins-on-busy-nodes.json --strategy dpor --no-corpus --no-trace");
  CHECK_THAT(o.text, Catch::Contains("exhaustive: all 28 executions explored (reduction dpor)"));
  CHECK_THAT(o.text, Catch::Contains("distinct Mazurkiewicz traces: 28 (1.00 executions per trace; 4 prefixes "
                                     "sleep-set blocked, abandoned unfinished)"));
  // No blocked prefix, no clause.
  Out clean = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dpor --no-corpus");
  CHECK_THAT(clean.text, Catch::Contains("distinct Mazurkiewicz traces: 19 (1.00 executions per trace)\n"));
}

TEST_CASE("run --strategy dfs: the executions limit and the preemption bound", "[cli][dfs]") {
  Out cut = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs --reduction none -n 10");
  CHECK_THAT(cut.text, Catch::Contains("10 executions"));
  CHECK_THAT(cut.text, Catch::Contains("stopped at the --executions limit"));
  Out b0 = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs --preemption-bound 0");
  CHECK_THAT(b0.text, Catch::Contains("(reduction none, preemption bound 0)"));
  CHECK_THAT(b0.text, Catch::Contains("exhaustive: all 2 executions explored"));
  Out mutant = allocsim("run scenarios/mutants/client-side-claim.json --strategy dfs --no-trace");
  CHECK(mutant.code == 0);  // the expected violation is found
  CHECK_THAT(mutant.text, Catch::Contains("single-ownership"));
  CHECK_THAT(mutant.text, Catch::Contains("schedule: v1:"));  // the form replay --schedule reads
}

TEST_CASE("run: strategy flags are validated", "[cli][dfs]") {
  const std::string sc = "run scenarios/alloc-004-one-plan-two-claimants.json ";
  CHECK(allocsim(sc + "--strategy bogus").code == 2);
  CHECK(allocsim(sc + "--strategy dfs --reduction dpor --preemption-bound 1").code == 2);
  CHECK_THAT(allocsim(sc + "--strategy dfs --reduction dpor --preemption-bound 1").text, Catch::Contains("unsound"));
  CHECK(allocsim(sc + "--strategy dfs --reduction maybe").code == 2);
  const Out typo = allocsim(sc + "--strategy dfs --reduction symetry");
  CHECK(typo.code == 2);
  CHECK_THAT(typo.text, Catch::Contains("got \"symetry\" (did you mean symmetry?)"));
  // Symmetry with no class says which rule left each actor out.
  const Out sym = allocsim(sc + "--strategy dfs --reduction symmetry --no-corpus --no-trace");
  CHECK(sym.code == 0);
  CHECK_THAT(sym.text, Catch::Contains("so this is --reduction states:\n"
                                       "    flowA: \"flowA\" occurs in /expect (rule 2)\n"
                                       "    flowB: its script names \"flowA\", flowA's (rule 2)\n"));
  CHECK(allocsim(sc + "--strategy random --preemption-bound 1").code == 2);
  CHECK(allocsim(sc + "--strategy pct --depth 0").code == 2);
  CHECK_THAT(allocsim("list strategies").text, Catch::Contains("pct"));
  CHECK_THAT(allocsim("list strategies").text,
             Catch::Contains("symmetry (states up to renaming interchangeable actors)"));
}

TEST_CASE("run --strategy pct: bounds and coverage are reported, and a seed repeats", "[cli][pct]") {
  // Exact figures, not the fixed wording around them: k comes from the calibration execution (9 steps of
  // ALLOC-004), the bound 1/(n*k^(d-1)) from n = 2 and --depth, the miss chance from -n.
  const std::string cmd = "run scenarios/alloc-004-one-plan-two-claimants.json --strategy pct --depth 2 -n 200";
  Out a = allocsim(cmd), b = allocsim(cmd);
  INFO(a.text);
  CHECK(a.code == 0);
  CHECK(a.text == b.text);
  CHECK_THAT(a.text, Catch::Contains("(strategy pct, seed 0)"));
  CHECK_THAT(a.text, Catch::Contains("  pct depth 2: k = 9 steps (calibration execution), n = 2 actors\n"));
  CHECK_THAT(a.text, Catch::Contains("hit with probability >= 1/(n*k^(d-1)) = 0.0556\n"));
  CHECK_THAT(a.text, Catch::Contains("still missed after 200 executions: <= 1.08e-05 (fault choices"));
  CHECK_THAT(a.text, Catch::Contains("  coverage: 16 ordered point pairs across actors\n"));
  // The schedules are pct's own: pinned tallies (random with seed 0 gives flowB 23 claimed, 159 skipped).
  CHECK_THAT(a.text, Catch::Contains("  flowB reserve: claimed 30, conflict 69, skipped 101\n"));
  const Out other_seed = allocsim(cmd + " --seed 1");
  CHECK_THAT(other_seed.text, Catch::Contains("  flowB reserve: claimed 33, conflict 49, skipped 118\n"));

  // --depth reaches the strategy: depth 3 changes the bound, and depth 1 (no change point) runs each actor to
  // its end, so flowB's reserve of flowA's plan can never win the CAS (it needs flowB between flowA's
  // plan and its stamp) and no two points of different actors ever interleave.
  const Out d3 = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy pct --depth 3 -n 200");
  CHECK_THAT(d3.text, Catch::Contains("  pct depth 3: k = 9 steps (calibration execution), n = 2 actors\n"));
  CHECK_THAT(d3.text, Catch::Contains("= 0.00617\n"));
  const Out d1 = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --strategy pct --depth 1 -n 200");
  INFO(d1.text);
  CHECK_THAT(d1.text, Catch::Contains("  flowA reserve: claimed 200\n"));
  CHECK_THAT(d1.text, Catch::Contains("  flowB reserve: conflict 106, skipped 94\n"));
  CHECK_THAT(d1.text, Catch::Contains("  coverage: 2 ordered point pairs across actors\n"));
}

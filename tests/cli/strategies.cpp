// `allocsim run --strategy dfs|pct`: exact, pinned counts, exhaustion reporting, and flag validation.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Out {
  int code;
  std::string text;
};

Out allocsim(const std::string& args) {
  const std::string cmd = std::string("cd ") + ALLOCSIM_SOURCE_DIR + " && " + ALLOCSIM_BINARY + " " + args + " 2>&1";
  const cli_test::Captured c = cli_test::capture(cmd);
  return {c.code, c.text};
}

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
  CHECK(allocsim(sc + "--strategy random --preemption-bound 1").code == 2);
  CHECK(allocsim(sc + "--strategy pct --depth 0").code == 2);
  CHECK_THAT(allocsim("list strategies").text, Catch::Contains("pct"));
}

TEST_CASE("run --strategy pct: bounds and coverage are reported, and a seed repeats", "[cli][pct]") {
  const std::string cmd = "run scenarios/alloc-004-one-plan-two-claimants.json --strategy pct --depth 2 -n 200";
  Out a = allocsim(cmd), b = allocsim(cmd);
  CHECK(a.code == 0);
  CHECK(a.text == b.text);
  CHECK_THAT(a.text, Catch::Contains("pct depth 2: k = "));
  CHECK_THAT(a.text, Catch::Contains("1/(n*k^(d-1))"));
  CHECK_THAT(a.text, Catch::Contains("still missed after 200 executions"));
  CHECK_THAT(a.text, Catch::Contains("fault choices are outside this bound"));
  CHECK_THAT(a.text, Catch::Contains("ordered point pairs across actors"));
}

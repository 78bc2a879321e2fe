// The strategy table (sim/strategies/strategy_table.h) as the command line sees it: `list strategies`, `--strategy dpor`
// (docs/DESIGN.md §2), validation from the table's capabilities, and schedules that `run` prints in the form `replay
// --schedule` reads (one schedule codec, docs/DESIGN.md §1).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/support.h"

namespace {

cli_test::Captured allocsim_in_root(const std::string& args) {
  return cli_test::capture(std::string("cd ") + ALLOCSIM_SOURCE_DIR + " && " + ALLOCSIM_BINARY + " " + args + " 2>&1");
}

const std::string kScenario = "scenarios/alloc-004-one-plan-two-claimants.json";

}  // namespace

TEST_CASE("list strategies: one line per strategy of the table, dpor included", "[cli][strategies]") {
  const auto r = allocsim_in_root("list strategies");
  CHECK(r.code == 0);
  std::vector<std::string> names;
  std::istringstream lines(r.text);
  for (std::string line; std::getline(lines, line);) {
    const size_t gap = line.find(' ');
    REQUIRE(gap != std::string::npos);
    CHECK(line.find_first_not_of(' ', gap) != std::string::npos);  // a description follows the name
    names.push_back(line.substr(0, gap));
  }
  CHECK(names == std::vector<std::string>{"random", "pct", "dfs", "dpor"});
}

TEST_CASE("run --strategy dpor is dfs with its default reduction, execution for execution", "[cli][strategies]") {
  const auto dpor = allocsim_in_root("run " + kScenario + " --strategy dpor");
  const auto dfs = allocsim_in_root("run " + kScenario + " --strategy dfs --reduction dpor");
  REQUIRE(dpor.code == 0);
  CHECK_THAT(dpor.text, Catch::Contains("\n  19 executions, "));
  CHECK_THAT(dpor.text, Catch::Contains("exhaustive: all 19 executions explored (reduction dpor)"));
  // Only the header names the strategy; every count, outcome and barrier line is the same.
  std::string as_dfs = dpor.text;
  as_dfs.replace(as_dfs.find("(strategy dpor)"), 15, "(strategy dfs)");
  CHECK(as_dfs == dfs.text);
}

TEST_CASE("sweep --strategy dpor counts what sweep --strategy dfs counts", "[cli][strategies]") {
  const auto dpor = allocsim_in_root("sweep " + kScenario + " --strategy dpor");
  const auto dfs = allocsim_in_root("sweep " + kScenario);
  REQUIRE(dpor.code == 0);
  // Split into work units, DPOR runs one execution more than unsplit (20 for 19 traces), for both names.
  CHECK_THAT(dpor.text, Catch::Contains(": 19 executions, 19 distinct traces, exhausted, 0 violating"));
  CHECK(dpor.text == dfs.text);
}

TEST_CASE("run: strategy dpor refuses the flags only dfs takes, unknown names list the table", "[cli][strategies]") {
  // Each refused command line, and what its message must say (exit 2 for all). Without --strategy the run is
  // random's, and the message says so rather than naming a flag not given.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"run " + kScenario + " --strategy dpor --reduction none",
       "--reduction applies to --strategy dfs only (--strategy dpor takes no reduction)"},
      {"run " + kScenario + " --strategy dpor --preemption-bound 1",
       "--preemption-bound applies to --strategy dfs only (--strategy dpor takes no bound)"},
      {"run " + kScenario + " --reduction symmetry",
       "--reduction applies to --strategy dfs only (--strategy random takes no reduction)"},
      {"run " + kScenario + " --strategy bogus", "unknown strategy \"bogus\" (available: random, pct, dfs, dpor)"},
      {"sweep " + kScenario + " --strategy bogus", "unknown strategy \"bogus\" (available: random, pct, dfs, dpor)"},
  };
  for (const auto& [args, message] : refused) {
    INFO(args);
    const auto r = allocsim_in_root(args);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(message));
  }
}

TEST_CASE("run prints a dfs finding's schedule in the form replay --schedule reads", "[cli][schedule]") {
  const auto run =
      allocsim_in_root("run scenarios/mutants/client-side-claim.json --strategy dfs --no-trace --no-shrink");
  REQUIRE(run.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(run.text, m, std::regex("\nschedule: (v1:\\S+)\n")));
  const auto replay =
      allocsim_in_root("replay scenarios/mutants/client-side-claim.json --schedule '" + m[1].str() + "'");
  CHECK(replay.code == 1);  // the violation, replayed
  CHECK_THAT(replay.text, Catch::Contains("violation: single-ownership"));
}

TEST_CASE("replay --schedule: a divergence names actors, its step, what was runnable, and the prefix",
          "[cli][schedule]") {
  // flowA has far fewer than 40 steps: the schedule asks for flowA after it finished.
  const auto r = allocsim_in_root("replay " + kScenario + " --schedule 'v1:flowA*40'");
  CHECK(r.code == 4);
  std::smatch m;
  REQUIRE(std::regex_search(r.text, m, std::regex("diverged at step (\\d+) \\((\\d+) steps replayed\\)")));
  const int step = std::stoi(m[1]);
  CHECK(m[1] == m[2]);
  CHECK(step > 0);
  CHECK(step < 40);
  CHECK_THAT(r.text, Catch::Contains("the schedule runs flowA, which cannot run here (runnable: flowB)"));
  CHECK_THAT(r.text, !Catch::Contains("actor #"));
  // The replayed prefix, as the usual table: exactly `step` rows, all of flowA.
  const size_t table = r.text.find("replayed prefix:\n");
  REQUIRE(table != std::string::npos);
  const std::string rows = r.text.substr(table);
  CHECK_THAT(rows, Catch::Contains(fmt::format("  {:>5}  flowA", step - 1)));
  CHECK_THAT(rows, !Catch::Contains(fmt::format("  {:>5}  ", step)));
  CHECK_THAT(rows, !Catch::Contains("flowB"));
}

// Command lines as a user types and pastes them: replay's header is the whole replay command, top-level
// `--version` and `help` take no stray argument (`help COMMAND` is `COMMAND --help`), and the sweep summary
// shows only the counts that can be non-zero. (The earlier rough edges: tests/cli/rough_edges.cpp.)
#include <catch2/catch.hpp>

#include <string>

#include "tests/cli/support.h"

using namespace cli_test;

TEST_CASE("replay's header is the whole replay line: mutants, --max-steps and --order included", "[cli][wording]") {
  // Before, the header dropped them: pasted, it replayed the faithful port with the scenario's step limit.
  const std::string sc = "scenarios/alloc-004-one-plan-two-claimants.json";
  const std::string flags =
      " --mutant client-side-claim --max-steps 40 --order '[[\"flowA:inventory\", "
      "\"flowB:reserve\"]]'";
  for (const std::string target : {"--seed 7", "--schedule 'v1:flowB*3,flowA*9'"}) {
    INFO(target);
    const Captured r = allocsim("replay " + sc + " " + target + flags);
    INFO(r.text);
    const std::string header = r.text.substr(0, r.text.find('\n'));
    const std::string command = header.substr(0, header.find(": "));
    CHECK(command == "allocsim replay " + sc + " " + target + flags);
    const Captured again = sh(std::string(ALLOCSIM_BINARY) + command.substr(std::string("allocsim").size()));
    CHECK(again.text == r.text);
  }
}

TEST_CASE("allocsim --version and help take no stray argument, and help COMMAND is COMMAND --help", "[cli][errors]") {
  const Captured extra = allocsim("--version extra");
  CHECK(extra.code == 2);
  CHECK_THAT(extra.text, Catch::Contains("unexpected argument \"extra\" after --version (usage: allocsim --version)"));
  const Captured help_run = allocsim("help run");
  CHECK(help_run.code == 0);
  CHECK(help_run.text == allocsim("run --help").text);
  const Captured typo = allocsim("help rnu");
  CHECK(typo.code == 2);
  CHECK_THAT(typo.text, Catch::Contains("unknown command \"rnu\" (did you mean run?)"));
  CHECK(allocsim("help help").text == allocsim("--help").text);
  // Every form a subcommand's own usage names, swarm's merge included, is on the top-level page.
  CHECK_THAT(allocsim("--help").text, Catch::Contains("\n  allocsim swarm merge DIR... --out DIR  "));
  CHECK_THAT(allocsim("swarm --help").text, Catch::Contains("\n       allocsim swarm merge SHARD-DIR... --out DIR\n"));
}

TEST_CASE("the sweep summary counts undecided scenarios only in a shard, where there can be some", "[cli][wording]") {
  const std::string files =
      "sweep scenarios/alloc-004-one-plan-two-claimants.json scenarios/alloc-005-last-out.json "
      "--no-corpus";
  const Captured whole = allocsim(files);
  CHECK_THAT(whole.text, Catch::Contains("2 scenarios: 2 met, 0 not met, 0 input errors;"));
  TempDir dir;
  const Captured shard = allocsim(files + " --shard 1/2 --report-json " + (dir / "s.json"));
  CHECK_THAT(shard.text, Catch::Contains("2 scenarios: 1 met, 0 not met, 1 undecided (shard), 0 input errors;"));
}

// The flag tables (tools/allocsim/flag_table.h, docs/DESIGN.md §7 "Flags") as a user meets them: each command's
// --help lists each of its flags once, a flag several commands take has one range and one message on all of them,
// and a flag that changes nothing without another is refused, never ignored.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/support.h"

using namespace cli_test;

namespace {

/// The long flags `allocsim ARGS --help` lists, in order (Boost's layout: "  --name ..." or "  -j [ --name ] ...").
std::vector<std::string> help_flags(const std::string& args) {
  const Captured r = allocsim(args + " --help");
  INFO(args << "\n" << r.text);
  REQUIRE(r.code == 0);
  std::vector<std::string> out;
  const std::regex line(R"(^  (?:-[A-Za-z] \[ )?--([a-z][a-z0-9-]*))");
  std::istringstream in(r.text);
  for (std::string l; std::getline(in, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) out.push_back(m[1]);
  }
  return out;
}

const std::string kFlagsScenario = "scenarios/alloc-005-last-out.json";

}  // namespace

TEST_CASE("every command's --help lists each of its flags once, from the tables", "[cli][flags]") {
  // The commands and, for each, flags that must be there: one from each table where the command takes both.
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {"run", {"help", "strategy", "seed", "shrink-runs", "trace-out", "report-json"}},
      {"replay", {"help", "seed", "schedule", "record", "perfetto"}},
      {"sweep", {"help", "strategy", "jobs", "shard", "checkpoint-interval", "junit", "report-html"}},
      {"merge", {"help", "report-json", "junit"}},
      {"swarm", {"help", "seed", "scenarios", "jobs", "shard", "checkpoint-interval", "out", "generate"}},
      {"swarm merge", {"help", "out", "report-json", "report-html", "junit", "report-junit"}},
      {"selfcheck", {"help", "seed", "scenarios", "jobs", "checkpoint", "resume", "no-mutants"}},
      {"shrink", {"help", "output", "shrink-runs", "shrink-budget", "check-invariants"}},
      {"findings", {"help", "report-json", "report-html", "fail-on-still-failing"}},
      {"corpus", {"help", "dry-run"}},
      {"trace explain", {"help", "write"}},
      {"trace order", {"help", "full", "budget"}},
  };
  for (const auto& [cmd, wanted] : commands) {
    const std::vector<std::string> flags = help_flags(cmd);
    INFO(cmd);
    std::map<std::string, int> seen;
    for (const std::string& f : flags) ++seen[f];
    for (const auto& [f, n] : seen) {
      INFO("--" << f);
      CHECK(n == 1);
    }
    for (const std::string& f : wanted) {
      INFO("--" << f);
      CHECK(seen.count(f) == 1);
    }
    CHECK(flags.front() == "help");
  }
  // A flag only other commands take is not declared here: Boost refuses it.
  const Captured r = allocsim("merge x.json --jobs 2");
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains("unrecognised option '--jobs'"));
}

TEST_CASE("a flag several commands take has one range and one message on each of them", "[cli][flags]") {
  TempDir tmp;
  const std::string out = (tmp.path / "out").string(), cp = (tmp.path / "c.json").string();
  check_refused({
      {"sweep " + kFlagsScenario + " --jobs 0", "--jobs: expected 1 to 256, got 0"},
      {"swarm --out " + out + " --jobs 0", "--jobs: expected 1 to 256, got 0"},
      {"selfcheck --jobs 0", "--jobs: expected 1 to 256, got 0"},
      {"sweep " + kFlagsScenario + " --jobs 0x101", "--jobs: expected 1 to 256, got 257"},
      {"run " + kFlagsScenario + " --shrink-runs 0", "--shrink-runs: expected 1 to 1000000000000, got 0"},
      {"swarm --out " + out + " --shrink-runs 0", "--shrink-runs: expected 1 to 1000000000000, got 0"},
      {"selfcheck --shrink-runs 0", "--shrink-runs: expected 1 to 1000000000000, got 0"},
      {"sweep " + kFlagsScenario + " --checkpoint " + cp + " --checkpoint-interval 86401",
       "--checkpoint-interval: expected 0 to 86400, got 86401"},
      {"swarm --out " + out + " --checkpoint " + cp + " --checkpoint-interval 86401",
       "--checkpoint-interval: expected 0 to 86400, got 86401"},
      {"swarm --out " + out + " --scenarios 0", "--scenarios: expected 1 to 100000000, got 0"},
      {"selfcheck --scenarios 0", "--scenarios: expected 1 to 100000000, got 0"},
  });
  CHECK_FALSE(std::filesystem::exists(out));  // refused before --out is created
  CHECK_FALSE(std::filesystem::exists(cp));
  // The swarm's and the self-check's shrink bound is the run's: a bound past the old 10^9 is taken.
  const Captured big = allocsim("swarm --out " + out + " --scenarios 1 --per-scenario 1 --shrink-runs 2000000000");
  INFO(big.text);
  CHECK((big.code == 0 || big.code == 1));
  // And the sweep's checkpoint interval takes 0, as the swarm's does (none within a unit, only at its end).
  const Captured zero = allocsim("sweep " + kFlagsScenario + " --checkpoint " + cp + " --checkpoint-interval 0");
  INFO(zero.text);
  CHECK(zero.code == 0);
}

TEST_CASE("a checkpoint interval without --checkpoint or --resume is refused, not ignored", "[cli][flags]") {
  TempDir tmp;
  const std::string out = (tmp.path / "out").string();
  check_refused({
      {"sweep " + kFlagsScenario + " --checkpoint-interval 1",
       "--checkpoint-interval: only with --checkpoint or --resume (without one it changes nothing)"},
      {"swarm --out " + out + " --checkpoint-interval 1",
       "--checkpoint-interval: only with --checkpoint or --resume (without one it changes nothing)"},
  });
  CHECK_FALSE(std::filesystem::exists(out));
  // --help still answers beside it.
  CHECK(allocsim("sweep --checkpoint-interval 1 --help").code == 0);
}

TEST_CASE("a flag beside one it contradicts, or one it makes change nothing, is refused naming both", "[cli][flags]") {
  TempDir tmp;
  const std::string corpus = (tmp.path / "corpus").string();
  check_refused({
      {"run " + kFlagsScenario + " --no-shrink --shrink-runs 3", "--no-shrink and --shrink-runs contradict each other"},
      {"run " + kFlagsScenario + " --no-shrink --shrink-budget 5",
       "--no-shrink and --shrink-budget contradict each other"},
      {"run " + kFlagsScenario + " --no-trace --trace-out " + (tmp.path / "t.json").string(),
       "--no-trace and --trace-out contradict each other: give one"},
      {"run " + kFlagsScenario + " --no-corpus --corpus " + corpus, "--no-corpus and --corpus contradict each other"},
      {"sweep " + kFlagsScenario + " --no-corpus --corpus " + corpus, "--no-corpus and --corpus contradict each other"},
      {"sweep " + kFlagsScenario + " --shard 1/2 --corpus " + corpus, "--corpus: not with --shard K/N"},
      {"trace order x.trace.json --full --budget 5", "--full and --budget contradict each other"},
  });
  CHECK_FALSE(std::filesystem::exists(corpus));
  // A repeatable flag given one value twice, on every command that takes it.
  check_refused({
      {"run " + kFlagsScenario + " --mutant client-side-claim --mutant client-side-claim",
       "--mutant client-side-claim: given twice (once is enough)"},
      {"replay " + kFlagsScenario +
           " --seed 1 --mutant stale-last-out --mutant client-side-claim --mutant stale-last-out",
       "--mutant stale-last-out: given twice"},
      {"swarm --out " + (tmp.path / "s").string() + " --until single-ownership --until single-ownership",
       "--until single-ownership: given twice"},
  });
  CHECK_FALSE(std::filesystem::exists(tmp.path / "s"));
  // The default of a flag is not a flag given: --no-shrink alone is taken.
  CHECK(allocsim("run " + kFlagsScenario + " -n 5 --no-shrink").code == 0);
}

TEST_CASE("a swarm report named as a finding's file in --out is refused", "[cli][flags]") {
  TempDir tmp;
  const std::string out = (tmp.path / "out").string();
  check_refused({
      {"swarm --scenarios 2 --out " + out + " --report-html " + out + "/capacity-within-cards-f6e424b9.json",
       "--report-html " + out + "/capacity-within-cards-f6e424b9.json: is named as the swarm names a finding's file"},
      {"swarm --scenarios 2 --out " + out + " --report-json " + out + "/no-double-grant-0123abcd.trace.json",
       "is named as the swarm names a finding's file in --out " + out},
  });
  CHECK_FALSE(std::filesystem::exists(out));
  // Other names are never the swarm's (the nightly script keeps report.html in the swarm's folder).
  std::filesystem::create_directories(out);
  const Captured r = allocsim("swarm --scenarios 2 --per-scenario 5 --out " + out + " --report-html " + out +
                              "/report.html --report-json " + out + "/report.json");
  INFO(r.text);
  CHECK((r.code == 0 || r.code == 1));
  CHECK(std::filesystem::exists(out + "/report.html"));
  CHECK(std::filesystem::exists(out + "/report.json"));
}

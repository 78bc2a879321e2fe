// The command line as a user meets it: exit codes (docs/DESIGN.md §7), the printed replay line, input errors,
// and determinism across processes.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <regex>
#include <string>

namespace {

using Result = cli_test::Captured;
using cli_test::allocsim;

std::string replay_line(const std::string& out) {
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex("replay: (allocsim replay [^\n]+)")));
  return m[1];
}

}  // namespace

TEST_CASE("run: a passing scenario exits 0 and says so", "[cli]") {
  Result r = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --executions 300");
  CHECK(r.code == 0);
  CHECK_THAT(r.text, Catch::Contains("300 executions"));
  CHECK_THAT(r.text, Catch::Contains("0 violating"));
  CHECK_THAT(r.text, Catch::Contains("expectation met: no violation"));
}

TEST_CASE("run with a mutant: violation, trace, replay line, and replay reproduces it and exits 1", "[cli]") {
  Result r = allocsim(
      "run scenarios/alloc-004-one-plan-two-claimants.json --executions 2000 --mutant client-side-claim "
      "--no-shrink --no-trace --no-corpus");  // the README's example stores this run in scenarios/.allocsim/corpus/
  CHECK(r.code == 1);                         // the scenario expects a pass; the mutant breaks it
  CHECK_THAT(r.text, Catch::Contains("violation: single-ownership"));
  CHECK_THAT(r.text, Catch::Contains("owner.update.before"));
  CHECK_THAT(r.text, Catch::Contains("expectation NOT met"));
  const std::string line = replay_line(r.text);
  CHECK_THAT(line, Catch::Contains("--mutant client-side-claim"));
  Result again = allocsim(line.substr(std::string("allocsim ").size()));
  CHECK(again.code == 1);
  CHECK_THAT(again.text, Catch::Contains("violation: single-ownership"));
  // The trace printed by run and by replay is the same, line for line (replay then adds the outcomes).
  const auto trace_of = [](const std::string& s) { return s.substr(s.find("violation: ")); };
  CHECK(trace_of(again.text).substr(0, trace_of(again.text).find("outcomes:\n")) ==
        trace_of(r.text).substr(0, trace_of(r.text).find("replay: ")));
}

TEST_CASE("run: an expected violation that is found exits 0 and still prints the trace", "[cli]") {
  // --no-corpus: a corpus entry a user's own run left beside the file (scenarios/mutants/.allocsim/corpus/) would be
  // replayed first and print its replay line before the seed's.
  Result r = allocsim("run scenarios/mutants/stale-last-out.json --executions 2000 --no-trace --no-corpus");
  CHECK(r.code == 0);
  CHECK_THAT(r.text, Catch::Contains("violation: shared-map-never-deleted"));
  CHECK_THAT(r.text, Catch::Contains("expectation met: the expected violation was found"));
  CHECK_THAT(replay_line(r.text), Catch::StartsWith("allocsim replay scenarios/mutants/stale-last-out.json --seed "));
}

TEST_CASE("replay of a seed without a violation exits 0", "[cli]") {
  Result r = allocsim("replay scenarios/alloc-005-last-out.json --seed 3");
  CHECK(r.code == 0);
  CHECK_THAT(r.text, Catch::Contains("no violation"));
}

// Seed 0 by default would replay some execution, not the one the user saw (a new user's report): refused.
TEST_CASE("replay of a scenario with neither --seed nor --schedule is refused with exit 2", "[cli]") {
  Result r = allocsim("replay scenarios/alloc-005-last-out.json");
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains("replay scenarios/alloc-005-last-out.json: which execution? give --seed E or "
                                     "--schedule S"));
  CHECK_THAT(r.text, !Catch::Contains("steps,"));  // nothing ran
  CHECK(allocsim("replay scenarios/alloc-005-last-out.json --seed 0").code == 0);
}

TEST_CASE("the same seed in two processes gives the same fingerprint", "[cli][determinism]") {
  for (const char* seed : {"0", "1", "18446744073709551615", "0x5eed"}) {
    Result a = allocsim(std::string("replay scenarios/alloc-005-both-release.json --seed ") + seed);
    Result b = allocsim(std::string("replay scenarios/alloc-005-both-release.json --seed ") + seed);
    INFO(seed);
    CHECK(a.code == 0);
    CHECK(a.text == b.text);
    CHECK_THAT(a.text, Catch::Contains("fingerprint "));
  }
}

TEST_CASE("usage and input errors exit 2 with a message naming what is wrong", "[cli]") {
  struct Case {
    const char* args;
    const char* says;
  } cases[] = {
      {"", "usage"},
      {"frobnicate", "unknown command \"frobnicate\"; the commands are run, replay, shrink, sweep, merge, list"},
      {"--nope", "unknown option \"--nope\"; before a command only --help and --version are accepted"},
      {"--verison", "unknown option \"--verison\" (did you mean --version?)"},
      {"run", "missing SCENARIO"},
      {"run scenarios/nope.json", "scenarios/nope.json"},
      {"run scenarios/alloc-005-last-out.json --executions 0", "--executions: expected 1 to"},
      {"run scenarios/alloc-005-last-out.json --executions -5", "--executions: expected an unsigned integer"},
      {"run scenarios/alloc-005-last-out.json --executions 99999999999999999999999",
       "--executions: expected 1 to 1000000000000, got 99999999999999999999999"},
      {"run scenarios/alloc-005-last-out.json --seed banana", "--seed: expected an unsigned integer"},
      {"run scenarios/alloc-005-last-out.json --mutant nope", "--mutant: unknown mutant \"nope\""},
      {"run scenarios/alloc-005-last-out.json --strategy dfx", "--strategy: unknown strategy \"dfx\""},
      {"run scenarios/alloc-005-last-out.json --bogus", "bogus"},
      {"list nonsense", "unknown list \"nonsense\""},
      {"run tests/backend/malformed/unknown_op_typo.json", "did you mean"},
      {"replay scenarios/alloc-005-last-out.json --schedule ''", "--schedule: empty"},
      // output directories are checked before any work, so nothing is half-written
      {"run scenarios/mutants/client-side-claim.json --trace-out /nonexistent-dir/t.json",
       "--trace-out /nonexistent-dir/t.json: directory /nonexistent-dir does not exist"},
      {"run scenarios/mutants/client-side-claim.json --perfetto /nonexistent-dir/p.json",
       "--perfetto /nonexistent-dir/p.json: directory /nonexistent-dir does not exist"},
      {"shrink tests/fuzz/corpus/trace/client-side-claim.shrunk.trace.json -o /nonexistent-dir/m.json",
       "-o /nonexistent-dir/m.json: directory /nonexistent-dir does not exist"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    Result r = allocsim(c.args);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains(c.says));
  }
}

TEST_CASE("list prints the public vocabulary with descriptions", "[cli]") {
  Result b = allocsim("list barriers");
  CHECK(b.code == 0);
  CHECK_THAT(b.text, Catch::Contains("owner.read.after"));
  CHECK_THAT(b.text, Catch::Contains("delete.before"));
  Result m = allocsim("list mutants");
  CHECK_THAT(m.text, Catch::Contains("client-side-claim"));
  CHECK_THAT(m.text, Catch::Contains("ALLOC-004"));
  CHECK_THAT(m.text, Catch::Contains("stale-last-out"));
  // Each op with its keys (its own, then `when`, and `retry` for a reserve) and its outcomes, from the op table.
  Result o = allocsim("list ops");
  CHECK(o.code == 0);
  CHECK_THAT(o.text, Catch::Contains(" keys: node, applies, when; outcomes: done\n"));
  CHECK(
      std::regex_search(o.text,
                        std::regex(
                            R"(\npartial_reads +keys: workloads, devices, reads, listings, when; outcomes: done\n)")));
  CHECK(std::regex_search(
      o.text, std::regex(R"(\nreserve +keys: [a-z_, ]*requests[a-z_, ]*, when, retry; outcomes: claimed, conflict)")));
  // The modifiers' outcomes, last: `issued` is no op's own.
  CHECK(std::regex_search(o.text, std::regex(R"(\nmodifiers: [^\n]*`when` may also record skipped; [^\n]*`behind` )"
                                             R"(records issued [^\n]*ACTOR\.behindK \(K: the op's index[^\n]*\n$)")));
  Result i = allocsim("list invariants");
  CHECK_THAT(i.text, Catch::Contains("single-ownership"));
  CHECK_THAT(i.text, Catch::Contains("quiescent-clean"));
  Result h = allocsim("run --help");
  CHECK(h.code == 0);
  // The defaults as boost prints them, each next to its own flag ("1000" alone would match "10000").
  CHECK(std::regex_search(h.text, std::regex(R"(--executions \] arg \(=1000\) )")));
  CHECK(std::regex_search(h.text, std::regex(R"(--seed arg \(=0\) )")));
  CHECK(std::regex_search(h.text, std::regex(R"(--max-steps arg [\s\S]{0,200}else 10000;)")));
}

TEST_CASE("run refuses a bad shrink flag before it explores, writing nothing", "[cli]") {
  // Found by a new user: the values used to be read only at shrink time, after the run and its output files.
  cli_test::TempDir dir;
  const std::string fp = dir / "fp.txt", rec = dir / "rec.jsonl";
  for (const std::string flag : {"--shrink-budget abc", "--shrink-budget -1", "--shrink-runs 0"}) {
    const Result r = allocsim("run scenarios/mutants/stale-last-out.json --no-corpus --no-trace " + flag +
                              " --fingerprints " + fp + " --record " + rec);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::StartsWith("allocsim: --shrink-"));
    CHECK(r.text.find("executions") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(fp));
    CHECK_FALSE(std::filesystem::exists(rec));
  }
  // Without a violation too (before, such a run exited 0).
  CHECK(allocsim("run scenarios/alloc-004-one-plan-two-claimants.json -n 5 --no-corpus --shrink-budget abc").code == 2);
}

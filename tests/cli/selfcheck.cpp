// allocsim selfcheck (docs/DESIGN.md §7, "Verdict self-check"): exact counts on a fixed seed, a report that does
// not depend on --jobs or on a resume from a checkpoint, contradictions written with the files their replay
// lines name, scenario files instead of generated scenarios, and usage errors. That each check can fail is
// tests/backend/selfcheck_test.cpp's.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "tests/cli/support.h"

using cli_test::allocsim;
using cli_test::read_json;
using cli_test::slurp;
using cli_test::TempDir;

namespace {

const std::string kFixed = "selfcheck --seed 1 --scenarios 12 --per-scenario 20";

}  // namespace

TEST_CASE("selfcheck: a fixed seed gives exact counts", "[selfcheck]") {
  TempDir dir;
  const auto run = allocsim(kFixed + " --report-json " + (dir / "r.json"));
  INFO(run.text);
  const auto r = read_json(dir / "r.json");
  CHECK(r["schema"] == "allocsim/selfcheck-report/v1");
  CHECK(r["scenarios"] == 12);
  CHECK(r["with_order"] == 6);
  CHECK(r["with_mutant"] == 6);
  CHECK(r["executions"] == 629);
  CHECK(r["endings"] == nlohmann::json::parse(R"({"order-blocked": 13, "quiescent": 601, "violation": 15})"));
  CHECK(r["violations"] == nlohmann::json::parse(R"({"found": 15, "checked": 11,
      "by_invariant": {"capacity-within-cards": 7, "no-double-grant": 2, "readiness-answers-its-write": 2}})"));
  CHECK(r["checks"] == nlohmann::json::parse(R"({"check-modes": 651, "explain": 7, "order-blocked": 13,
      "order-pin": 28, "order-pin-file": 8, "replay-schedule": 640, "replay-seed": 194, "replay-trace": 11,
      "shrink": 11})"));
  CHECK(r["skipped"] == nlohmann::json::parse(R"({"explain: the same minimal trace as an earlier violation's": 4,
      "order-pin-file: the explanation has no order block to paste": 4,
      "order-pin-file: run says no order pins it in the file": 16,
      "order-pin-file: the same minimal trace as an earlier violation's": 16,
      "order-pin: the same minimal trace as an earlier violation's": 16})"));
  // Every fault kind the generator has, start states, foreign writes and conditional ops, with and without
  // an order block, are among these 12 scenarios.
  const auto& cover = r["coverage"];
  for (const char* tag :
       {"fault:crash", "fault:raise", "fault:drop_response", "feature:read-faults", "feature:geometry-faults",
        "feature:start-state", "feature:foreign-writes", "feature:conditional", "feature:sweeper", "order"})
    CHECK(cover.value(tag, 0) > 0);
  const auto& c = r["contradictions"];
  CHECK(c["by_kind"] == nlohmann::json::parse(R"({"replay-seed": 0, "replay-schedule": 0, "replay-trace": 0,
      "order-blocked": 0, "shrink": 0, "explain-invariant": 0, "explain-slice": 0, "explain-slice-replay": 0,
      "order-pin": 0, "order-pin-file": 0, "check-modes": 0})"));
  CHECK(c["total"] == 0);
  CHECK(run.code == 0);
  CHECK_THAT(run.text, Catch::Contains("allocsim selfcheck --seed 1: 12 scenarios (6 with a mutant, 6 with an order "
                                       "block), 629 executions\n"));
}

TEST_CASE("selfcheck: the report depends neither on --jobs nor on a resume", "[selfcheck]") {
  TempDir dir;
  allocsim(kFixed + " --jobs 1 --report-json " + (dir / "one.json"));
  allocsim(kFixed + " --jobs 2 --report-json " + (dir / "two.json"));
  const std::string one = slurp(dir / "one.json");
  REQUIRE(!one.empty());
  CHECK(slurp(dir / "two.json") == one);
  // Half the scenarios with a checkpoint, then the rest resumed from it.
  const auto half = allocsim("selfcheck --seed 1 --scenarios 6 --per-scenario 20 --checkpoint " + (dir / "ck.json"));
  INFO(half.text);
  const auto rest = allocsim(kFixed + " --resume " + (dir / "ck.json") + " --report-json " + (dir / "resumed.json"));
  INFO(rest.text);
  CHECK(slurp(dir / "resumed.json") == one);
  // A checkpoint of other options is refused, naming the option.
  const auto other = allocsim("selfcheck --seed 2 --scenarios 12 --per-scenario 20 --resume " + (dir / "ck.json"));
  CHECK(other.code == 2);
  CHECK_THAT(other.text, Catch::Contains("/report/config: written for other options"));
}

TEST_CASE("selfcheck: each contradiction's files are written where its replay line names them", "[selfcheck]") {
  TempDir dir;
  const std::string out = dir / "out";
  const auto run = allocsim(kFixed + " --out " + out + " --report-json " + (dir / "r.json"));
  INFO(run.text);
  const auto r = read_json(dir / "r.json");
  CHECK(run.code == (r["contradictions"]["total"] == 0 ? 0 : 1));
  for (const auto& c : r["contradictions"]["list"]) {
    INFO(c.dump());
    REQUIRE(!c["files"].empty());
    for (const auto& f : c["files"]) CHECK(std::filesystem::exists(out + "/" + f.get<std::string>()));
    // The line's first command runs on the files as written (no usage error, no internal error).
    const std::string line = c["replay"];
    const auto replay = allocsim(line.substr(std::string("allocsim ").size(), line.find(';') - 9));
    CHECK(replay.code <= 1);
  }
}

TEST_CASE("selfcheck: scenario files are checked as they are, with --mutant", "[selfcheck]") {
  TempDir dir;
  const auto run = allocsim("selfcheck scenarios/mutants/client-side-claim.json --per-scenario 20 --report-json " +
                            (dir / "r.json"));
  INFO(run.text);
  const auto r = read_json(dir / "r.json");
  CHECK(r["scenarios"] == 1);
  CHECK(r["with_order"] == 0);
  CHECK(r["config"]["files"] == nlohmann::json::array({"scenarios/mutants/client-side-claim.json"}));
  CHECK(r["violations"]["checked"].get<int>() >= 1);
  CHECK(r["violations"]["by_invariant"].contains("single-ownership"));
  const auto mutant = allocsim(
      "selfcheck scenarios/alloc-005-last-out.json --mutant stale-last-out --per-scenario 40 "
      "--report-json " +
      (dir / "m.json"));
  INFO(mutant.text);
  const auto m = read_json(dir / "m.json");
  CHECK(m["with_mutant"] == 1);
  CHECK(m["coverage"].contains("mutant:stale-last-out"));
  // A mutant the file switches on already is switched on once, as `run --mutant` does (it was an internal
  // error: the scenario with the mutant listed twice did not load).
  const auto twice = allocsim(
      "selfcheck scenarios/mutants/client-side-claim.json --mutant client-side-claim "
      "--per-scenario 20 --report-json " +
      (dir / "t.json"));
  INFO(twice.text);
  CHECK(twice.code == 0);
  CHECK(read_json(dir / "t.json")["coverage"].contains("mutant:client-side-claim"));
}

TEST_CASE("selfcheck: usage errors exit 2 and name the flag or file", "[selfcheck]") {
  TempDir dir;
  cli_test::check_refused({
      {"selfcheck --scenarios 0", "--scenarios"},
      {"selfcheck --scenario 3", "did you mean --scenarios?"},
      {"selfcheck --per-scenario x", "--per-scenario"},
      {"selfcheck --mutant stale-last-out", "--mutant: only with SCENARIO files"},
      {"selfcheck scenarios/alloc-005-last-out.json --mutant nope", "--mutant: unknown mutant \"nope\""},
      {"selfcheck scenarios/alloc-005-last-out.json --scenarios 3", "--scenarios: not with SCENARIO files"},
      {"selfcheck no-such-file.json", "no-such-file.json"},
      {"selfcheck --resume " + (dir / "missing.json"), "--resume"},
      {"selfcheck --report-json " + (dir / "no/such/dir.json"), "--report-json"},
  });
}

TEST_CASE("nightly.sh selfcheck: writes the report, and a longer run resumes the night's checkpoint", "[selfcheck]") {
  TempDir dir;
  const std::string env = std::string("ALLOCSIM=") + ALLOCSIM_BINARY + " ";
  const std::string night = env + "tools/nightly/nightly.sh selfcheck --seed 7 -j 1 ";
  const auto first = cli_test::sh(night + "-n 4 -o " + (dir / "a"));
  INFO(first.text);
  REQUIRE(first.code <= 1);
  CHECK(read_json(dir / "a/selfcheck.json")["scenarios"] == 4);
  CHECK(std::filesystem::exists(dir / "a/selfcheck-checkpoint-7.json"));
  CHECK_THAT(first.text, Catch::Contains("nightly.sh: selfcheck --seed 7 --scenarios 4"));
  // Six scenarios: the four of the checkpoint and two more, the report of a fresh run of six (but its folder).
  const auto longer = cli_test::sh(night + "-n 6 -o " + (dir / "a"));
  INFO(longer.text);
  const auto fresh = cli_test::sh(night + "-n 6 -o " + (dir / "b"));
  INFO(fresh.text);
  CHECK(longer.code == fresh.code);
  auto a = read_json(dir / "a/selfcheck.json"), b = read_json(dir / "b/selfcheck.json");
  CHECK(a["scenarios"] == 6);
  a["config"].erase("out"), b["config"].erase("out");
  for (auto* r : {&a, &b})
    for (auto& c : (*r)["contradictions"]["list"]) c.erase("replay");  // names the folder
  CHECK(a == b);
  CHECK(cli_test::sh(night + "--nope").code == 2);
}

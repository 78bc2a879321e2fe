// `allocsim sweep` and `allocsim merge` as CI uses them: --jobs and --shard do not change the report,
// a SIGKILLed sweep resumes to the same report, JUnit is well-formed XML, bad inputs exit 2.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

using Out = cli_test::Captured;
using cli_test::allocsim;
using cli_test::sh;
using cli_test::slurp;
using cli_test::spit;
using cli_test::TempDir;

// Small scenarios (well under a second each), one of them with an expected violation.
const std::string kSmall =
    "scenarios/alloc-004-simultaneous-claim.json scenarios/alloc-005-last-out.json "
    "scenarios/mutants/client-side-claim.json scenarios/alloc-021-readiness-stages.json";

nlohmann::json without_shards(const std::string& path) {
  auto j = nlohmann::json::parse(slurp(path));
  j.erase("shards");
  return j;
}

}  // namespace

TEST_CASE("sweep: --jobs 2 gives the same report as --jobs 1, byte for byte", "[cli][sweep]") {
  TempDir t;
  Out a = allocsim("sweep " + kSmall + " --jobs 1 --report-json " + (t / "j1.json"));
  Out b = allocsim("sweep " + kSmall + " --jobs 2 --report-json " + (t / "j2.json"));
  CHECK(a.code == 0);
  CHECK(b.code == 0);
  CHECK(a.text == b.text);
  CHECK(slurp(t / "j1.json") == slurp(t / "j2.json"));
  const auto j = nlohmann::json::parse(slurp(t / "j1.json"));
  CHECK(j["schema"] == "allocsim/sweep-report/v1");
  CHECK(j["totals"]["met"] == 4);
  for (const auto& s : j["scenarios"]) {
    CHECK(s["exhausted"] == true);
    CHECK(s["distinct_traces"].get<uint64_t>() >= 1);
  }
  // The mutant's violation is expected: met, with a replay line.
  const auto& m = j["scenarios"][3];
  CHECK(m["path"] == "scenarios/mutants/client-side-claim.json");
  CHECK(m["violations"]["single-ownership"].get<uint64_t>() > 0);
  CHECK_THAT(m["first_violation"]["replay"].get<std::string>(), Catch::Contains("--schedule 'v1:"));
}

TEST_CASE("sweep: 3 shards merged equal the unsharded sweep", "[cli][sweep]") {
  TempDir t;
  REQUIRE(allocsim("sweep " + kSmall + " --jobs 2 --report-json " + (t / "all.json")).code == 0);
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    const std::string f = t / ("s" + std::to_string(k) + ".json");
    Out s = allocsim("sweep " + kSmall + " --shard " + std::to_string(k) + "/3 --report-json " + f);
    CHECK(s.code == 0);
    CHECK(nlohmann::json::parse(slurp(f))["shards"]["shard"] == std::to_string(k) + "/3");
    shards += " " + f;
  }
  Out m = allocsim("merge" + shards + " --report-json " + (t / "merged.json") + " --junit " + (t / "merged.xml"));
  CHECK(m.code == 0);
  CHECK(nlohmann::json::parse(slurp(t / "merged.json"))["shards"]["merged"] == 3);
  CHECK(without_shards(t / "merged.json") == without_shards(t / "all.json"));
  CHECK(without_shards(t / "merged.json").dump() == nlohmann::json::parse(slurp(t / "all.json")).dump());
}

TEST_CASE("merge: mismatched or missing shard reports exit 2 with a clear message", "[cli][sweep]") {
  TempDir t;
  const std::string one = "scenarios/alloc-004-simultaneous-claim.json";
  REQUIRE(allocsim("sweep " + one + " --shard 1/2 --report-json " + (t / "a1.json")).code == 0);
  REQUIRE(allocsim("sweep " + one + " --shard 2/2 --report-json " + (t / "a2.json")).code == 0);
  REQUIRE(allocsim("sweep " + one + " --shard 2/2 --reduction none --report-json " + (t / "b2.json")).code == 0);
  Out mixed = allocsim("merge " + (t / "a1.json") + " " + (t / "b2.json"));
  CHECK(mixed.code == 2);
  CHECK_THAT(mixed.text, Catch::Contains("/config") && Catch::Contains("different sweeps"));
  Out missing = allocsim("merge " + (t / "a1.json"));
  CHECK(missing.code == 2);
  CHECK_THAT(missing.text, Catch::Contains("shard(s) 2/2 missing"));
  Out twice = allocsim("merge " + (t / "a1.json") + " " + (t / "a1.json"));
  CHECK(twice.code == 2);
  CHECK_THAT(twice.text, Catch::Contains("given twice"));
  REQUIRE(allocsim("sweep " + one + " --report-json " + (t / "whole.json")).code == 0);
  Out unsharded = allocsim("merge " + (t / "whole.json"));
  CHECK(unsharded.code == 2);
  CHECK_THAT(unsharded.text, Catch::Contains("not a shard report"));
  const std::string a2 = slurp(t / "a2.json");
  REQUIRE(a2.front() == '{');
  std::ofstream(t / "dup2.json") << "{\"schema\": \"x\", " << a2.substr(1);
  Out dup = allocsim("merge " + (t / "a1.json") + " " + (t / "dup2.json"));
  CHECK(dup.code == 2);
  CHECK_THAT(dup.text, Catch::Contains("dup2.json: /schema: not a valid report: duplicate key \"schema\""));
  std::ofstream(t / "cut.json") << a2.substr(0, a2.size() / 2);
  Out cut = allocsim("merge " + (t / "a1.json") + " " + (t / "cut.json"));
  CHECK(cut.code == 2);
  CHECK_THAT(cut.text, Catch::Contains("cut.json: not a valid report: invalid JSON at line "));
}

TEST_CASE("sweep: SIGKILL mid-sweep, then --resume, gives the uninterrupted report", "[cli][sweep]") {
  TempDir t;
  // Two scenarios of a few seconds in all; checkpoints every second within a unit.
  // Plain DFS (16 units of both-release) keeps the sweep running long enough to be killed mid-way.
  const std::string inputs = "scenarios/alloc-005-both-release.json scenarios/alloc-005-last-out.json --reduction none";
  REQUIRE(allocsim("sweep " + inputs + " --report-json " + (t / "straight.json")).code == 0);

  const std::string ck = t / "ck.json";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(ALLOCSIM_SOURCE_DIR) != 0) _exit(127);
    std::freopen("/dev/null", "w", stdout);
    execl(ALLOCSIM_BINARY, ALLOCSIM_BINARY, "sweep", "scenarios/alloc-005-both-release.json",
          "scenarios/alloc-005-last-out.json", "--reduction", "none", "--checkpoint", ck.c_str(),
          "--checkpoint-interval", "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the first saved position (a finished unit or a position inside one), then kill without
  // warning. How far the sweep got depends on the machine's speed, so the test accepts any point; what
  // it requires is that resuming from there gives the uninterrupted report.
  bool progressed = false;
  for (int i = 0; i < 3000 && !progressed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    const auto j = nlohmann::json::parse(slurp(ck), nullptr, false);
    if (j.is_object() && j.contains("scenarios"))
      for (const auto& s : j["scenarios"]) progressed |= !s["partial"].empty() || !s["done"].empty();
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(progressed);
  INFO("the sweep " << (WIFSIGNALED(status) ? "was killed mid-way" : "finished before the kill"));
  Out resumed = allocsim("sweep " + inputs + " --resume " + ck + " --report-json " + (t / "resumed.json"));
  CHECK(resumed.code == 0);
  CHECK(slurp(t / "resumed.json") == slurp(t / "straight.json"));
  // Resuming a finished checkpoint reproduces the report without running anything new.
  Out again = allocsim("sweep " + inputs + " --resume " + ck + " --report-json " + (t / "again.json"));
  CHECK(again.code == 0);
  CHECK(slurp(t / "again.json") == slurp(t / "straight.json"));
}

TEST_CASE("sweep: a bad, foreign or stale checkpoint exits 2 naming the problem", "[cli][sweep]") {
  TempDir t;
  const std::string sc = t / "s.json";
  fs::copy_file(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-simultaneous-claim.json", sc);
  std::ofstream(t / "garbage.json") << "{not json";
  Out g = allocsim("sweep " + sc + " --resume " + (t / "garbage.json"));
  CHECK(g.code == 2);
  CHECK_THAT(g.text, Catch::Contains("garbage.json: not a valid checkpoint: invalid JSON at line 1 column 3"));

  const std::string ck = t / "ck.json";
  REQUIRE(allocsim("sweep " + sc + " --checkpoint " + ck).code == 0);
  auto j = nlohmann::json::parse(slurp(ck));
  j["tool_version"] = "0.0.1-other";
  std::ofstream(t / "other-version.json") << j.dump();
  Out v = allocsim("sweep " + sc + " --resume " + (t / "other-version.json"));
  CHECK(v.code == 2);
  CHECK_THAT(v.text, Catch::Contains("/tool_version") && Catch::Contains("0.0.1-other"));

  const std::string ck_text = slurp(ck);
  REQUIRE(ck_text.front() == '{');
  std::ofstream(t / "duplicate.json") << "{\"shard\": \"1/1\", " << ck_text.substr(1);
  Out dup = allocsim("sweep " + sc + " --resume " + (t / "duplicate.json"));
  CHECK(dup.code == 2);
  CHECK_THAT(dup.text, Catch::Contains("duplicate.json: /shard: not a valid checkpoint: duplicate key \"shard\""));

  Out flags = allocsim("sweep " + sc + " --reduction none --resume " + ck);
  CHECK(flags.code == 2);
  CHECK_THAT(flags.text, Catch::Contains("/config"));

  std::ofstream(sc, std::ios::app) << "\n";  // same scenario, different bytes: another digest
  Out d = allocsim("sweep " + sc + " --resume " + ck);
  CHECK(d.code == 2);
  CHECK_THAT(d.text, Catch::Contains("changed since the checkpoint"));
}

TEST_CASE("sweep: JUnit XML is well-formed, one testcase per scenario, escaped", "[cli][sweep]") {
  TempDir t;
  // A scenario whose expectation fails (a mutant against a pass scenario would too), and a bad file.
  fs::copy_file(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-simultaneous-claim.json", t / "ok.json");
  std::ofstream(t / "bad <&>.json") << R"({"schema": "allocsim/scenario/v1", "nmae": "x"})";
  Out r = allocsim("sweep " + t.path.string() + " --junit " + (t / "j.xml") + " --report-json " + (t / "r.json"));
  CHECK(r.code == 2);  // a bad scenario file: reported, the rest still judged
  CHECK_THAT(r.text, Catch::Contains("ok   ") && Catch::Contains("ERR "));
  // The summary counts every file given: 1 met + 0 not met + 1 input error (the JSON's totals.scenarios is the
  // 1 that loaded).
  CHECK_THAT(r.text, Catch::Contains("2 scenarios: 1 met, 0 not met, 1 input error;"));
  const auto rep = nlohmann::json::parse(slurp(t / "r.json"));
  REQUIRE(rep["errors"].size() == 1);
  CHECK_THAT(rep["errors"][0]["path"].get<std::string>(), Catch::Contains("bad <&>.json"));
  CHECK(rep["errors"][0]["pointer"].get<std::string>().size() > 0);
  CHECK(rep["totals"]["met"] == 1);
  CHECK(rep["totals"]["scenarios"] == 1);
  CHECK(rep["totals"]["files"] == 2);
  // python3 is part of the dev setup (tools/dev.sh): a missing interpreter fails this test.
  Out py =
      sh("python3 -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
         "cs = r.findall('.//testcase'); assert len(cs) == 2, len(cs); "
         "assert len(r.findall('.//error')) == 1; assert r.get('errors') == '1'; "
         "assert any('bad <&>.json' in c.get('name') for c in cs); print('junit ok')\" '" +
         (t / "j.xml") + "'");
  CHECK(py.code == 0);
  CHECK_THAT(py.text, Catch::Contains("junit ok"));
}

TEST_CASE("sweep: usage errors exit 2 naming the flag", "[cli][sweep]") {
  CHECK(allocsim("sweep").code == 2);
  Out s = allocsim("sweep scenarios/alloc-004-simultaneous-claim.json --shard 4/3");
  CHECK(s.code == 2);
  CHECK_THAT(s.text, Catch::Contains("--shard"));
  Out b = allocsim("sweep scenarios/alloc-004-simultaneous-claim.json --reduction dpor --preemption-bound 1");
  CHECK(b.code == 2);
  CHECK_THAT(b.text, Catch::Contains("unsound"));
  Out n = allocsim("sweep no/such/dir");
  CHECK(n.code == 2);
  CHECK_THAT(n.text, Catch::Contains("no/such/dir"));
  Out o = allocsim("sweep scenarios/alloc-004-simultaneous-claim.json --report-json /no/such/dir/r.json");
  CHECK(o.code == 2);
  CHECK_THAT(o.text, Catch::Contains("--report-json"));
  Out e = allocsim("sweep ''");
  CHECK(e.code == 2);
  CHECK_THAT(e.text, Catch::Contains("an empty path: no such file or directory"));
}

TEST_CASE("sweep: in a folder, a misspelt scenario schema is loaded and refused, not skipped", "[cli][sweep]") {
  // Skipping it would report the folder's scenarios met while one of them never ran. The documents allocsim
  // writes itself (a trace here) are still skipped.
  TempDir t;
  fs::create_directories(t.path / "s");
  fs::copy_file(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios/alloc-004-simultaneous-claim.json", t.path / "s" / "a.json");
  std::string text = slurp(t.path / "s" / "a.json");
  text.replace(text.find("allocsim/scenario/v1"), 20, "allocsim/scenaro/v1");
  spit(t.path / "s" / "b.json", text);
  spit(t.path / "s" / "c.trace.json", R"({"schema": "allocsim/trace/v1"})");
  Out s = allocsim("sweep " + (t / "s"));
  CHECK(s.code == 2);
  CHECK_THAT(s.text,
             Catch::Contains("b.json: /schema: expected \"allocsim/scenario/v1\", got \"allocsim/scenaro/v1\""));
  fs::remove(t.path / "s" / "b.json");
  Out ok = allocsim("sweep " + (t / "s"));
  CHECK(ok.code == 0);
  CHECK_THAT(ok.text, Catch::Contains("1 scenario: 1 met"));
}

// A tree unsplit DPOR exhausts within kDporWholeTreeExecutions (sweep.h) is one unit: split, each unit whose
// prefix starts an actor outside the unsplit source set ran an execution that ended sleep-set blocked (3 for 2
// traces, 39 for 30). One execution per Mazurkiewicz trace, exactly as `run --strategy dpor`.
TEST_CASE("sweep: DPOR runs a small tree as one unit, one execution per trace", "[cli][sweep]") {
  TempDir dir;
  const std::string report = dir / "r.json";
  const Out out = allocsim(
      "sweep scenarios/alloc-009-shares-only-pool.json scenarios/alloc-007-fully-held-never-idle.json --strategy dpor "
      "--no-corpus --report-json " +
      report);
  INFO(out.text);
  REQUIRE(out.code == 0);
  CHECK_THAT(out.text,
             Catch::Contains("scenarios/alloc-009-shares-only-pool.json: 2 executions, 2 distinct traces, exhausted"));
  CHECK_THAT(out.text,
             Catch::Contains(
                 "scenarios/alloc-007-fully-held-never-idle.json: 30 executions, 30 distinct traces, exhausted"));
  // The shard reports list their units: one per scenario over both shards.
  std::map<std::string, int> units;
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string part = dir / "part.json";
    REQUIRE(allocsim("sweep scenarios/alloc-009-shares-only-pool.json scenarios/alloc-007-fully-held-never-idle.json "
                     "--strategy dpor --no-corpus --shard " +
                     std::string(shard) + " --report-json " + part)
                .code == 0);
    const nlohmann::json shard_report = nlohmann::json::parse(slurp(part));  // named: the loop reads into it
    for (const auto& u : shard_report.at("shards").at("units")) ++units[u.at("path").get<std::string>()];
  }
  CHECK(units == std::map<std::string, int>{{"scenarios/alloc-007-fully-held-never-idle.json", 1},
                                            {"scenarios/alloc-009-shares-only-pool.json", 1}});
}

TEST_CASE("sweep: a check a scenario leaves unjudged is said under its line and in the JSON report's notes",
          "[cli][sweep]") {
  TempDir dir;
  const std::string report = dir / "r.json";
  // alloc-004-retry-on-conflict has more op-level executions than ops-atomic's bound; alloc-009 few.
  const Out out = allocsim(
      "sweep scenarios/alloc-004-retry-on-conflict.json scenarios/alloc-009-shares-only-pool.json --strategy random "
      "--executions 20 --no-corpus --report-json " +
      report);
  INFO(out.text);
  REQUIRE(out.code == 0);
  const std::string note =
      "ops-atomic not judged: the scenario has more than 5000 op-level executions (its bound); fewer actors or ops "
      "bring it under; `\"invariants\": {\"all_except\": [\"ops-atomic\"]}` leaves the check out";
  CHECK_THAT(out.text, Catch::Contains("scenarios/alloc-004-retry-on-conflict.json: 20 executions, 0 violating\n"
                                       "     note: " +
                                       note + "\n"));
  CHECK_THAT(out.text,
             Catch::Contains("scenarios/alloc-009-shares-only-pool.json: 20 executions, 0 violating\n") &&
                 !Catch::Contains("scenarios/alloc-009-shares-only-pool.json: 20 executions, 0 violating\n     note"));
  const nlohmann::json r = nlohmann::json::parse(slurp(report));
  CHECK(r.at("scenarios").at(0).at("notes") == nlohmann::json::array({note}));
  CHECK(r.at("scenarios").at(1).at("notes") == nlohmann::json::array());
  // Shards merged say the same: the notes travel in the shard reports.
  for (const char* k : {"1", "2"})
    REQUIRE(allocsim("sweep scenarios/alloc-004-retry-on-conflict.json scenarios/alloc-009-shares-only-pool.json "
                     "--strategy random --executions 20 --no-corpus --shard " +
                     std::string(k) + "/2 --report-json " + (dir / k))
                .code == 0);
  const Out merged = allocsim("merge " + (dir / "1") + " " + (dir / "2") + " --report-json " + (dir / "m.json"));
  INFO(merged.text);
  REQUIRE(merged.code == 0);
  CHECK_THAT(merged.text, Catch::Contains("executions, 0 violating\n     note: " + note + "\n"));
  CHECK(nlohmann::json::parse(slurp(dir / "m.json")).at("scenarios") == r.at("scenarios"));
}

// The prefixes DPOR abandons (sleep-set blocked: sim::ExploreSummary::abandoned) are no executions; the sweep
// counts them per scenario in its text and JSON reports (summed over the units), and a sharded sweep's merged
// report counts the same as the unsharded one.
TEST_CASE("sweep: DPOR's abandoned prefixes are counted in both reports, and across shards", "[cli][sweep]") {
  TempDir dir;
  const std::string files =
      "scenarios/alloc-007-fully-held-never-idle.json scenarios/incident-operator-rewrites-shared-map.json";
  const std::string whole = dir / "whole.json";
  const Out out = allocsim("sweep " + files + " --strategy dpor --no-corpus --report-json " + whole);
  INFO(out.text);
  REQUIRE(out.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(out.text, m,
                            std::regex("incident-operator-rewrites-shared-map.json: 964 executions, 964 distinct "
                                       "traces \\((\\d+) prefixes sleep-set blocked, abandoned\\), exhausted")));
  const uint64_t abandoned = std::stoull(m[1]);
  CHECK(abandoned > 0);
  // None abandoned, none said.
  CHECK_THAT(out.text, Catch::Contains("alloc-007-fully-held-never-idle.json: 30 executions, 30 distinct traces, "
                                       "exhausted"));
  const nlohmann::json report = nlohmann::json::parse(slurp(whole));
  CHECK_FALSE(report.at("scenarios").at(0).contains("abandoned_prefixes"));
  const nlohmann::json& split = report.at("scenarios").at(1);
  CHECK(split.at("work_units").get<uint64_t>() > 1);
  CHECK(split.at("abandoned_prefixes") == abandoned);
  std::string parts;
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string part = dir / (std::string("part") + shard[0] + ".json");
    REQUIRE(
        allocsim("sweep " + files + " --strategy dpor --no-corpus --shard " + shard + " --report-json " + part).code ==
        0);
    parts += " " + part;
  }
  const std::string merged = dir / "merged.json";
  REQUIRE(allocsim("merge" + parts + " --report-json " + merged).code == 0);
  CHECK(nlohmann::json::parse(slurp(merged)).at("scenarios").at(1).at("abandoned_prefixes") == abandoned);
}

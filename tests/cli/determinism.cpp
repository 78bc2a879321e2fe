// Determinism, proven (docs/DESIGN.md §3, "Fingerprints"): 1,000 executions of a scenario, run in two separate
// processes, give the same fingerprint execution by execution; `--check-determinism` passes on a real
// scenario; `--fingerprints` writes its file whole or not at all.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using Result = cli_test::Captured;
using cli_test::allocsim;

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

using Scratch = cli_test::TempDir;

}  // namespace

TEST_CASE("determinism: 1,000 seeds in two separate processes give the same fingerprints", "[cli][determinism]") {
  Scratch s;
  // A mutant scenario: some executions violate an invariant, so the violation is part of what is compared.
  // --no-trace --no-shrink: the first violation is only printed (no trace file in the tree, no shrink time).
  const std::string common =
      "run scenarios/mutants/stale-last-out.json --no-trace --no-shrink --executions 1000 --seed 7 --fingerprints ";
  const fs::path a = s.path / "a.txt", b = s.path / "b.txt";
  const Result ra = allocsim(common + a.string());
  const Result rb = allocsim(common + b.string());
  INFO(ra.text);
  REQUIRE((ra.code == 0 || ra.code == 1));
  REQUIRE(rb.code == ra.code);
  const auto la = lines_of(a), lb = lines_of(b);
  REQUIRE(la.size() == 1000);
  REQUIRE(lb.size() == 1000);
  std::set<std::string> distinct;
  for (size_t i = 0; i < la.size(); ++i) {
    INFO("execution " << i);
    CHECK(la[i] == lb[i]);
    std::istringstream fields(la[i]);
    uint64_t index = 0, seed = 0;
    std::string fp;
    fields >> index >> seed >> fp;
    CHECK(index == i);
    CHECK(fp.size() == 16);
    if (i == 0) CHECK(seed == 7);  // execution 0 of a run seeded with S uses S itself (docs/DESIGN.md §3)
    distinct.insert(fp);
  }
  // Different schedules must show: equal files of one repeated fingerprint would prove nothing.
  CHECK(distinct.size() > 10);
}

TEST_CASE("determinism: --check-determinism passes on real scenarios and exits 0/1 as usual", "[cli][determinism]") {
  // The flag must be seen to work: the run reports how many executions the runner really re-ran (counted
  // where it re-runs them, backend/system/judge.cpp), all of them, and nothing without the flag. That a
  // re-run which differs is caught is tests/sim/determinism.cpp's ("state leaking between executions").
  const std::string checked = "executions re-run from their recorded schedules, identical";
  const Result pass = allocsim("run scenarios/alloc-005-last-out.json --executions 300 --check-determinism");
  INFO(pass.text);
  CHECK(pass.code == 0);
  CHECK_THAT(pass.text, Catch::Contains("  300 executions, "));
  CHECK_THAT(pass.text, Catch::Contains("  determinism: 300 of 300 " + checked + "\n"));
  CHECK_THAT(pass.text, !Catch::Contains("NONDETERMINISM"));
  const Result plain = allocsim("run scenarios/alloc-005-last-out.json --executions 300");
  CHECK_THAT(plain.text, !Catch::Contains(checked));
  // Apart from that line, the flag changes nothing in what the run reports.
  std::string without_line = pass.text;
  const std::string line = "  determinism: 300 of 300 " + checked + "\n";
  if (const size_t at = without_line.find(line); at != std::string::npos) without_line.erase(at, line.size());
  CHECK(without_line == plain.text);

  // dfs: the tree of ALLOC-004 with DPOR is smaller than 200; every execution explored is re-run.
  const Result dfs = allocsim(
      "run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs --executions 200 --check-determinism");
  INFO(dfs.text);
  CHECK(dfs.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(dfs.text, m, std::regex(R"(\n  (\d+) executions, )")));
  CHECK_THAT(dfs.text, Catch::Contains("  determinism: " + m[1].str() + " of " + m[1].str() + " " + checked));
  // A violating run (execution 0 of this seed violates): exit 0, the violation being expected, and every
  // execution re-run, the violating one included.
  const Result mutant = allocsim(
      "run scenarios/mutants/stale-last-out.json --no-trace --no-shrink --executions 300 "
      "--seed 13095918622469000722 --check-determinism");
  INFO(mutant.text);
  CHECK(mutant.code == 0);
  CHECK_THAT(mutant.text, Catch::Contains("  shared-map-never-deleted: "));
  CHECK_THAT(mutant.text, Catch::Contains("  determinism: 300 of 300 " + checked + "\n"));
  CHECK_THAT(mutant.text, !Catch::Contains("NONDETERMINISM"));
}

TEST_CASE("determinism: --fingerprints into a missing directory is a usage error and writes nothing",
          "[cli][determinism]") {
  Scratch s;
  const fs::path target = s.path / "missing" / "fp.txt";
  const Result r = allocsim("run scenarios/alloc-005-last-out.json --executions 10 --fingerprints " + target.string());
  INFO(r.text);
  CHECK(r.code == 2);
  CHECK_THAT(r.text, Catch::Contains("--fingerprints"));
  CHECK(!fs::exists(target));
  CHECK(fs::is_empty(s.path));
}

TEST_CASE("determinism: sweep --check-determinism re-runs every execution, reports it, and merges only like shards",
          "[cli][determinism][sweep]") {
  Scratch s;
  const std::string file = "scenarios/mutants/stale-last-out.json";
  const std::string report = (s.path / "all.json").string();
  const Result all = allocsim("sweep " + file + " --check-determinism --jobs 2 --report-json " + report);
  INFO(all.text);
  CHECK(all.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(all.text, m, std::regex(R"(: (\d+) executions, )")));
  const std::string n = m[1].str();
  CHECK_THAT(all.text, Catch::Contains("     determinism: " + n +
                                       " executions re-run from their recorded schedules, "
                                       "identical\n"));
  const nlohmann::json j = cli_test::read_json(report);
  CHECK(j.at("config").at("check_determinism") == true);
  CHECK(j.at("scenarios").at(0).at("determinism") == nlohmann::json{{"rechecked", std::stoull(n)}, {"divergent", 0}});
  // Without the flag: no line, no key, and the same counts otherwise.
  const std::string plain_report = (s.path / "plain.json").string();
  const Result plain = allocsim("sweep " + file + " --jobs 2 --report-json " + plain_report);
  CHECK_THAT(plain.text, !Catch::Contains("determinism"));
  CHECK_FALSE(cli_test::read_json(plain_report).at("scenarios").at(0).contains("determinism"));
  CHECK_THAT(plain.text, Catch::Contains(": " + n + " executions, "));
  // Shards of a rechecked and a plain sweep are different sweeps: merge refuses them.
  const std::string a1 = (s.path / "a1.json").string(), b2 = (s.path / "b2.json").string();
  REQUIRE(allocsim("sweep " + file + " --check-determinism --shard 1/2 --report-json " + a1).code == 0);
  REQUIRE(allocsim("sweep " + file + " --shard 2/2 --report-json " + b2).code == 0);
  const Result mixed = allocsim("merge " + a1 + " " + b2);
  CHECK(mixed.code == 2);
  CHECK_THAT(mixed.text, Catch::Contains(b2 + ": /config/check_determinism: differs from " + a1 +
                                         " (absent vs true): the reports come from different sweeps"));
  // A checkpoint of a rechecked sweep resumes only a rechecked sweep, and says which flag differs.
  const std::string ck = (s.path / "ck.json").string();
  REQUIRE(allocsim("sweep " + file + " --check-determinism --checkpoint " + ck).code == 0);
  const Result resumed = allocsim("sweep " + file + " --resume " + ck);
  CHECK(resumed.code == 2);
  CHECK_THAT(resumed.text, Catch::Contains(ck + ": /config/check_determinism: written by a sweep with other flags "
                                                "(true there, absent in this one)"));
}

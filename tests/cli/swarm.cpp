// allocsim swarm (issue 15): zero false alarms (every written finding replays from its own files, with the
// exit code and invariant summary.json records), results that do not depend on --jobs, the stop rule
// --until, and usage errors.
#include <nlohmann/json.hpp>

#include "tests/cli/support.h"

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::TempDir;

namespace {

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

}  // namespace

TEST_CASE("swarm: every written finding replays from its files, with the invariant recorded", "[swarm]") {
  TempDir dir;
  const auto run = allocsim("swarm --seed 1 --scenarios 40 --out " + dir.path.string());
  INFO(run.text);
  REQUIRE(run.code == 1);  // findings on the faithful port (F2, F6, ... in scenarios/FINDINGS.md)
  const auto summary = read_json(dir / "summary.json");
  REQUIRE(summary["schema"] == "allocsim/swarm/v1");
  REQUIRE(summary["scenarios"] == 40);
  const auto& findings = summary["findings"];
  REQUIRE(findings.size() >= 3);
  REQUIRE(summary["distinct"] == findings.size());
  uint64_t counted = 0;
  for (const auto& f : findings) {
    counted += f["count"].get<uint64_t>();
    const std::string inv = f["invariant"];
    const std::string trace = dir / f["trace"].get<std::string>();
    const std::string scenario = dir / f["file"].get<std::string>();
    INFO(f.dump());
    // The trace replays byte for byte against the scenario it embeds: exit 1, the recorded invariant.
    const auto replay = allocsim("replay " + trace);
    INFO(replay.text);
    REQUIRE(replay.code == 1);
    REQUIRE(replay.text.find("violation: " + inv + "\n") != std::string::npos);
    // The scenario file says what it found, and its trace's schedule breaks it when replayed from the file.
    const auto sc = read_json(scenario);
    REQUIRE(sc["expect"]["violation"] == inv);
    REQUIRE(sc["name"] == f["file"].get<std::string>().substr(0, f["file"].get<std::string>().size() - 5));
    const auto t = read_json(trace);
    REQUIRE(t["scenario"]["path"] == f["file"]);
    const auto by_schedule =
        allocsim("replay " + scenario + " --schedule '" + t["schedule_string"].get<std::string>() + "'");
    INFO(by_schedule.text);
    REQUIRE(by_schedule.code == 1);
    REQUIRE(by_schedule.text.find("violation: " + inv) != std::string::npos);
  }
  REQUIRE(summary["violations"] == counted);  // dedup: each raw violation counted in exactly one finding
}

TEST_CASE("swarm: the findings do not depend on --jobs, and a shard runs its share", "[swarm]") {
  TempDir one, two, shard;
  REQUIRE(allocsim("swarm --seed 3 --scenarios 16 --out " + one.path.string()).code <= 1);
  REQUIRE(allocsim("swarm --seed 3 --scenarios 16 --jobs 2 --out " + two.path.string()).code <= 1);
  const std::string a = slurp(one / "summary.json");
  REQUIRE(!a.empty());
  REQUIRE(a == slurp(two / "summary.json"));
  const auto summary = read_json(one / "summary.json");  // a named value: the loop must not outlive it
  for (const auto& f : summary["findings"]) {
    const std::string file = f["trace"];
    REQUIRE(slurp(one / file) == slurp(two / file));
  }
  REQUIRE(allocsim("swarm --seed 3 --scenarios 8 --shard 2/2 --out " + shard.path.string()).code <= 1);
  const auto s = read_json(shard / "summary.json");
  REQUIRE(s["config"]["shard"] == "2/2");
  REQUIRE(s["scenarios"] == 8);
  for (const auto& f : s["findings"]) REQUIRE(f["first_index"].get<uint64_t>() % 2 == 1);
}

TEST_CASE("swarm: --until stops at the first finding of that invariant, --mutant reaches every scenario", "[swarm]") {
  TempDir dir;
  const auto run = allocsim(
      "swarm --seed 1 --scenarios 500 --mutant release-keeps-owner --until quiescent-clean --out " + dir.path.string());
  INFO(run.text);
  REQUIRE(run.code == 1);
  const auto s = read_json(dir / "summary.json");
  REQUIRE(s["stopped_by_until"] == true);
  REQUIRE(s["config"]["mutants"] == nlohmann::json::array({"release-keeps-owner"}));
  const auto& last = s["findings"].back();
  uint64_t max_first = 0;
  for (const auto& f : s["findings"]) max_first = std::max<uint64_t>(max_first, f["first_index"]);
  REQUIRE(s["scenarios"] == max_first + 1);  // stopped right after the scenario that found it
  bool found = false;
  for (const auto& f : s["findings"]) found |= f["invariant"] == "quiescent-clean";
  REQUIRE(found);
  const auto sc = read_json(dir / last["file"].get<std::string>());
  REQUIRE(sc["backend"]["mutants"] == nlohmann::json::array({"release-keeps-owner"}));
}

TEST_CASE("swarm: usage errors exit 2 naming the flag", "[swarm]") {
  TempDir dir;
  const std::string out = " --out " + dir.path.string();
  struct Case {
    std::string args, message;
  };
  for (const Case& c : {Case{"swarm --scenarios 3", "--out: missing"},
                        Case{"swarm --scenarios 3 --budget-executions 10" + out, "give one of them"},
                        Case{"swarm --mutant nope" + out, "--mutant: unknown mutant \"nope\""},
                        Case{"swarm --until nope" + out, "--until: unknown invariant \"nope\""},
                        Case{"swarm --shard 3/2" + out, "--shard"}, Case{"swarm --scenarios 0" + out, "--scenarios"}}) {
    const auto r = allocsim(c.args);
    INFO(c.args << "\n" << r.text);
    REQUIRE(r.code == 2);
    REQUIRE(r.text.find(c.message) != std::string::npos);
  }
  REQUIRE(!std::filesystem::exists(dir / "summary.json"));
}

TEST_CASE("swarm: --generate prints the scenario a finding's description names", "[swarm]") {
  const auto a = allocsim("swarm --generate 42");
  const auto b = allocsim("swarm --generate 42");
  REQUIRE(a.code == 0);
  REQUIRE(a.text == b.text);
  const auto j = nlohmann::json::parse(a.text);
  REQUIRE(j["schema"] == "allocsim/scenario/v1");
  REQUIRE(j["name"] == "swarm-42");
}

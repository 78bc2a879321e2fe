// `allocsim findings diff` (tools/allocsim/findings.h, docs/DESIGN.md §7 "Findings diff") on the three recorded
// nights of tests/findings/ (README.md there: a sweep report and a swarm folder each, recorded with
// tests/findings/record.sh): the exact text, the JSON's classes, the HTML sections, the exit codes, the pointer
// to a night's sweep page, and errors naming the file and JSON pointer.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace fs = std::filesystem;

namespace {

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::TempDir;
const std::string kNights = "findings diff tests/findings/night-1 tests/findings/night-2 tests/findings/night-3";

// The whole text of the three-night diff: every class once, each with its signature, nights seen, summary
// and replay line (none for an input error).
const char* kThreeNights = R"(findings diff over 3 nights, oldest first:
  tests/findings/night-1
  tests/findings/night-2
  tests/findings/night-3  (tonight)
2 new, 2 still failing, 1 rare, 1 resolved

NEW: input-error broken.json (document root) (seen 1 of 3 nights)
  scenarios/broken.json: (document root): invalid JSON at line 2 column 1: syntax error while parsing object - unexpected end of input; expected '}'

NEW: sweep last-out shared-map-never-deleted (seen 1 of 3 nights)
  last-out (scenarios/last-out.json): shared-map-never-deleted: the pointer names default-mig-parted-config while the shared map still holds 1 entry
  replay: allocsim replay scenarios/last-out.json --schedule 'v1:flowA*11,flowB*6,flowA,flowB*2,flowA'

STILL FAILING: swarm capacity-within-cards @ race owner.update.before <> bind_workload (seen 3 of 3 nights)
  capacity-within-cards (in 2 of the night's scenarios; minimal scenario tests/findings/night-3/swarm/capacity-within-cards-f6e424b9.json)
  replay: allocsim replay tests/findings/night-3/swarm/capacity-within-cards-f6e424b9.trace.json

STILL FAILING: sweep one-plan-two-claimants single-ownership (seen 3 of 3 nights)
  one-plan-two-claimants (scenarios/one-plan-two-claimants.json): single-ownership: node n1 is covered by live claim claim-flowA-2 of flowA but its owner is flowB
  replay: allocsim replay scenarios/one-plan-two-claimants.json --schedule 'v1:flowA*4,flowB,flowA*4,flowB*2'

RARE: swarm shared-map-never-deleted @ race owner.update.after <> owner.update.after (seen 2 of 3 nights)
  shared-map-never-deleted (in 1 of the night's scenarios; minimal scenario tests/findings/night-3/swarm/shared-map-never-deleted-5b02996a.json)
  replay: allocsim replay tests/findings/night-3/swarm/shared-map-never-deleted-5b02996a.trace.json

RESOLVED: sweep both-release quiescent-clean (seen 1 of 3 nights)
  both-release (scenarios/both-release.json): quiescent-clean: flowA released what it claimed, but still owns node n1
  replay: allocsim replay scenarios/both-release.json --schedule 'v1:flowA*13,flowB*13'
)";

/// signature -> class, from a --report-json document.
std::map<std::string, std::string> classes(const nlohmann::json& j) {
  std::map<std::string, std::string> out;
  for (const auto& f : j.at("findings")) out[f.at("signature").get<std::string>()] = f.at("class").get<std::string>();
  return out;
}

}  // namespace

TEST_CASE("findings diff sorts three recorded nights into new, still failing, rare and resolved", "[cli][findings]") {
  const cli_test::Captured r = allocsim(kNights);
  INFO(r.text);
  CHECK(r.code == 1);  // a new finding fails the night
  CHECK(r.text == kThreeNights);
}

TEST_CASE("findings diff of the last two nights: the JSON report's classes and counts", "[cli][findings]") {
  TempDir dir;
  const std::string json = dir / "diff.json";
  const cli_test::Captured r =
      allocsim("findings diff tests/findings/night-2 tests/findings/night-3 --report-json " + json);
  INFO(r.text);
  CHECK(r.code == 1);
  const nlohmann::json j = nlohmann::json::parse(slurp(json));
  CHECK(j.at("schema") == "allocsim/findings-diff/v1");
  CHECK(j.at("nights") == nlohmann::json({"tests/findings/night-2", "tests/findings/night-3"}));
  CHECK(j.at("counts") == nlohmann::json({{"new", 3}, {"still_failing", 2}, {"rare", 0}, {"resolved", 1}}));
  // With two nights nothing is rare: night-1's swarm finding that skipped night-2 is new again.
  CHECK(classes(j) == std::map<std::string, std::string>{
                          {"input-error broken.json (document root)", "new"},
                          {"swarm shared-map-never-deleted @ race owner.update.after <> owner.update.after", "new"},
                          {"sweep last-out shared-map-never-deleted", "new"},
                          {"swarm capacity-within-cards @ race owner.update.before <> bind_workload", "still_failing"},
                          {"sweep one-plan-two-claimants single-ownership", "still_failing"},
                          {"sweep both-release quiescent-clean", "resolved"}});
  const auto& swarm = j.at("findings").at(1);
  CHECK(swarm.at("replay") ==
        "allocsim replay tests/findings/night-3/swarm/shared-map-never-deleted-5b02996a.trace.json");
  CHECK(swarm.at("seen") == nlohmann::json({false, true}));
  CHECK(swarm.at("where") == "tests/findings/night-3/swarm/summary.json /findings/1");
}

TEST_CASE("findings diff: the HTML page has a row per finding and a section per new one", "[cli][findings]") {
  TempDir dir;
  const std::string html = dir / "findings.html";
  const cli_test::Captured r = allocsim(kNights + " --report-html " + html);
  INFO(r.text);
  CHECK(r.code == 1);
  const std::string page = slurp(html);
  const auto count = [&](const std::string& s) {
    size_t n = 0;
    for (size_t p = page.find(s); p != std::string::npos; p = page.find(s, p + 1)) ++n;
    return n;
  };
  CHECK(count("<tr class=\"finding ") == 6);
  CHECK(count("<section class=\"finding new\"") == 2);
  CHECK(count("data-class=\"rare\"") == 1);
  CHECK(count("data-class=\"resolved\"") == 1);
  // The text names each new finding's section of the page, and the page has it.
  CHECK_THAT(r.text, Catch::Contains("  html: " + html + "#f-b71d3401db0da064\n"));
  CHECK(count("<section class=\"finding new\" id=\"f-b71d3401db0da064\" "
              "data-signature=\"sweep last-out shared-map-never-deleted\">") == 1);
  CHECK(count("<script") == 0);
}

TEST_CASE("findings diff: a still-failing finding passes unless --fail-on-still-failing", "[cli][findings]") {
  const cli_test::Captured same = allocsim("findings diff tests/findings/night-1 tests/findings/night-1");
  INFO(same.text);
  CHECK(same.code == 0);
  CHECK_THAT(same.text, Catch::Contains("\n0 new, 3 still failing, 0 rare, 0 resolved\n"));
  CHECK(allocsim("findings diff tests/findings/night-1 tests/findings/night-1 --fail-on-still-failing").code == 1);
}

TEST_CASE("findings diff points a new finding at its section of the night's sweep page", "[cli][findings]") {
  TempDir dir;
  fs::copy(fs::path(ALLOCSIM_SOURCE_DIR) / "tests/findings/night-3", dir.path / "night-3", fs::copy_options::recursive);
  std::ofstream(dir.path / "night-3" / "sweep.html") << "<!DOCTYPE html>\n";
  const cli_test::Captured r = allocsim("findings diff tests/findings/night-2 " + (dir / "night-3"));
  INFO(r.text);
  // last-out is the first scenario of night-3's report with a first violation: section v1 of its page.
  CHECK_THAT(r.text, Catch::Contains("NEW: sweep last-out shared-map-never-deleted (seen 1 of 2 nights)\n") &&
                         Catch::Contains("  report: " + (dir / "night-3") + "/sweep.html#v1\n"));
}

TEST_CASE("findings diff: bad input exits 2 naming the file and the JSON pointer", "[cli][findings][errors]") {
  TempDir dir;
  std::ofstream(dir / "sweep.json")
      << R"({"schema": "allocsim/sweep-report/v1", "scenarios": [{"name": "x", "path": "x.json", )"
         R"("first_violation": null, "expectation": {"met": "yes", "unmet": []}}], "errors": []})";
  std::ofstream(dir / "other.json") << R"({"schema": "allocsim/other/v1"})";
  std::ofstream(dir / "broken.json") << "{\"schema\": ";
  fs::create_directories(dir.path / "empty");
  cli_test::check_refused({
      {"findings diff " + dir.path.string() + " tests/findings/night-3",
       (dir / "sweep.json") + ": /scenarios/0/expectation/met: expected true, false or null, got string"},
      {"findings diff " + (dir / "other.json") + " tests/findings/night-3",
       (dir / "other.json") + ": /schema: expected \"allocsim/sweep-report/v1\" (a sweep report) or "
                              "\"allocsim/swarm/v1\" (a swarm summary), got \"allocsim/other/v1\""},
      {"findings diff " + (dir / "broken.json") + " tests/findings/night-3", (dir / "broken.json") + ": "},
      {"findings diff " + (dir / "empty") + " tests/findings/night-3",
       (dir / "empty") + ": no report in this folder (expected sweep.json, summary.json or swarm/summary.json)"},
      {"findings diff " + (dir / "missing") + " tests/findings/night-3",
       (dir / "missing") + ": no such file or folder"},
      {"findings diff tests/findings/night-3", "findings diff: expected at least two nights, LAST and TONIGHT"},
      {"findings dif a b", "findings: unknown action \"dif\" (did you mean diff?)"},
  });
}

// Coverage in the reports (sim/campaign/coverage_report.h, docs/DESIGN.md §7 "Coverage"): `run --report-json`
// and `--report-html`, a sweep's report (and a merge of its shards: the same lists), and a swarm's summary
// with the generator's features. Exact lists on fixed scenarios and seeds.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::TempDir;
using nlohmann::json;
using Names = std::vector<std::string>;

const std::string kFaultScenarios =
    " scenarios/alloc-033-crash-at-claim-create-after.json scenarios/alloc-005-raise-at-delete-after.json"
    " scenarios/alloc-023-stale-inventory-retry.json scenarios/finding-mig-carved-under-hidden-workload.json"
    " scenarios/incident-mig-partial-apply.json";

Names names(const json& dim, const char* key) { return dim.at(key).get<Names>(); }

}  // namespace

TEST_CASE("run --report-json: what the run reached and never reached", "[cli][coverage]") {
  TempDir dir;
  const cli_test::Captured r = allocsim("run scenarios/alloc-004-one-plan-two-claimants.json -n 200 --report-json " +
                                        (dir / "r.json") + " --report-html " + (dir / "r.html"));
  INFO(r.text);
  CHECK(r.code == 0);
  const json j = json::parse(slurp(dir / "r.json"));
  CHECK(j.at("schema") == "allocsim/run-report/v1");
  CHECK(j.at("expectation") == json({{"met", true}, {"unmet", json::array()}}));
  const json& c = j.at("coverage");
  CHECK(names(c.at("barriers"), "reached") == Names{"owner.read.after", "owner.update.before", "owner.update.after",
                                                    "claim.create.after", "claim.schedule.after"});
  CHECK(names(c.at("barriers"), "never") ==
        Names{"claim.ready.after", "restore.before", "restore.after", "delete.before", "delete.after"});
  CHECK(c.at("barriers").at("reached") == j.at("reached"));
  CHECK(names(c.at("ops"), "reached") == Names{"inventory", "plan", "reserve"});
  CHECK(names(c.at("faults"), "reached").empty());
  CHECK(names(c.at("faults"), "never") == Names{"crash", "raise", "drop_response", "fail_reads", "fail_geometry",
                                                "stale_reads", "partial_reads", "geometry_partial", "reject_binds"});
  // 5 barriers reached: 25 ordered pairs, each listed once.
  CHECK(names(c.at("barrier_pairs"), "reached").size() + names(c.at("barrier_pairs"), "never").size() == 25);
  CHECK(names(c.at("outcomes"), "reached") ==
        Names{"inventory: complete", "plan: feasible", "reserve: claimed", "reserve: conflict", "reserve: skipped"});
  const std::string page = slurp(dir / "r.html");
  CHECK_THAT(page, Catch::Contains("<section class=\"coverage\" id=\"coverage\">") &&
                       Catch::Contains("<tr data-dimension=\"faults\"><td>faults</td><td class=\"num\">0 of 9</td>"));
}

TEST_CASE("sweep: the report's coverage names the fault kinds that fired, and a merge of shards gives the same",
          "[cli][coverage][sweep]") {
  TempDir dir;
  const std::string flags = " --strategy random --executions 300 --no-corpus";
  REQUIRE(allocsim("sweep" + kFaultScenarios + flags + " --report-json " + (dir / "all.json")).code == 0);
  for (const char* k : {"1", "2"})
    REQUIRE(allocsim("sweep" + kFaultScenarios + flags + " --shard " + k + "/2 --report-json " + (dir / k)).code == 0);
  const cli_test::Captured m =
      allocsim("merge " + (dir / "1") + " " + (dir / "2") + " --report-json " + (dir / "m.json"));
  INFO(m.text);
  REQUIRE(m.code == 0);
  const json all = json::parse(slurp(dir / "all.json")), merged = json::parse(slurp(dir / "m.json"));
  const json& c = all.at("coverage");
  CHECK(names(c.at("faults"), "reached") ==
        Names{"crash", "raise", "drop_response", "stale_reads", "partial_reads", "geometry_partial"});
  // No scenario of scenarios/ draws a `faults.fail_reads` or `faults.fail_geometry` fault (they fail reads with
  // the fail_reads op): the list says so.
  CHECK(names(c.at("faults"), "never") == Names{"fail_reads", "fail_geometry", "reject_binds"});
  CHECK(names(c.at("barriers"), "never") == Names{"claim.ready.after"});
  CHECK(merged.at("coverage") == c);
}

TEST_CASE("swarm: summary.json's coverage counts the generator features drawn", "[cli][coverage][swarm]") {
  TempDir dir;
  const cli_test::Captured r =
      allocsim("swarm --seed 1 --scenarios 8 --out " + (dir / "out") + " --report-html " + (dir / "swarm.html"));
  INFO(r.text);
  const json c = json::parse(slurp(dir / "out/summary.json")).at("coverage");
  CHECK(c.at("features") ==
        json::parse(R"({"drawn": {"mig": 3, "sharing=exclusive": 1, "sharing=isolated_mig": 2, "sharing=cooperative": 4,
                                  "sharing=accounting_only": 3, "split-reserve": 2, "status-ops": 6, "release": 8,
                                  "second-reserve": 2, "binds": 4, "foreign-writes": 2, "read-faults": 2,
                                  "geometry-faults": 2, "barrier-faults": 3, "recover": 3, "conditional": 2,
                                  "clock": 1, "flow-clock": 1, "release-listing": 1, "admission-reject": 1,
                                  "sweeper": 1, "bind-behind": 1, "shared-owner": 2, "bind-resource": 1},
                        "never": ["start-state", "leftover-claim", "partial-apply", "leased-sweeper",
                                  "operand-pause", "hidden-devices", "claimed-binds"]})"));
  CHECK(names(c.at("faults"), "reached") == Names{"crash", "raise", "stale_reads", "partial_reads", "reject_binds"});
  // The recorded night of tests/findings/ is this very run: its summary holds the same coverage.
  CHECK(json::parse(slurp(std::string(ALLOCSIM_SOURCE_DIR) + "/tests/findings/night-2/swarm/summary.json"))
            .at("coverage") == c);
  const std::string page = slurp(dir / "swarm.html");
  CHECK_THAT(page, Catch::Contains("<tr data-dimension=\"features\">") &&
                       Catch::Contains("<section class=\"violation\" id=\"v1\""));
}

TEST_CASE("run --report-json: an exhaustive run's reduction, its state counts and symmetry's classes",
          "[cli][symmetry]") {
  TempDir dir;
  const cli_test::Captured sym = allocsim(
      "run scenarios/mutants/map-deleted-on-last-out.json --strategy dfs "
      "--reduction symmetry --no-corpus --no-trace --report-json " +
      (dir / "sym.json"));
  INFO(sym.text);
  CHECK(sym.code == 0);
  CHECK_THAT(sym.text,
             Catch::Contains("an actor's outcomes stand for its class's\n    interchangeable: flowA, flowB\n"));
  const json e = json::parse(slurp(dir / "sym.json")).at("exploration");
  CHECK(e.at("reduction") == "symmetry");
  CHECK(e.at("exhausted") == true);
  CHECK(e.at("states").at("stored") == 1552);
  CHECK(e.at("abandoned_prefixes") == 321);
  // The outcomes are per class: flowA's stand for flowB's too. `renamed` counts the visited states whose least
  // digest came from a renaming other than the identity, so it moves whenever the digests' values do.
  CHECK(e.at("symmetry") == json::parse(R"({"classes": [["flowA", "flowB"]], "renamed": 1128,
                                             "outcomes_per_class": true, "unpaired": []})"));
  const cli_test::Captured dpor = allocsim(
      "run scenarios/alloc-004-one-plan-two-claimants.json --strategy dfs "
      "--no-corpus --no-trace --report-json " +
      (dir / "dpor.json"));
  CHECK(dpor.code == 0);
  CHECK(json::parse(slurp(dir / "dpor.json")).at("exploration") ==
        json::parse(R"({"reduction": "dpor", "exhausted": true, "abandoned_prefixes": 0, "distinct_traces": 19,
                        "distinct_traces_estimated": false})"));
  const cli_test::Captured random = allocsim(
      "run scenarios/alloc-004-one-plan-two-claimants.json -n 10 --no-corpus "
      "--no-trace --report-json " +
      (dir / "random.json"));
  CHECK(random.code == 0);
  CHECK_FALSE(json::parse(slurp(dir / "random.json")).contains("exploration"));
}

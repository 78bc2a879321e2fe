// replay by seed or schedule prints what the execution left behind (README "Traces and shrinking", "What a
// replay left behind"): each actor's op outcomes and the final state; --record writes the comparable record
// that run --record writes per execution.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/support.h"

using namespace cli_test;

TEST_CASE("replay --seed prints each actor's op outcomes and the final state after the table", "[cli][replay]") {
  const Captured r = allocsim("replay scenarios/alloc-005-last-out.json --seed 5");
  INFO(r.text);
  CHECK(r.code == 0);
  // flowB holds n1; flowA's reserve lost the owner CAS, so its release had nothing to do.
  CHECK_THAT(r.text, Catch::EndsWith(
                         "     11  flowA  lock-wait  lock.wait             held by flowB\n"
                         "outcomes:\n"
                         "  flowA reserve: conflict\n"
                         "  flowA release: skipped\n"
                         "  flowB reserve: claimed\n"
                         "final state:\n"
                         "  node n1: owner=flowB epoch=gen-flowB-3 resourceVersion=3 mig_config=videoflow-flowB-gen-"
                         "flowB-3 state=success@3 layout={1g.10gb: 1} workloads={} restore_record=all-disabled\n"
                         "  node n2: owner=- epoch=- resourceVersion=1 mig_config=all-disabled state=success@0 "
                         "layout={} workloads={} restore_record=-\n"
                         "  claim claim-flowB-2: owner=flowB generation=gen-flowB-3 nodes=[n1] "
                         "entry=videoflow-flowB-gen-flowB-3 live\n"
                         "  shared map: entries=[videoflow-flowB-gen-flowB-3] tombstone=false deleted=false "
                         "version=2; pointer=videoflow-map (restore default-mig-parted-config)\n"
                         "no violation\n"));
}

TEST_CASE("replay of a violation names the op it stopped in as not reached", "[cli][replay]") {
  const Captured r = allocsim("replay scenarios/mutants/stale-last-out.json --seed 13095918622469000722");
  INFO(r.text);
  CHECK(r.code == 1);
  CHECK_THAT(r.text, Catch::Contains("outcomes:\n  flowA reserve: claimed\n  flowA release: (not reached)\n"
                                     "  flowB reserve: claimed\nfinal state:\n"));
  CHECK_THAT(r.text, Catch::EndsWith("shared map: entries=[videoflow-flowB-gen-flowB-3] tombstone=true deleted=false "
                                     "version=4; pointer=default-mig-parted-config (restore -)\n"));
}

TEST_CASE("replay --record writes the record run --record writes for the same execution", "[cli][replay]") {
  TempDir dir;
  const std::string all = dir / "run.jsonl";
  REQUIRE(allocsim("run scenarios/alloc-005-last-out.json -n 6 --no-corpus --record " + all).code == 0);
  std::istringstream lines(slurp(all));
  int checked = 0;
  for (std::string line; std::getline(lines, line); ++checked) {
    nlohmann::json want = nlohmann::json::parse(line);
    const std::string one = dir / ("one-" + std::to_string(checked) + ".json");
    const Captured r = allocsim("replay scenarios/alloc-005-last-out.json --schedule '" +
                                want.at("schedule").get<std::string>() + "' --record " + one);
    INFO(r.text);
    CHECK(r.code == 0);
    CHECK_THAT(r.text, Catch::Contains("record written: " + one + "\n"));
    const std::string text = slurp(one);
    CHECK(text.back() == '\n');
    nlohmann::json got = nlohmann::json::parse(text);
    CHECK(got.at("index") == 0);  // the one execution replayed; the run numbered its executions
    got.erase("index");
    want.erase("index");
    CHECK(got == want);
  }
  CHECK(checked == 6);
}

TEST_CASE("replay --record refuses a trace file and a directory, and writes nothing", "[cli][replay][errors]") {
  TempDir dir;
  const std::string out = dir / "r.json";
  check_refused({
      {"replay tests/golden/traces/stale-last-out.trace.json --record " + out,
       "--record: give a scenario with --seed or --schedule; tests/golden/traces/stale-last-out.trace.json is a "
       "trace file"},
      {"replay scenarios/alloc-005-last-out.json --seed 5 --record " + dir.path.string(),
       "--record " + dir.path.string()},
  });
  CHECK(slurp(out).empty());
}

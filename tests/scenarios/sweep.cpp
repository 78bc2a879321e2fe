// Sweeps against single runs: splitting a scenario into work units changes nothing that plain DFS or
// random sampling would report, and unit results survive their JSON round trip (checkpoints, shards).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/campaign/sweep.h"
#include "sim/campaign/sweep_report.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
using namespace allocsim::campaign;
using allocsim::testing::source_path;

namespace {

SweepResults sweep(const std::vector<std::string>& files, SweepConfig c) {
  c.tool_version = "test";
  return run_sweep(backend_system(), files, c, nullptr);
}

}  // namespace

TEST_CASE("sweep: plain DFS split into prefixes explores exactly the unsplit tree", "[sweep]") {
  for (const char* rel : {"scenarios/alloc-004-simultaneous-claim.json", "scenarios/mutants/client-side-claim.json"}) {
    INFO(rel);
    SweepConfig c;
    c.reduction = "none";
    c.jobs = 2;
    const auto res = sweep({source_path(rel)}, c);
    const auto outs = outcomes(res);
    REQUIRE(outs.size() == 1);
    CHECK(res.plans[0].units.size() >= kDfsTargetUnits);
    allocsim::campaign::ExploreConfig rc;
    rc.strategy = "dfs";
    rc.reduction = "none";
    rc.executions = 10'000'000;
    const allocsim::campaign::RunReport single =
        allocsim::campaign::run(*subject_of(load_scenario(source_path(rel))), rc);
    REQUIRE(single.exhausted);
    const UnitResult& r = outs[0].result;
    CHECK(r.executions == single.summary.executions);
    CHECK(r.steps == single.summary.steps);
    CHECK(r.by_invariant == single.summary.violations_by_invariant);
    CHECK(r.traces.distinct() == *single.distinct_traces);
    CHECK(r.outcomes == single.outcomes);
    CHECK(outs[0].met == single.met);
    // The first unit holds the first schedule in DFS order: the same first violation.
    CHECK(r.first.has_value() == single.summary.first.has_value());
    if (r.first) CHECK(r.first->schedule == single.summary.first->result.schedule);
  }
}

TEST_CASE("sweep: random sampling in execution ranges equals allocsim run with the same seed", "[sweep]") {
  SweepConfig c;
  c.strategy = "random";
  c.executions = 500;
  c.seed = 7;
  c.jobs = 2;
  const std::string f = source_path("scenarios/mutants/client-side-claim.json");
  const auto outs = outcomes(sweep({f}, c));
  REQUIRE(outs.size() == 1);
  allocsim::campaign::ExploreConfig rc;
  rc.executions = 500;
  rc.seed = 7;
  const allocsim::campaign::RunReport single = allocsim::campaign::run(*subject_of(load_scenario(f)), rc);
  const UnitResult& r = outs[0].result;
  CHECK(r.executions == 500);
  CHECK(r.by_invariant == single.summary.violations_by_invariant);
  CHECK(r.outcomes == single.outcomes);
  REQUIRE(r.first.has_value() == single.summary.first.has_value());
  if (r.first) {
    CHECK(r.first->seed == single.summary.first->seed);
    CHECK(r.first->execution == single.summary.first->index);
  }
}

TEST_CASE("sweep: unit results round-trip through JSON and combine in order", "[sweep]") {
  SweepConfig c;
  c.jobs = 1;
  const auto res = sweep({source_path("scenarios/mutants/client-side-claim.json")}, c);
  UnitResult all;
  for (const auto& [u, r] : res.units[0]) {
    const UnitResult back = unit_from_json(unit_to_json(r), "test");
    CHECK(unit_to_json(back) == unit_to_json(r));
    combine(all, back);
  }
  CHECK(unit_to_json(all) == unit_to_json(outcomes(res)[0].result));
  CHECK_THROWS_AS(unit_from_json(nlohmann::json::object(), "x.json"), SweepInputError);
}

TEST_CASE("sweep: a unit's sampled trace count round-trips through JSON, and a bad sample is refused", "[sweep]") {
  UnitResult r;
  // Fingerprints below 2^62 only: a level-2 sample of them, as saved past the sample's capacity.
  r.traces = allocsim::sim::TraceSample::from_parts(2, {5, 0x0123456789abcdefull, 0x3fffffffffffffffull});
  const nlohmann::json j = unit_to_json(r);
  CHECK(j.at("trace_sample_level") == 2);
  const UnitResult back = unit_from_json(j, "test");
  CHECK(back.traces.level() == 2);
  CHECK(back.traces.distinct() == 12);                                     // 3 kept, each standing for 4
  CHECK_FALSE(unit_to_json(UnitResult{}).contains("trace_sample_level"));  // exact: the key is absent
  nlohmann::json above = j;
  above["traces"][2] = "4000000000000000";  // 2^62 is outside a level-2 sample
  CHECK_THROWS_WITH(unit_from_json(above, "ck.json"), Catch::Contains("ck.json: malformed unit result: a trace "
                                                                      "fingerprint lies above its sample's level"));
}

TEST_CASE("sweep: DPOR's abandoned prefixes survive the unit JSON round trip and sum over the units", "[sweep]") {
  SweepConfig c;
  c.jobs = 1;
  c.strategy = "dpor";
  const auto res = sweep({source_path("scenarios/alloc-023-stale-inventory-retry.json")}, c);
  REQUIRE(res.units[0].size() > 1);
  UnitResult all;
  uint64_t units_abandoning = 0;
  for (const auto& [u, r] : res.units[0]) {
    units_abandoning += r.abandoned > 0;
    const UnitResult back = unit_from_json(unit_to_json(r), "test");
    CHECK(back.abandoned == r.abandoned);
    combine(all, back);
  }
  CHECK(units_abandoning > 1);
  const auto outs = outcomes(res);
  const UnitResult& total = outs[0].result;
  CHECK(all.abandoned == total.abandoned);
  // Every execution is one trace; the abandoned prefixes are apart from both.
  CHECK(total.executions == total.traces.distinct());
  CHECK(total.abandoned > total.executions / 10);
}

TEST_CASE("sweep: the system's counters reach the judge, as in a single run", "[sweep][expect]") {
  // incident-stale-owner-stamp expects `stamp-owner: sometimes` (expect.audit) and pins ops by occurrence:
  // judged only on the counters the units carry (a sweep that dropped them found the audit "never occurred").
  const std::string f = source_path("scenarios/incident-stale-owner-stamp.json");
  SweepConfig c;
  c.jobs = 2;
  const auto res = sweep({f}, c);
  const auto outs = outcomes(res);
  REQUIRE(outs.size() == 1);
  allocsim::campaign::ExploreConfig rc;
  rc.strategy = "dpor";
  rc.executions = 10'000'000;
  const allocsim::campaign::RunReport single = allocsim::campaign::run(*subject_of(load_scenario(f)), rc);
  REQUIRE(single.exhausted);
  CHECK(single.met);
  CHECK(single.counters.at("audit:stamp-owner") > 0);
  CHECK(outs[0].result.counters == single.counters);
  CHECK(outs[0].unmet.empty());
  CHECK(outs[0].met);
}

TEST_CASE("sweep: --check-determinism re-runs every execution of every unit, and a divergence decides the scenario",
          "[sweep][determinism]") {
  const std::string f = source_path("scenarios/alloc-023-stale-inventory-retry.json");
  SweepConfig c;
  c.jobs = 2;
  c.strategy = "dpor";
  c.check_determinism = true;
  const auto res = sweep({f}, c);
  auto outs = outcomes(res);
  REQUIRE(outs.size() == 1);
  const UnitResult& total = outs[0].result;
  REQUIRE(total.executions > 0);
  CHECK(total.rechecked == total.executions);  // every execution, in every unit
  CHECK(total.divergent == 0);
  CHECK_FALSE(total.first_divergence.has_value());
  CHECK(outs[0].met == true);
  CHECK(sweep_exit_code(res, outs) == 0);
  CHECK(config_json(res.config).at("check_determinism") == true);  // shards and resumes must agree on it
  SweepConfig plain = c;
  plain.check_determinism = false;
  CHECK_FALSE(config_json(plain).contains("check_determinism"));
  // Without the flag nothing is re-run and the unit JSON carries no determinism key.
  const auto res_plain = sweep({f}, plain);
  const auto outs_plain = outcomes(res_plain);
  const UnitResult& p = outs_plain[0].result;
  CHECK(p.rechecked == 0);
  CHECK_FALSE(unit_to_json(p).contains("determinism"));
  CHECK(p.executions == total.executions);
  const uint64_t executions = total.executions;  // `total` refers into `outs`, which is judged again below

  // A divergence (as a unit would record one) round-trips through JSON, is said first, and exits 4.
  UnitResult diverged = res.units[0].begin()->second;
  diverged.divergent = 2;
  diverged.first_divergence = UnitDivergence{0, 3, 0, "step 4: first run: a\n  second run: b"};
  const UnitResult back = unit_from_json(unit_to_json(diverged), "ck.json");
  CHECK(unit_to_json(back) == unit_to_json(diverged));
  REQUIRE(back.first_divergence.has_value());
  CHECK(back.first_divergence->execution == 3);
  SweepResults bad = res;
  bad.units[0].begin()->second = back;
  outs = outcomes(bad);
  CHECK(outs[0].met == false);
  REQUIRE_FALSE(outs[0].unmet.empty());
  CHECK(outs[0].unmet.front() ==
        fmt::format("nondeterminism: 2 of {} executions ran differently the second time, from the recorded "
                    "schedule; the first: execution #3 of unit 0: step 4: first run: a; second run: b",
                    executions));
  CHECK(sweep_exit_code(bad, outs) == 4);
  // A malformed determinism record is refused, naming the file.
  nlohmann::json broken = unit_to_json(diverged);
  broken["determinism"]["first"] = nullptr;
  CHECK_THROWS_WITH(unit_from_json(broken, "ck.json"), Catch::Contains("ck.json: malformed unit result: determinism"));
}

// Occurrence pins and expect.audit (docs/DESIGN.md §4, `expect`; backend/scenario/expect_audit.h).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "backend/scenario/expect_audit.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/system/judge.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/campaign/sweep.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

// One actor, no concurrency: the first reserve claims n2 (n1 carries a stale stamp), the release clears it,
// the second reserve (4 cards: only n1 has them) is infeasible. The stale stamp is F5's leftover on purpose, so the
// healing phase is left out (it would report the stamp no recovery clears).
std::string scenario_with(const std::string& expect) {
  return R"({
    "schema": "allocsim/scenario/v1",
    "name": "pins",
    "nodes": [
      { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 4, "memory_gib": 80,
        "resource_version": 7, "owner": "flowX", "owner_epoch": "gen-flowX-2" },
      { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
    "actors": [ { "name": "flowA", "script": [
        { "op": "reserve", "requests": [ { "workload": "wa", "devices": 2 } ] },
        { "op": "release" },
        { "op": "reserve", "requests": [ { "workload": "wb", "devices": 4 } ] } ] } ],
    "invariants": { "all_except": ["heals-after-faults"] },
    "expect": )" +
         expect + "}";
}

campaign::RunReport run_text(const std::string& text, uint64_t executions = 3) {
  campaign::ExploreConfig cfg;
  cfg.executions = executions;
  return campaign::run(*subject_of(parse_scenario(text, "pins.json")), cfg);
}

}  // namespace

TEST_CASE("occurrence pins: each op of the same name is judged on its own", "[expect][occurrence]") {
  const auto met = run_text(scenario_with(
      R"({ "outcome": "pass", "actors": { "flowA": { "0": ["claimed"], "2": ["infeasible"], "release": ["released"] } } })"));
  CHECK(met.unmet.empty());
  CHECK(met.met);
  // The op-name pin sees both reserves; it cannot say which ended how. Occurrence pins can.
  const auto swapped = run_text(
      scenario_with(R"({ "outcome": "pass", "actors": { "flowA": { "0": ["infeasible"], "2": ["claimed"] } } })"));
  CHECK(
      swapped.unmet ==
      std::vector<std::string>{"actor flowA: op 0 ended in \"claimed\" in 3 executions, which expect.actors.flowA.0 "
                               "does not allow",
                               "actor flowA: op 2 ended in \"infeasible\" in 3 executions, which expect.actors.flowA.2 "
                               "does not allow"});
  CHECK_FALSE(swapped.met);
}

TEST_CASE("occurrence pins: an op with a `when` may be pinned to skipped, one without may not",
          "[expect][occurrence]") {
  // bind_workload's own outcomes hold no `skipped`; its first bind runs only after a conflict (never here), so its
  // index pin must take `skipped`, and the second bind, with no `when`, must not.
  const auto text = [](const std::string& pins) {
    return R"({ "schema": "allocsim/scenario/v1", "name": "pins",
      "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
      "actors": [ { "name": "flowA", "script": [
          { "op": "reserve", "requests": [ { "workload": "wa" } ] },
          { "op": "bind_workload", "node": "n1", "workload": "wa", "when": { "op": 0, "outcome": "conflict" } },
          { "op": "bind_workload", "node": "n1", "workload": "wb" } ] } ],
      "expect": { "outcome": "pass", "actors": { "flowA": )" +
           pins + " } } }";
  };
  const auto met = run_text(text(R"({ "0": ["claimed"], "1": ["skipped"], "2": ["done"] })"));
  CHECK(met.unmet.empty());
  CHECK(met.met);
  try {
    parse_scenario(text(R"({ "2": ["done", "skipped"] })"), "pins.json");
    FAIL("accepted");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "pins.json: /expect/actors/flowA/2/1: unknown outcome \"skipped\" for op 2 "
          "(\"bind_workload\") (expected one of \"done\", \"rejected\")");
  }
}

TEST_CASE("expect.audit: sometimes, never and always, with and without a detail", "[expect][audit]") {
  const auto met = run_text(scenario_with(R"({ "outcome": "pass", "audit": {
      "stamp-owner": "always", "release-owner": "sometimes", "release-owner=rollback": "never",
      "publish-entry": "never" } })"));
  CHECK(met.unmet.empty());
  const auto unmet = run_text(scenario_with(R"({ "outcome": "pass", "audit": {
      "stamp-owner": "never", "release-owner=rollback": "sometimes", "publish-entry": "always" } })"));
  CHECK(
      unmet.unmet ==
      std::vector<std::string>{"audit stamp-owner occurred in 3 of 3 executions (expect.audit: never)",
                               "audit release-owner=rollback never occurred in 3 executions (expect.audit: sometimes)",
                               "audit publish-entry occurred in only 0 of 3 executions (expect.audit: always)"});
}

TEST_CASE("expect.audit: counts per execution, at least, at most and exactly", "[expect][audit]") {
  // Every execution: one stamp-owner (n2, the first reserve), one release-owner (its release), no rollback.
  const auto met = run_text(scenario_with(R"({ "outcome": "pass", "audit": {
      "stamp-owner": {"exactly": 1}, "release-owner": {"at_least": 1, "at_most": 1},
      "release-owner=rollback": {"at_most": 0}, "publish-entry": {"at_least": 0} } })"));
  CHECK(met.unmet.empty());
  CHECK(met.met);
  const auto unmet = run_text(scenario_with(R"({ "outcome": "pass", "audit": {
      "stamp-owner": {"at_least": 2}, "release-owner": {"exactly": 0}, "stamp-owner=flowA": {"at_most": 0} } })"));
  CHECK(unmet.unmet ==
        std::vector<std::string>{"audit stamp-owner occurred 1 time in 3 executions (expect.audit: at least 2)",
                                 "audit release-owner occurred 1 time in 3 executions (expect.audit: exactly 0)",
                                 "audit stamp-owner=flowA occurred 1 time in 3 executions (expect.audit: at most 0)"});
  CHECK_FALSE(unmet.met);
}

TEST_CASE("expect.audit: a rule that is neither a word nor a count names both forms", "[expect][audit]") {
  for (const char* rule : {"3", "null", "[\"never\"]"}) {
    INFO(rule);
    try {
      parse_scenario(scenario_with(std::string(R"({ "outcome": "pass", "audit": { "stamp-owner": )") + rule + " } }"),
                     "pins.json");
      FAIL("accepted");
    } catch (const ScenarioError& e) {
      CHECK(std::string(e.what()) ==
            "pins.json: /expect/audit/stamp-owner: expected \"sometimes\" | \"never\" | \"always\" or a count "
            "{at_least, at_most, exactly}");
    }
  }
}

TEST_CASE("expect.audit: a counted rule is written back as it was read", "[expect][audit]") {
  const Scenario sc = parse_scenario(
      scenario_with(R"({ "outcome": "pass", "audit": { "stamp-owner": {"exactly": 1}, "release-owner": {"at_most": 2},
      "publish-entry": "never", "release-owner=rollback": {"at_least": 1, "at_most": 3} } })"),
      "pins.json");
  const auto& audit = sc.expect.audit;
  REQUIRE(audit.size() == 4);
  CHECK(audit_rule_json(audit[0].second).dump() == R"({"exactly":1})");
  CHECK(audit_rule_json(audit[1].second).dump() == R"({"at_most":2})");
  CHECK(audit_rule_json(audit[2].second).dump() == R"("never")");
  CHECK(audit_rule_json(audit[3].second).dump() == R"({"at_least":1,"at_most":3})");
}

TEST_CASE("expect tally: merges like outcome counts and survives the unit JSON", "[expect][sweep]") {
  ExpectTally a, b;
  a.occurrences["flowA"][2]["claimed"] = 3;
  a.audit["stamp-owner"] = 1;
  b.occurrences["flowA"][2]["claimed"] = 2;
  b.occurrences["flowA"][0]["conflict"] = 1;
  b.audit["stamp-owner"] = 4;
  b.audit["delete-map"] = 0;
  a.add(b);
  CHECK(a.occurrences["flowA"][2]["claimed"] == 5);
  CHECK(a.occurrences["flowA"][0]["conflict"] == 1);
  CHECK(a.audit == std::map<std::string, uint64_t>{{"delete-map", 0}, {"stamp-owner", 5}});
  campaign::UnitResult u;
  add_to_counters(a, u.counters);
  CHECK(u.counters.at("occurrence:flowA:2:claimed") == 5);
  CHECK(u.counters.at("audit:delete-map") == 0);  // judged, never seen: kept so "never" reads as judged
  const campaign::UnitResult back = campaign::unit_from_json(campaign::unit_to_json(u), "unit");
  const ExpectTally round = tally_from_counters(back.counters);
  CHECK(round.occurrences == a.occurrences);
  CHECK(round.audit == a.audit);
  // Counted rules keep a histogram (entries per execution -> executions); a detail may hold ':'.
  ExpectTally c;
  c.audit_times["label-geometry=videoflow-flowA:x"][2] = 3;
  c.audit_times["stamp-owner"][0] = 1;
  ExpectTally d;
  d.audit_times["stamp-owner"][0] = 2;
  d.audit_times["stamp-owner"][1] = 5;
  c.add(d);
  CHECK(c.audit_times["stamp-owner"] == std::map<uint64_t, uint64_t>{{0, 3}, {1, 5}});
  campaign::UnitResult v;
  add_to_counters(c, v.counters);
  CHECK(v.counters.at("audit-times:label-geometry=videoflow-flowA:x:2") == 3);
  CHECK(tally_from_counters(v.counters).audit_times == c.audit_times);
  // Names it did not write (a hand-edited checkpoint) are ignored, not thrown on.
  v.counters["audit-times:stamp-owner:x"] = 1;
  v.counters["audit-times:stamp-owner:"] = 1;
  v.counters["audit-times:stamp-owner:99999999999999999999"] = 1;
  CHECK(tally_from_counters(v.counters).audit_times == c.audit_times);
  // A unit of a scenario without the new expectations writes no key (checkpoints stay as they were).
  CHECK_FALSE(campaign::unit_to_json(campaign::UnitResult{}).contains("counters"));
}

TEST_CASE("expect.audit: the kind vocabulary covers every kind the scenarios record", "[expect][audit]") {
  std::set<std::string> kinds(audit_kinds().begin(), audit_kinds().end());
  std::set<std::string> seen;
  for (const char* file :
       {"scenarios/alloc-005-last-out.json", "scenarios/alloc-033-crash-at-restore-after.json",
        "scenarios/alloc-004-simultaneous-claim.json", "scenarios/mutants/map-deleted-on-last-out.json",
        "scenarios/incident-operator-rewrites-shared-map.json"}) {
    campaign::ExploreConfig cfg;
    cfg.executions = 200;
    campaign::RunHooks hooks;
    hooks.on_execution = [&](uint64_t, const sim::World& w, const sim::ExecutionResult&) {
      for (const auto& m : static_cast<const BackendWorld&>(w).backend().state().audit) seen.insert(m.kind);
    };
    campaign::run(*subject_of(load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/" + file)), cfg, hooks);
  }
  for (const auto& k : seen) {
    INFO(k);
    CHECK(kinds.count(k) == 1);
  }
  CHECK(seen.size() >= 8);
}

// A leased sweeper: `recover` with `lease_seconds` (docs/DESIGN.md §4, the op table; backend/world/leases.h), a
// cleanup that judges the flow's lease by the fake clock, which the flow renews at every op start.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "backend/scenario/scenario_json.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

namespace lease_test {

using namespace allocsim;
using namespace allocsim::harness;

const std::string kIncident = "/scenarios/incident-expired-lock-taken-from-waiting-holder.json";

/// The incident file without its `order`: every interleaving of flowA, the clock, the sweeper and flowB.
Scenario unpinned() {
  Scenario sc = load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + kIncident);
  sc.order = {};
  sc.expect = {};
  return sc;
}

/// A flow whose script is `flow_ops`, a sweeper with `lease` that recovers it, and the actors `others`, on one node.
std::string with_sweeper(const std::string& flow_ops, const std::string& lease, const std::string& others = "") {
  return fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "lease",
    "nodes": [ {{ "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80 }} ],
    "actors": [ {{ "name": "flowA", "script": [ {} ] }}, {}
                {{ "name": "sweeper", "script": [ {{ "op": "recover", "flow": "flowA", "lease_seconds": {} }} ] }} ] }})",
                     flow_ops, others, lease);
}

/// An actor that moves the clock by `seconds`, then a comma (with_sweeper's `others`).
std::string clock(const char* seconds) {
  return fmt::format(R"({{ "name": "clock", "script": [ {{ "op": "advance_clock", "seconds": {} }} ] }},)", seconds);
}

campaign::RunReport exhaust(const Scenario& sc, const char* reduction = "dpor") {
  campaign::ExploreConfig cfg;
  cfg.strategy = "dfs";
  cfg.reduction = reduction;
  cfg.executions = 100000;
  return campaign::run(*subject_of(sc), cfg, {});
}

std::set<std::string> sweeps(const campaign::RunReport& r) {
  std::set<std::string> out;
  for (const auto& [outcome, n] : r.outcomes.at("sweeper").at("recover")) out.insert(outcome);
  return out;
}

}  // namespace lease_test

using namespace lease_test;

TEST_CASE("lease: lease_seconds loads as a sweeper, reads back as written, and refuses a wait", "[scenario][recover]") {
  const Scenario sc = unpinned();
  const Op& op = sc.actors[2].script[0];
  REQUIRE(op.kind == OpKind::Recover);
  CHECK(op.lease_seconds == 300);
  CHECK_FALSE(op.wait_for_end);  // implied
  const auto j = scenario_to_json(sc);
  const auto& written = j.at("actors").at(2).at("script").at(0);
  CHECK(written.at("lease_seconds") == 300);
  CHECK_FALSE(written.contains("wait"));  // lease_seconds says it
  CHECK(scenario_to_json(parse_scenario(j.dump(), "again.json")) == j);
  // `wait: false` beside it is allowed (it says the same), `wait: true` is not, nor a lease of 0 or a string.
  auto edited = j;
  edited["actors"][2]["script"][0]["wait"] = false;
  CHECK(parse_scenario(edited.dump(), "wait-false.json").actors[2].script[0].lease_seconds == 300);
  edited["actors"][2]["script"][0]["wait"] = true;
  CHECK_THROWS_WITH(parse_scenario(edited.dump(), "wait-true.json"),
                    Catch::Contains("/actors/2/script/0/wait") &&
                        Catch::Contains("a recover with lease_seconds does not wait for the flow's end"));
  edited["actors"][2]["script"][0].erase("wait");
  edited["actors"][2]["script"][0]["lease_seconds"] = 0;
  CHECK_THROWS_WITH(parse_scenario(edited.dump(), "zero.json"), Catch::Contains("/actors/2/script/0/lease_seconds"));
  edited["actors"][2]["script"][0]["lease_seconds"] = "300";
  CHECK_THROWS_WITH(parse_scenario(edited.dump(), "string.json"), Catch::Contains("/actors/2/script/0/lease_seconds"));
}

TEST_CASE(
    "lease: the flow renews at every op start and after its own clock moves, and a lease expires at exactly "
    "its seconds",
    "[scenario][recover]") {
  const auto sweeps_of = [](const std::string& text) { return sweeps(exhaust(parse_scenario(text, "lease.json"))); };
  // Another actor moves the clock: once it has, a flow that starts no op after it has let its lease expire (the
  // sweeper then finds no claim).
  CHECK(sweeps_of(with_sweeper(R"({ "op": "inventory" })", "300", clock("301"))) ==
        std::set<std::string>{"unexpired", "none"});
  // At exactly the lease's seconds the lease has expired; a hair above them it has not.
  CHECK(sweeps_of(with_sweeper(R"({ "op": "inventory" })", "300", clock("300"))) ==
        std::set<std::string>{"unexpired", "none"});
  CHECK(sweeps_of(with_sweeper(R"({ "op": "inventory" })", "300.5", clock("300"))) ==
        std::set<std::string>{"unexpired"});
  // The flow moves the clock itself: its advance renews the lease in the same step, so no sweeper ever sees it
  // expired, with an op after the advance or without.
  CHECK(sweeps_of(with_sweeper(R"({ "op": "advance_clock", "seconds": 301 }, { "op": "inventory" })", "300")) ==
        std::set<std::string>{"unexpired"});
  CHECK(sweeps_of(with_sweeper(R"({ "op": "advance_clock", "seconds": 301 })", "300")) ==
        std::set<std::string>{"unexpired"});
  // Even while the apply after the advance waits for the backend lock another actor holds: without the renewal in
  // the advance's own step, a sweeper in that window recorded none, a result no op-level execution gives
  // (ops-atomic fired in 4 of 44 executions).
  const campaign::RunReport held = exhaust(parse_scenario(
      with_sweeper(R"({ "op": "advance_clock", "seconds": 301 }, { "op": "inventory" })", "300",
                   R"({ "name": "holder", "script": [ { "op": "reserve", "requests": [ { "workload": "wh" } ] } ] },)"),
      "held.json"));
  CHECK(held.summary.violations_by_invariant.empty());
  CHECK(sweeps(held) == std::set<std::string>{"unexpired"});
}

TEST_CASE("lease: unpinned, DPOR, plain DFS and state caching agree on the incident", "[scenario][recover][dpor]") {
  const Scenario sc = unpinned();
  const campaign::RunReport dpor = exhaust(sc), states = exhaust(sc, "states");
  REQUIRE(dpor.exhausted);
  REQUIRE(states.exhausted);
  // Pinned from the implementation: the double use of the card only, in 527 of 15,869 executions.
  CHECK(dpor.summary.executions == 15869);
  CHECK(dpor.summary.violations_by_invariant.size() == 1);
  CHECK(dpor.summary.violations_by_invariant.at("capacity-within-cards") == 527);
  CHECK(sweeps(dpor) == std::set<std::string>{"none", "unexpired", "pending_recovery", "released"});
  CHECK(sweeps(states) == sweeps(dpor));
  CHECK(states.summary.violations_by_invariant.size() == 1);
  // The renewal and the check race through the lease (both only read the clock). Without the lease in the check's
  // footprint, DPOR explores 12,062 executions above, 361 of them violating: the exact counts catch it. On a race
  // small enough for plain DFS, DPOR sees what DFS sees.
  const Scenario race = parse_scenario(R"({ "schema": "allocsim/scenario/v1", "name": "race",
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80 } ],
    "actors": [ { "name": "flowA", "script": [ { "op": "inventory" }, { "op": "inventory" } ] },
                { "name": "clock", "script": [ { "op": "advance_clock", "seconds": 301 } ] },
                { "name": "sweeper", "script": [ { "op": "recover", "flow": "flowA", "lease_seconds": 300 } ] } ] })",
                                       "race.json");
  CHECK(sweeps(exhaust(race, "none")) == std::set<std::string>{"unexpired", "none"});
  CHECK(sweeps(exhaust(race)) == sweeps(exhaust(race, "none")));
}

// A sweeper: `recover` with `wait: false` (docs/DESIGN.md §4, the op table; backend/ops/op_recover.cpp), a
// cleanup that acts on a lease it believes expired while the flow may still run.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "backend/scenario/scenario_json.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

namespace sweeper_test {

using namespace allocsim;
using namespace allocsim::harness;

/// The incident file without its `order`: every interleaving of flowA, the sweeper and flowB.
Scenario unpinned() {
  Scenario sc =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/incident-sweeper-releases-live-claim.json");
  sc.order = {};
  sc.expect = {};
  return sc;
}

}  // namespace sweeper_test

using namespace sweeper_test;

TEST_CASE("sweeper: a recover that does not wait may be listed before its flow, and reads back as written",
          "[scenario][recover]") {
  const Scenario sc = unpinned();
  REQUIRE(sc.actors[1].name == "sweeper");
  CHECK_FALSE(sc.actors[1].script[0].wait_for_end);
  const auto j = scenario_to_json(sc);
  CHECK(j.at("actors").at(1).at("script").at(0).at("wait") == false);
  CHECK(scenario_to_json(parse_scenario(j.dump(), "again.json")) == j);
  // A waiting recover writes no `wait` key (files written before the key existed keep their bytes).
  const Scenario waiting =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/incident-stale-owner-stamp.json");
  CHECK_FALSE(scenario_to_json(waiting).at("actors").at(2).at("script").at(0).contains("wait"));
  // Listed before its flow, only a recover that does not wait loads.
  auto first = j;
  first["actors"] = nlohmann::ordered_json::array({j["actors"][1], j["actors"][0], j["actors"][2]});
  CHECK_NOTHROW(parse_scenario(first.dump(), "first.json"));
  first["actors"][0]["script"][0]["wait"] = true;
  CHECK_THROWS_WITH(parse_scenario(first.dump(), "waits.json"),
                    Catch::Contains("recover's flow \"flowA\" is listed after \"sweeper\" in /actors"));
}

TEST_CASE("sweeper: it releases a live flow's claim under it, and recovery-converges does not judge it",
          "[scenario][recover][dpor]") {
  campaign::ExploreConfig cfg;
  cfg.strategy = "dfs";
  cfg.reduction = "dpor";
  cfg.executions = 100000;
  const campaign::RunReport r = campaign::run(*subject_of(unpinned()), cfg, {});
  CHECK(r.exhausted);
  CHECK(r.summary.executions == 2024);
  // Only the double use of the card: a sweeper that runs while flowA is between its stamp and its claim finds
  // no claim and leaves the stamp, which a waiting recover's recovery-converges would have reported.
  std::set<std::string> violated;
  for (const auto& [inv, n] : r.summary.violations_by_invariant) violated.insert(inv);
  CHECK(violated == std::set<std::string>{"capacity-within-cards"});
  CHECK(r.summary.violations_by_invariant.at("capacity-within-cards") == 62);
  std::set<std::string> sweeps;
  for (const auto& [out, n] : r.outcomes.at("sweeper").at("recover")) sweeps.insert(out);
  CHECK(sweeps == std::set<std::string>{"none", "pending_recovery", "released"});
}

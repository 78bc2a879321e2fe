// Start-state claims (docs/DESIGN.md §4 "Start state"): backend/scenario/scenario_claims.cpp. Loader rejections
// are in the malformed corpus (tests/backend/malformed/start_claim_*.json).
#include <catch2/catch.hpp>

#include <string>

#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/backend/final_state.h"

namespace start_claims_test {

using namespace allocsim;
using namespace allocsim::harness;

// R1 left a claim carving n1 (two slices) and holding card 0 of n2, both stamped with its epoch; R9 left a
// failed claim on n3.
const char* kLeftover = R"({
  "schema": "allocsim/scenario/v1",
  "name": "start-claims",
  "backend": { "authority": "managed-mig" },
  "nodes": [
    { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "resource_version": 6, "owner": "R1", "owner_epoch": "gen-R1-3", "mig_state": "success",
      "mig_state_generation": 6, "mig_layout": { "1g.10gb": 2 }, "mig_config": "videoflow-R1-gen-R1-3",
      "restore_record": "all-disabled" },
    { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "resource_version": 2, "owner": "R1", "owner_epoch": "gen-R1-3" },
    { "name": "n3", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "resource_version": 2, "owner": "R9", "owner_epoch": "gen-R9-1" }
  ],
  "shared_map": { "entries": { "videoflow-R1-gen-R1-3": { "n1": 1 } } },
  "cluster_policy": { "pointer": "videoflow-map", "restore": "default-mig-parted-config" },
  "claims": [
    { "id": "leftover-R1", "owner": "R1", "generation": "gen-R1-3",
      "assignments": { "wm": [ { "node": "n1", "profile": "1g.10gb", "index": 2 },
                               { "node": "n1", "profile": "1g.10gb", "index": 1 } ],
                       "ww": [ { "node": "n2", "ordinal": 0 } ] },
      "geometry": { "n1": { "1g.10gb": 2 } }, "workload_ready": true },
    { "id": "leftover-R9", "owner": "R9", "generation": "gen-R9-1", "status": "failed",
      "assignments": { "wx": [ { "node": "n3", "ordinal": 1 } ] } }
  ],
  "actors": [ { "name": "R1", "script": [] },
              { "name": "ctl", "script": [ { "op": "recover", "flow": "R1" } ] } ],
  "expect": { "outcome": "pass" }
})";

}  // namespace start_claims_test

using namespace start_claims_test;

TEST_CASE("start claims: each is the claim upstream's reserve would have left", "[scenario][start-state]") {
  const Scenario sc = parse_scenario(kLeftover, "start.json");
  const auto compiled = compile(sc, {});
  const backend::BackendState& s = compiled->prototype.state();
  REQUIRE(s.claims.size() == 2);
  const backend::Claim& c = s.claims[0];
  CHECK(c.claim_id == "leftover-R1");
  CHECK(c.owner == "R1");
  CHECK(c.generation == "gen-R1-3");
  CHECK(c.nodes == std::vector<std::string>{"n1", "n2"});  // sorted, once each, as upstream's sorted set
  CHECK(c.status == "allocated");
  CHECK(c.workload_ready);
  CHECK(c.entry_name == "videoflow-R1-gen-R1-3");  // upstream's name for the entry; derived, never written
  CHECK(c.plan.plan_id == "start");
  CHECK(c.plan.geometry == backend::OrderedMap<std::string, std::string>{{"n1", "1g.10gb:2"}});
  CHECK(c.label_versions == backend::OrderedMap<std::string, int64_t>{{"n1", 6}});
  REQUIRE(c.plan.assignments.size() == 2);
  const auto& [wm, slices] = c.plan.assignments[0];
  CHECK(wm == "wm");
  REQUIRE(slices.size() == 2);
  CHECK(slices[0] == backend::DeviceIdentity{"n1", std::nullopt, std::nullopt, "MIG-n1-1g.10gb-2",
                                             "NVIDIA-A100-SXM4-80GB", int64_t{10} << 30, "1g.10gb"});
  CHECK(slices[1].mig_uuid == std::optional<std::string>("MIG-n1-1g.10gb-1"));
  const auto& [ww, cards] = c.plan.assignments[1];
  CHECK(ww == "ww");
  REQUIRE(cards.size() == 1);
  CHECK(cards[0] == backend::DeviceIdentity{"n2", 0, "GPU-n2-0", std::nullopt, "NVIDIA-A100-SXM4-80GB",
                                            int64_t{80} << 30, std::nullopt});
  // Without geometry there is no entry, whatever the authority.
  const backend::Claim& failed = s.claims[1];
  CHECK(failed.status == "failed");
  CHECK(failed.entry_name.empty());
  CHECK(failed.label_versions.empty());
  CHECK(s.audit.empty());  // a start state is not something the adapter did
}

TEST_CASE("start claims: geometry outside managed-mig names no entry, as upstream's reserve",
          "[scenario][start-state]") {
  std::string text = kLeftover;
  const std::string from = R"("authority": "managed-mig")";
  text.replace(text.find(from), from.size(), R"("authority": "dra")");
  const Scenario sc = parse_scenario(text, "dra.json");
  const auto compiled = compile(sc, {});
  const backend::Claim& c = compiled->prototype.state().claims[0];
  CHECK(c.plan.geometry.size() == 1);
  CHECK(c.entry_name.empty());
  CHECK(c.label_versions.empty());
}

TEST_CASE("start claims: a recover of the owner releases its leftover claim by id and generation",
          "[scenario][start-state]") {
  const backend::BackendState s = test::final_state(parse_scenario(kLeftover, "start.json"));
  REQUIRE(s.claims.size() == 1);  // R9's claim: nobody recovers R9
  CHECK(s.claims[0].claim_id == "leftover-R9");
  const backend::NodeFixture& n1 = *s.node("n1");
  CHECK_FALSE(n1.owner.has_value());
  CHECK(n1.mig_config == "all-disabled");
  CHECK(n1.mig_layout.empty());
  CHECK_FALSE(n1.restore_record.has_value());
  CHECK(s.shared_config.empty());
  CHECK(s.shared_tombstone);
  CHECK(s.pointer == "default-mig-parted-config");
  std::vector<std::string> kinds;
  for (const auto& m : s.audit) kinds.push_back(m.op_id + " " + m.kind + " " + m.target);
  CHECK_FALSE(s.node("n2")->owner.has_value());
  CHECK(s.node("n3")->owner == std::optional<std::string>("R9"));
  CHECK(kinds == std::vector<std::string>{"ctl:recover1 restore-geometry n1", "ctl:recover1 release-owner n1",
                                          "ctl:recover1 release-owner n2",
                                          "ctl:recover1 strip-entry videoflow-R1-gen-R1-3",
                                          "ctl:recover1 restore-policy clusterpolicy"});
}

TEST_CASE("start claims: the encoder writes them back as read, and a file without them has no key",
          "[scenario][start-state]") {
  const Scenario sc = parse_scenario(kLeftover, "start.json");
  const auto j = scenario_to_json(sc);
  REQUIRE(j.at("claims").size() == 2);
  CHECK(j.at("claims").at(0).at("assignments").at("wm").at(0).at("index") == 2);
  CHECK(j.at("claims").at(0).at("geometry").at("n1").at("1g.10gb") == 2);
  CHECK(j.at("claims").at(0).at("workload_ready") == true);
  CHECK_FALSE(j.at("claims").at(0).contains("status"));  // the default, allocated
  CHECK(j.at("claims").at(1).at("status") == "failed");
  CHECK_FALSE(j.at("claims").at(1).contains("geometry"));
  const Scenario again = parse_scenario(j.dump(), "again.json");
  CHECK(again.start.claims == sc.start.claims);
  CHECK(scenario_to_json(again) == j);
  const Scenario plain =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-simultaneous-claim.json");
  CHECK_FALSE(scenario_to_json(plain).contains("claims"));
}

TEST_CASE("start claims: a pending claim has no entry yet, as one left at claim.create.after",
          "[scenario][start-state]") {
  std::string text = kLeftover;
  const std::string from = R"("workload_ready": true })";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), R"("status": "pending" })");
  const auto compiled = compile(parse_scenario(text, "pending.json"), {});
  const backend::Claim& c = compiled->prototype.state().claims[0];
  CHECK(c.status == "pending");
  CHECK(c.plan.geometry.size() == 1);  // the plan had geometry; reserve had not named the entry yet
  CHECK(c.entry_name.empty());
  CHECK(c.label_versions.empty());
}

TEST_CASE("start claims: an id of any length in the minted shape is refused, not a crash", "[scenario][start-state]") {
  // Names are bounded only by the file's size; a backtracking matcher once overflowed the stack here.
  std::string text = kLeftover;
  const std::string from = R"("id": "leftover-R1")";
  text.replace(text.find(from), from.size(), R"("id": "claim-ctl-)" + std::string(300000, '7') + "\"");
  try {
    parse_scenario(text, "long.json");
    FAIL("the loader accepted a minted-shape id");
  } catch (const ScenarioError& e) {
    CHECK(e.pointer() == "/claims/0/id");
    CHECK_THAT(e.message(), Catch::Contains("rule ids-never-minted"));
  }
}

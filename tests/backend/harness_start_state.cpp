// Start state and foreign writes (docs/DESIGN.md §4): backend/scenario/scenario_state.h and
// backend/ops/op_foreign.cpp. Loader rejections are in the malformed corpus (tests/backend/malformed/).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/backend/final_state.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

const char* kStart = R"({
  "schema": "allocsim/scenario/v1",
  "name": "start-state",
  "backend": { "authority": "managed-mig" },
  "nodes": [
    { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "resource_version": 9, "owner": "flowX", "owner_epoch": "gen-flowX-2", "mig_state": "pending",
      "mig_state_generation": 8, "mig_layout": { "1g.10gb": 3 }, "mig_config": "videoflow-flowX-gen-flowX-2",
      "restore_record": "all-disabled" },
    { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 }
  ],
  "shared_map": { "entries": { "videoflow-flowX-gen-flowX-2": { "n1": 1 } } },
  "cluster_policy": { "pointer": "videoflow-map", "restore": "default-mig-parted-config" },
  "actors": [ { "name": "a", "script": [] } ],
  "expect": { "outcome": "pass" }
})";

}  // namespace

TEST_CASE("start state: every key reaches the backend before any actor runs", "[scenario][start-state]") {
  const Scenario sc = parse_scenario(kStart, "start.json");
  const auto compiled = compile(sc, {});
  const backend::BackendState& s = compiled->prototype.state();
  const backend::NodeFixture& n1 = *s.node("n1");
  CHECK(n1.resource_version == 9);
  CHECK(n1.owner == std::optional<std::string>("flowX"));
  CHECK(n1.owner_epoch == std::optional<std::string>("gen-flowX-2"));
  CHECK(n1.mig_state == "pending");
  CHECK(n1.mig_state_generation == 8);
  CHECK(n1.mig_layout == backend::OrderedMap<std::string, int>{{"1g.10gb", 3}});
  CHECK(n1.mig_config == "videoflow-flowX-gen-flowX-2");
  CHECK(n1.restore_record == std::optional<std::string>("all-disabled"));
  const backend::NodeFixture& n2 = *s.node("n2");  // untouched: upstream's NodeFixture defaults
  CHECK(n2.resource_version == 1);
  CHECK_FALSE(n2.owner.has_value());
  CHECK(n2.mig_state == "success");
  CHECK(s.shared_config.size() == 1);
  CHECK(s.shared_config[0].first == "videoflow-flowX-gen-flowX-2");
  CHECK(s.shared_config_version == 1);
  CHECK_FALSE(s.shared_tombstone);
  CHECK(s.pointer == "videoflow-map");
  CHECK(s.pointer_restore == std::optional<std::string>("default-mig-parted-config"));
  CHECK(s.audit.empty());  // a start state is not something the adapter did
}

TEST_CASE("start state: the scenario encoder writes the keys back, and only when given", "[scenario][start-state]") {
  const Scenario sc = parse_scenario(kStart, "start.json");
  const auto j = scenario_to_json(sc);
  CHECK(j.at("nodes").at(0).at("resource_version") == 9);
  CHECK(j.at("nodes").at(0).at("owner_epoch") == "gen-flowX-2");
  CHECK(j.at("nodes").at(0).at("mig_layout").at("1g.10gb") == 3);
  CHECK_FALSE(j.at("nodes").at(1).contains("resource_version"));
  CHECK_FALSE(j.at("nodes").at(1).contains("owner"));
  CHECK_FALSE(j.at("nodes").at(1).contains("mig_state"));
  CHECK(j.at("shared_map").at("tombstone") == false);
  CHECK(j.at("cluster_policy").at("restore") == "default-mig-parted-config");
  CHECK(scenario_to_json(parse_scenario(j.dump(), "again.json")) == j);
  // A v1 file without these keys encodes without them (its trace files stay as they were).
  const Scenario plain =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-simultaneous-claim.json");
  const auto pj = scenario_to_json(plain);
  CHECK_FALSE(pj.contains("shared_map"));
  CHECK_FALSE(pj.contains("cluster_policy"));
  CHECK_FALSE(pj.at("nodes").at(0).contains("resource_version"));
}

TEST_CASE("foreign writes: each is one locked write that bumps its object's version", "[scenario][foreign]") {
  const char* text = R"({
    "schema": "allocsim/scenario/v1",
    "name": "foreign",
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 4, "memory_gib": 80,
                 "labels": { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "4",
                             "nvidia.com/mig.config.state": "success", "old": "x" } } ],
    "actors": [ { "name": "ops", "script": [
        { "op": "set_labels", "node": "n1", "set": { "nvidia.com/gpu.count": "3",
                                                     "nvidia.com/mig.config": "all-1g.10gb" }, "remove": ["old"] },
        { "op": "set_mig_state", "node": "n1", "state": "failed", "generation": 2 },
        { "op": "write_shared_map", "put": { "videoflow-x": { "n1": 1 } } },
        { "op": "write_shared_map", "replace": true, "put": { "all-disabled": {} } },
        { "op": "set_pointer", "pointer": "videoflow-map" } ] } ],
    "invariants": ["no-deadlock"],
    "expect": { "outcome": "pass", "actors": { "ops": { "set_labels": ["done"], "4": ["done"] } } }
  })";
  const Scenario sc = parse_scenario(text, "foreign.json");
  const backend::BackendState s = test::final_state(sc);
  const backend::NodeFixture& n1 = *s.node("n1");
  CHECK(n1.labels.get() == backend::Labels{{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
                                           {"nvidia.com/gpu.count", "3"},
                                           {"nvidia.com/mig.config.state", "failed"},
                                           {"nvidia.com/mig.config", "all-1g.10gb"}});
  CHECK(n1.mig_config == "all-1g.10gb");  // upstream's field for that label follows it
  CHECK(n1.mig_state == "failed");
  CHECK(n1.mig_state_generation == 2);
  CHECK(n1.resource_version == 3);  // 1 + set_labels + set_mig_state
  CHECK(n1.gpu_count == 4);         // a relabel changes what GFD says, not the cards
  REQUIRE(s.shared_config.size() == 1);
  CHECK(s.shared_config[0].first == "all-disabled");
  CHECK(s.shared_config_version == 3);
  CHECK(s.pointer == "videoflow-map");
  CHECK(s.pointer_version == 2);
  CHECK_FALSE(s.pointer_restore.has_value());
  CHECK(s.audit.empty());  // the audit is the adapter's own record
}

TEST_CASE("foreign writes: DPOR orders a relabel against a reserve as DFS does", "[scenario][foreign][dpor]") {
  // If set_labels declared no footprint, DPOR would take it as independent of the reserve and explore a
  // single order: only "claimed" would be seen. The relabel bumps n1's resourceVersion, so between the
  // reserve's inventory and its CAS it makes the reserve lose ("conflict").
  const Scenario sc = load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/incident-gfd-count-drop.json");
  campaign::ExploreConfig dpor;
  dpor.strategy = "dfs";
  dpor.reduction = "dpor";
  dpor.executions = 100000;
  campaign::ExploreConfig full = dpor;
  full.reduction = "none";
  const campaign::RunReport a = campaign::run(*subject_of(sc), dpor);
  const campaign::RunReport b = campaign::run(*subject_of(sc), full);
  REQUIRE(a.exhausted);
  REQUIRE(b.exhausted);
  CHECK(a.summary.executions > 1);
  CHECK(a.summary.executions <= b.summary.executions);
  std::set<std::string> seen_a, seen_b;
  for (const auto& [out, n] : a.outcomes.at("flowA").at("reserve")) seen_a.insert(out);
  for (const auto& [out, n] : b.outcomes.at("flowA").at("reserve")) seen_b.insert(out);
  CHECK(seen_a == seen_b);
  CHECK(seen_a == std::set<std::string>{"claimed", "conflict"});
  CHECK(a.distinct_traces == b.distinct_traces);
}

// The shrinker makes a scenario plainer where the violation does not need what it drops (backend/system/
// reductions.h, `simplified`): an actor's owner identity, an op's write-behind. Each is one candidate; the
// minimal scenario keeps only those the violation needs.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/scenario/scenario_json.h"
#include "backend/system/reductions.h"
#include "backend/system/shrink.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

namespace shrink_plainer_test {

using namespace allocsim;
using namespace allocsim::harness;

// flowA violates readiness-answers-its-write on its own (stale-success-readiness), acting as identity team-x.
constexpr const char* kLoneReplica = R"({
  "schema": "allocsim/scenario/v1", "name": "lone-replica",
  "backend": { "authority": "managed-mig", "mig_apply_seconds": 5, "mutants": ["stale-success-readiness"] },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [
    { "name": "flowA", "owner": "team-x", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1, "sharing": "isolated_mig",
                                         "minimum_usable_memory_gib": 10 } ] },
      { "op": "await", "status": "prepared", "polls_max": 2 } ] } ],
  "expect": { "violation": "readiness-answers-its-write" } })";

// The kubelet's pod takes both cards of n1 while flowA's claim holds one: capacity-within-cards, whether the
// kubelet writes the bind itself or a background actor writes it behind.
constexpr const char* kBehindBind = R"({
  "schema": "allocsim/scenario/v1", "name": "behind-bind",
  "backend": { "authority": "device-plugin", "mutants": [] },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [
    { "name": "flowA", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1, "sharing": "exclusive" } ] } ] },
    { "name": "kubelet", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "pod", "units": 2, "behind": true } ] } ],
  "expect": { "violation": "capacity-within-cards" } })";

// Everything that can name a write-behind's background actor or its `issued`: a `when` on it and one on that
// `when`'s `skipped`, per-occurrence pins, an order constraint, faults.actors.
constexpr const char* kBehindNamed = R"({
  "schema": "allocsim/scenario/v1", "name": "behind-named",
  "backend": { "authority": "device-plugin", "mutants": [] },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [
    { "name": "flowA", "owner": "team-x", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1, "sharing": "exclusive" } ] } ] },
    { "name": "kubelet", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "pod", "units": 2, "behind": true },
      { "op": "unbind_workload", "node": "n1", "workload": "pod", "when": { "op": 0, "outcome": "issued" } },
      { "op": "advance_clock", "seconds": 1, "when": { "op": 1, "outcome": "skipped" } } ] } ],
  "order": [ [ "kubelet.behind0:bind_workload", "flowA:reserve" ] ],
  "faults": { "actors": [ "kubelet.behind0" ], "fail_reads": [ "pods" ] },
  "expect": { "violation": "capacity-within-cards",
              "actors": { "kubelet": { "0": [ "issued" ], "1": [ "done", "skipped" ], "2": [ "done", "skipped" ] } } }
})";

// The kubelet's pod must land before flowC's reserve carves n1 (geometry-stable-under-workloads), so the write-behind
// lands first in the violating schedule: made plain, the kubelet must take the background actor's early step.
constexpr const char* kEarlyBehind = R"({
  "schema": "allocsim/scenario/v1", "name": "early-behind",
  "backend": { "authority": "managed-mig", "mig_apply_seconds": 5, "mutants": [] },
  "nodes": [ { "name": "n1", "product": "NVIDIA-H200", "gpu_count": 5, "memory_gib": 141,
               "labels": { "nvidia.com/gpu.product": "NVIDIA-H200", "nvidia.com/gpu.count": "5",
                           "nvidia.com/mig.capable": "true" }, "mig_config": "all-disabled" } ],
  "actors": [
    { "name": "flowC", "script": [ { "op": "reserve", "requests": [ { "workload": "c", "devices": 1,
        "sharing": "isolated_mig", "minimum_usable_memory_gib": 5 } ] } ] },
    { "name": "kubelet", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "pod1", "units": 2, "behind": true } ] } ],
  "expect": { "violation": "geometry-stable-under-workloads" } })";

std::vector<std::string> actor_names(const Scenario& sc) {
  std::vector<std::string> out;
  for (const auto& a : sc.actors) out.push_back(a.name);
  return out;
}

ShrinkResult shrink_first(const Scenario& sc, const std::string& invariant) {
  campaign::ExploreConfig cfg;
  cfg.executions = 200;
  cfg.stop_at_first_violation = true;
  const campaign::RunReport run = campaign::run(*subject_of(sc), cfg);
  REQUIRE(run.summary.first);
  REQUIRE(run.summary.first->result.violation->invariant == invariant);
  return shrink(sc, run.summary.first->result.schedule, campaign::ShrinkOptions{});
}

TEST_CASE("simplified: owners first, then write-behinds, in file order, and nothing past the last", "[shrink]") {
  Scenario sc = parse_scenario(kBehindBind, "behind-bind.json");
  REQUIRE(actor_names(sc) == std::vector<std::string>{"flowA", "kubelet", "kubelet.behind0"});
  sc.actors[0].owner = "team-x";
  const std::optional<Simplification> owner = simplified(sc, 0);
  REQUIRE(owner);
  CHECK_FALSE(owner->scenario.actors[0].owner);
  CHECK_FALSE(owner->dropped_actor);
  CHECK(actor_names(owner->scenario) == actor_names(sc));
  const std::optional<Simplification> behind = simplified(sc, 1);
  REQUIRE(behind);
  CHECK(behind->dropped_actor == 2u);
  CHECK(actor_names(behind->scenario) == std::vector<std::string>{"flowA", "kubelet"});
  CHECK(behind->scenario.actors[0].owner == "team-x");
  CHECK_FALSE(behind->scenario.actors[1].script[0].behind);
  CHECK_FALSE(simplified(sc, 2));
}

TEST_CASE("simplified: a write-behind's issued pin in expect.actors goes with it", "[shrink]") {
  Scenario sc = parse_scenario(kBehindBind, "behind-bind.json");
  sc.expect.actors.push_back({"kubelet", {{"bind_workload", {"issued"}}}});
  const std::optional<Simplification> behind = simplified(sc, 0);
  REQUIRE(behind);
  CHECK(behind->scenario.expect.actors.empty());
  // What the shrinker would write loads again.
  CHECK(actor_names(parse_scenario(scenario_to_json(behind->scenario).dump(), "min.json")) ==
        std::vector<std::string>{"flowA", "kubelet"});
}

TEST_CASE("simplified: what named the background actor or its issued follows, and the result loads", "[shrink]") {
  const Scenario sc = parse_scenario(kBehindNamed, "behind-named.json");
  REQUIRE(actor_names(sc) == std::vector<std::string>{"flowA", "kubelet", "kubelet.behind0"});
  REQUIRE(sc.order.constraints.size() == 1);
  size_t k = 0;
  for (; const std::optional<Simplification> out = simplified(sc, k); ++k) {
    INFO("simplification " << k);
    const std::string json = scenario_to_json(out->scenario).dump();
    CHECK(actor_names(parse_scenario(json, "min.json")) == actor_names(out->scenario));
  }
  CHECK(k == 2);
  const Scenario plain = simplified(sc, 1)->scenario;
  CHECK(actor_names(plain) == std::vector<std::string>{"flowA", "kubelet"});
  // Its faults strike at the issuer; the constraint on the background actor went with it.
  CHECK(plain.faults.actors == std::vector<std::string>{"kubelet"});
  CHECK(plain.order.constraints.empty());
  // No op records issued: the unbind's `when` went, and so did the one on the unbind's skipped.
  const auto& script = plain.actors[1].script;
  CHECK_FALSE(script[1].when);
  CHECK_FALSE(script[2].when);
  // Pins keep only what each op can still record; the bind's (issued) went whole.
  REQUIRE(plain.expect.occurrences.size() == 1);
  CHECK(plain.expect.occurrences[0].second ==
        OrderedMap<size_t, std::vector<std::string>>{{1, {"done"}}, {2, {"done"}}});
}

TEST_CASE("without_op: per-occurrence pins move down with their ops, and faults of a vanished actor go", "[shrink]") {
  Scenario sc = parse_scenario(kBehindNamed, "behind-named.json");
  // Unchained, so that dropping the bind leaves the other two ops.
  sc.actors[1].script[1].when.reset();
  sc.actors[1].script[2].when.reset();
  const Scenario out = without_op(sc, 1, 0);
  REQUIRE(out.actors.size() == 2);
  REQUIRE(out.actors[1].script.size() == 2);
  REQUIRE(out.expect.occurrences.size() == 1);
  CHECK(out.expect.occurrences[0].second == OrderedMap<size_t, std::vector<std::string>>{{0, {"done"}}, {1, {"done"}}});
  // Only the background actor could fault, and it is gone: an empty list would mean every actor.
  CHECK_FALSE(out.faults.enabled);
  CHECK(actor_names(parse_scenario(scenario_to_json(out).dump(), "min.json")) == actor_names(out));
}

TEST_CASE("shrink: an owner identity the violation does not need is dropped", "[shrink]") {
  const ShrinkResult out =
      shrink_first(parse_scenario(kLoneReplica, "lone-replica.json"), "readiness-answers-its-write");
  REQUIRE(actor_names(out.scenario) == std::vector<std::string>{"flowA"});
  CHECK_FALSE(out.scenario.actors[0].owner);
  CHECK_FALSE(scenario_to_json(out.scenario)["actors"][0].contains("owner"));
  REQUIRE(out.result.violation);
  CHECK(out.result.violation->invariant == "readiness-answers-its-write");
}

TEST_CASE("shrink: a write-behind the violation does not need is dropped with its background actor", "[shrink]") {
  const ShrinkResult out = shrink_first(parse_scenario(kBehindBind, "behind-bind.json"), "capacity-within-cards");
  CHECK(actor_names(out.scenario) == std::vector<std::string>{"flowA", "kubelet"});
  REQUIRE(out.scenario.actors.size() == 2);
  CHECK_FALSE(out.scenario.actors[1].script.at(0).behind);
  REQUIRE(out.result.violation);
  CHECK(out.result.violation->invariant == "capacity-within-cards");
  CHECK(out.result.preemptions == 0);
}

TEST_CASE("shrink: a write-behind that landed early is made plain, its issuer taking the early step", "[shrink]") {
  const ShrinkResult out =
      shrink_first(parse_scenario(kEarlyBehind, "early-behind.json"), "geometry-stable-under-workloads");
  CHECK(actor_names(out.scenario) == std::vector<std::string>{"flowC", "kubelet"});
  REQUIRE(out.scenario.actors.size() == 2);
  CHECK_FALSE(out.scenario.actors[1].script.at(0).behind);
  REQUIRE(out.result.violation);
  CHECK(out.result.violation->invariant == "geometry-stable-under-workloads");
}

}  // namespace shrink_plainer_test

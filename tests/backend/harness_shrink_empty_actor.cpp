// The shrinker drops an actor whose script it emptied, even when that actor is the only one listed in
// faults.actors (backend/system/shrink.h): the minimal scenario has no empty column.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/scenario/scenario_json.h"
#include "backend/system/shrink.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

// flowA violates readiness-answers-its-write on its own (stale-success-readiness); binder only binds a
// workload on the other node and is the only actor that may fault.
constexpr const char* kBinderFaultsScenario = R"({
  "schema": "allocsim/scenario/v1", "name": "binder-faults",
  "backend": { "authority": "managed-mig", "mig_apply_seconds": 5, "mutants": ["stale-success-readiness"] },
  "nodes": [
    { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
    { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [
    { "name": "flowA", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1, "sharing": "isolated_mig",
                                         "minimum_usable_memory_gib": 10 } ] },
      { "op": "await", "status": "prepared", "polls_max": 2 },
      { "op": "release" } ] },
    { "name": "binder", "script": [ { "op": "bind_workload", "node": "n2", "workload": "wb", "units": 1 } ] } ],
  "faults": { "actors": ["binder"], "fail_reads": ["pods"] },
  "expect": { "violation": "readiness-answers-its-write" } })";

std::vector<std::string> actor_names(const Scenario& sc) {
  std::vector<std::string> out;
  for (const auto& a : sc.actors) out.push_back(a.name);
  return out;
}

}  // namespace

TEST_CASE("shrink: an actor left without ops is dropped with its faults.actors entry", "[shrink][faults]") {
  const Scenario sc = parse_scenario(kBinderFaultsScenario, "binder-faults.json");
  campaign::ExploreConfig cfg;
  cfg.executions = 50;
  cfg.stop_at_first_violation = true;
  const campaign::RunReport run = campaign::run(*subject_of(sc), cfg);
  REQUIRE(run.summary.first);
  REQUIRE(run.summary.first->result.violation->invariant == "readiness-answers-its-write");

  const ShrinkResult out = shrink(sc, run.summary.first->result.schedule, campaign::ShrinkOptions{});
  CHECK(actor_names(out.scenario) == std::vector<std::string>{"flowA"});
  CHECK(op_count(out.scenario) == 1);
  // binder was the only actor that could fault: with it gone no actor can, so the faults go too (an empty
  // faults.actors would mean "every actor" instead).
  CHECK_FALSE(out.scenario.faults.enabled);
  CHECK_FALSE(scenario_to_json(out.scenario).contains("faults"));
  REQUIRE(out.result.violation);
  CHECK(out.result.violation->invariant == "readiness-answers-its-write");
  CHECK(out.result.steps.size() == 8);
  // What the trace file embeds loads again.
  CHECK(actor_names(parse_scenario(scenario_to_json(out.scenario).dump(), "min.json")) ==
        std::vector<std::string>{"flowA"});
}

TEST_CASE("without_actor: the only fault-eligible actor goes only once its script is empty", "[shrink][faults]") {
  Scenario sc = parse_scenario(kBinderFaultsScenario, "binder-faults.json");
  // With its op it stays: dropping it would make every actor eligible to fault.
  CHECK_FALSE(without_actor(sc, 1).has_value());
  sc.actors[1].script.clear();
  const std::optional<Scenario> out = without_actor(sc, 1);
  REQUIRE(out);
  CHECK(actor_names(*out) == std::vector<std::string>{"flowA"});
  CHECK_FALSE(out->faults.enabled);
  CHECK(out->faults.actors.empty());
  CHECK(out->faults.fail_reads.empty());
}

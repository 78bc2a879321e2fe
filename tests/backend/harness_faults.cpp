// Faults as choices and recovery (scenario `faults`, op `recover`; backend/system/backend_world.h): each action
// does what it says, on fixed schedules. The schedule is written by hand: the lowest-numbered runnable
// actor always runs (so flowA runs to its end before ctl, whose recover waits for it anyway) and the
// draws are given in order (every further draw is 0, no fault).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "backend/ops/actor_caller.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "backend/world/object_ids.h"
#include "sim/engine.h"
#include "sim/strategies/replay.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

/// Picks the lowest runnable actor; draws the given values in order, then 0. Records every draw bound.
struct Scripted final : sim::Strategy {
  std::vector<uint64_t> draws;
  std::vector<uint64_t> bounds;
  size_t next = 0;
  explicit Scripted(std::vector<uint64_t> d) : draws(std::move(d)) {}
  void begin_execution(uint64_t) override {}
  sim::ActorId choose(std::span<const sim::Candidate> r, sim::ActorId) override { return r.front().actor; }
  uint64_t draw(uint64_t bound) override {
    bounds.push_back(bound);
    return next < draws.size() ? draws[next++] : 0;
  }
  bool end_execution(const sim::ExecutionResult&) override { return false; }
};

/// One node n1, flowA reserving a MIG sharer then releasing `releases` times, ctl recovering flowA twice.
std::string scenario(const std::string& faults, int releases = 1) {
  std::string release_ops;
  for (int i = 0; i < releases; ++i) release_ops += R"(, { "op": "release" })";
  return fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "faults",
    "backend": {{ "authority": "managed-mig" }},
    "nodes": [ {{ "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 }} ],
    "actors": [
      {{ "name": "flowA", "script": [ {{ "op": "reserve", "requests": [ {{ "workload": "wa",
          "sharing": "isolated_mig", "minimum_usable_memory_gib": 10 }} ] }}{} ] }},
      {{ "name": "ctl", "script": [ {{ "op": "recover", "flow": "flowA" }}, {{ "op": "recover", "flow": "flowA" }} ] }} ],
    "faults": {} }})",
                     release_ops, faults);
}

struct Run {
  Scenario sc;
  std::unique_ptr<CompiledScenario> compiled;
  std::unique_ptr<BackendWorld> world;
  sim::ExecutionResult result;
  Scripted strategy;

  Run(const std::string& text, std::vector<uint64_t> draws)
      : sc(parse_scenario(text, "faults.json")), strategy(std::move(draws)) {
    compiled = compile(sc, {});
    world = std::make_unique<BackendWorld>(*compiled);
    sim::Engine engine;
    result = engine.run(*world, strategy);
  }
  std::vector<std::string> outcomes(size_t actor) const {
    std::vector<std::string> out;
    for (const char* o : world->actors()[actor].outcomes) out.push_back(o ? o : "-");
    return out;
  }
  const backend::BackendState& state() const { return world->backend().state(); }
  /// The detail of the first step at `what`, or "".
  std::string detail_at(std::string_view what) const {
    for (const auto& s : result.steps)
      if (s.what == what) return s.detail;
    return "";
  }
  /// Converged: no claim, owner, entry or restore record; n1 and the pointer back.
  void check_clean() const {
    const auto& s = state();
    CHECK(s.claims.empty());
    CHECK_FALSE(s.nodes[0].owner.has_value());
    CHECK_FALSE(s.nodes[0].restore_record.has_value());
    CHECK(s.nodes[0].mig_config == "all-disabled");
    CHECK(s.shared_config.empty());
    CHECK(s.pointer == backend::kDefaultPointer);
  }
};

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("crash: the actor dies at the barrier, the lock is released, recovery converges", "[faults][alloc-033]") {
  Run r(scenario(
            R"({ "actors": ["flowA"], "barriers": { "claim.schedule.after": ["crash", "raise", "drop_response"] } })"),
        {1});
  INFO((r.result.violation ? r.result.violation->message : std::string("no violation")));
  CHECK(r.strategy.bounds == std::vector<uint64_t>{4});  // {none, crash, raise, drop_response}, once
  REQUIRE_FALSE(r.result.violation);
  CHECK(r.result.quiescent);
  CHECK(r.outcomes(0) == V{"crashed", "-"});  // its release never runs
  CHECK(r.outcomes(1) == V{"released", "none"});
  REQUIRE(r.result.crashes.size() == 1);
  CHECK(r.result.crashes[0].actor == 0);
  CHECK(r.result.crashes[0].where == "claim.schedule.after");
  const auto& crash_step = r.result.steps[r.result.crashes[0].step];
  CHECK(crash_step.what == "claim.schedule.after");
  CHECK(crash_step.detail == "claim=claim-flowA-2 op_id=flowA:op1 fault=crash crashed=claim.schedule.after");
  CHECK(r.world->actors()[0].crashed == std::string("claim.schedule.after"));
  CHECK(r.world->faults_fired() == 1);
  // The restarted controller released by the recorded claim and generation, with its own operation id.
  bool released_by_ctl = false;
  for (const auto& m : r.state().audit) released_by_ctl |= m.kind == "release-owner" && m.op_id == "ctl:recover1";
  CHECK(released_by_ctl);
  r.check_clean();
}

TEST_CASE("raise: the call fails after its effects, the op records error and the actor goes on", "[faults]") {
  SECTION("at claim.schedule.after: the claim exists, flowA never learns it, ctl cleans it up") {
    Run r(scenario(R"({ "barriers": { "claim.schedule.after": ["crash", "raise", "drop_response"] } })"), {2});
    REQUIRE_FALSE(r.result.violation);
    CHECK(r.outcomes(0) == V{"error", "skipped"});
    CHECK(r.outcomes(1) == V{"released", "none"});
    CHECK(r.result.crashes.empty());
    CHECK(r.detail_at("claim.schedule.after") == "claim=claim-flowA-2 op_id=flowA:op1 fault=raise");
    r.check_clean();
  }
  SECTION("at delete.after: flowA keeps its claim, and its retry finishes the release") {
    Run r(scenario(R"({ "actors": ["flowA"], "barriers": { "delete.after": ["raise"] } })", 2), {1});
    REQUIRE_FALSE(r.result.violation);
    CHECK(r.outcomes(0) == V{"claimed", "error", "released"});
    CHECK(r.outcomes(1) == V{"none", "none"});
    r.check_clean();
  }
}

TEST_CASE("drop_response: the call completes, the caller sees unknown and learns nothing", "[faults]") {
  SECTION("reserve: the claim is made, flowA never gets its id") {
    Run r(scenario(R"({ "barriers": { "claim.schedule.after": ["crash", "raise", "drop_response"] } })"), {3});
    REQUIRE_FALSE(r.result.violation);
    CHECK(r.outcomes(0) == V{"unknown", "skipped"});
    CHECK(r.outcomes(1) == V{"released", "none"});
    r.check_clean();
  }
  SECTION("release: it released, flowA keeps the claim; its retry answers already released") {
    Run r(scenario(R"({ "barriers": { "delete.after": ["drop_response"] } })", 2), {1});
    REQUIRE_FALSE(r.result.violation);
    CHECK(r.outcomes(0) == V{"claimed", "unknown", "released"});
    CHECK(r.outcomes(1) == V{"none", "none"});
    r.check_clean();
  }
}

TEST_CASE("crash between the owner stamp and the claim: no cleanup can remove the owner (finding)",
          "[faults][alloc-033]") {
  Run r(scenario(R"({ "barriers": { "owner.update.after": ["crash"] } })"), {1});
  REQUIRE(r.result.violation);
  CHECK(r.result.violation->invariant == "recovery-converges");
  CHECK(r.result.violation->message == "ctl recovered flowA, but flowA still owns node n1 (epoch gen-flowA-3)");
  CHECK(r.outcomes(0) == V{"crashed", "-"});
  CHECK(r.outcomes(1) == V{"none", "-"});
}

TEST_CASE("the bound: at most max faults fire, draw 0 is no fault", "[faults]") {
  const std::string faults =
      R"({ "max": 1, "actors": ["flowA"], "barriers": { "owner.update.after": ["raise"], "restore.before": ["raise"] } })";
  SECTION("no fault drawn: both barriers offer the choice") {
    Run r(scenario(faults), {});
    REQUIRE_FALSE(r.result.violation);
    CHECK(r.strategy.bounds == std::vector<uint64_t>{2, 2});
    CHECK(r.outcomes(0) == V{"claimed", "released"});
    CHECK(r.world->faults_fired() == 0);
  }
  SECTION("after one fault, no further choice is offered") {
    Run r(scenario(faults), {1});
    CHECK(r.strategy.bounds == std::vector<uint64_t>{2});
    CHECK(r.outcomes(0) == V{"error", "skipped"});
  }
}

TEST_CASE("fail_reads and fail_geometry are fault choices at an actor's calls", "[faults]") {
  SECTION("fail_reads nodes before the reserve's inventory: Unknown") {
    Run r(scenario(R"({ "actors": ["flowA"], "fail_reads": ["nodes"], "fail_geometry": ["n1"] })"), {1});
    CHECK(r.strategy.bounds.front() == 3);  // {none, nodes, n1}
    CHECK(r.outcomes(0) == V{"unknown", "skipped"});
    CHECK(r.detail_at("inventory") == "reserve=1 fault=fail_reads:nodes");
  }
  SECTION("fail_geometry n1: the claim's geometry fails (ALLOC-021)") {
    Run r(scenario(R"({ "actors": ["flowA"], "fail_reads": ["nodes"], "fail_geometry": ["n1"] })"), {2});
    CHECK(r.outcomes(0) == V{"claimed", "released"});
    CHECK(r.state().failing_geometry == std::vector<std::string>{"n1"});
  }
}

TEST_CASE("faults replay exactly: the draws are part of the schedule", "[faults]") {
  Run r(scenario(R"({ "barriers": { "restore.after": ["crash"] } })"), {1});
  const auto sc = parse_scenario(scenario(R"({ "barriers": { "restore.after": ["crash"] } })"), "faults.json");
  auto compiled = compile(sc, {});
  BackendWorld again(*compiled);
  sim::ReplayStrategy replay(r.result.schedule);
  replay.begin_execution(0);
  sim::Engine engine;
  const auto r2 = engine.run(again, replay);
  CHECK_FALSE(replay.divergence());
  CHECK(r2.fingerprint() == r.result.fingerprint());
  CHECK(r2.crashes == r.result.crashes);
}

TEST_CASE("explanations name the faults-fired footprint object, not its hash", "[faults]") {
  // DPOR orders two actors' fault draws through this object (object_ids.h faults_fired_id); an explanation
  // that names it must say what it is.
  const Scenario sc =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-one-plan-two-claimants.json");
  const auto name = name_object(sc, faults_fired_id(), {});
  CHECK(name.role == campaign::ObjectName::Data);
  CHECK(name.words == "the count of faults fired (faults.max)");
}

// The world reset (backend/world/world_state.h reset_world_storage) over every scenario file: after every execution
// the storage the next world takes, reset from what that execution wrote, holds exactly the prototype's state
// (every field of every node, claims, map, pointer, clock, audit) with the prototype's owner epochs as shadows
// and its configs as the recorded ones. Random executions, faults and foreign writes included.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/system/backend_world.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "tests/backend/state_equal.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

using allocsim::testing::scenario_files;

/// "" when `s` is what a world of `c` starts with, else what differs.
std::string storage_difference(const WorldStorage& s, const CompiledScenario& c) {
  const auto& proto = c.prototype.state();
  if (std::string d = test::state_difference(s.backend.state(), proto); !d.empty()) return d;
  if (s.shadow.size() != proto.nodes.size() || s.original_configs.size() != proto.nodes.size()) return "sizes";
  for (size_t i = 0; i < proto.nodes.size(); ++i) {
    if (s.shadow[i].owner_epoch != proto.nodes[i].owner_epoch) return "shadow " + std::to_string(i);
    if (s.original_configs[i] != recorded_config(proto.nodes[i])) return "original config " + std::to_string(i);
  }
  return "";
}

}  // namespace

TEST_CASE("a world reset from what the execution wrote gives the prototype's state: every scenario file, random",
          "[scenarios]") {
  uint64_t partial = 0, nodes_restored = 0;
  for (const std::string& file : scenario_files()) {
    INFO(file);
    const Scenario sc = load_scenario(file);
    const auto compiled = compile(sc, {});
    sim::Engine engine(sim::EngineOptions{.max_steps = resolve_max_steps(sc, std::nullopt)});
    sim::RandomStrategy random;
    uint64_t index = 0;
    // The factory runs after the previous world gave its storage back: reset it here, as the next world's
    // constructor would (which then resets it again, with nothing written: a no-op), and compare.
    const auto factory = [&]() {
      if (!compiled->spare.empty()) {
        WorldStorage& s = *compiled->spare.back();
        INFO("before execution " << index);
        const bool tracked = !s.untracked && !s.memo.dirty.execution_unresolved();
        partial += tracked;
        s.memo.dirty.execution_nodes().each([&](uint32_t) { nodes_restored += tracked; });
        reset_world_storage(s, *compiled);
        REQUIRE(storage_difference(s, *compiled) == "");
      }
      ++index;
      return std::make_unique<BackendWorld>(*compiled);
    };
    sim::explore(engine, factory, random, sim::ExploreOptions{.seed = 11, .executions = 200},
                 [](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult&) {});
  }
  // The partial reset must have done the work, not the full copy it falls back to.
  CHECK(partial > 5000);
  CHECK(nodes_restored > 5000);
}

// The world reset (backend/world/world_state.h reset_world_storage): the next world restores exactly the nodes the
// previous execution wrote (the dirty set's execution part), and copies the whole prototype when it cannot
// trust that set (a hand edit through mutable_backend(), a node write no index resolves).
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/world/dirty.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "tests/backend/state_equal.h"

// In a named namespace: a unity batch compiles the next test file after this one, and a using-directive at
// file scope would make its own names ambiguous.
namespace world_reset_test {

using namespace allocsim;
using namespace allocsim::harness;
using backend::Obj;

namespace {

/// Three nodes; flowA relabels n2 (a foreign write: one node written, through ActorCaller::touch).
const char* kResetScenario = R"({
  "schema": "allocsim/scenario/v1", "name": "reset",
  "backend": { "authority": "managed-mig" },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
             { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
             { "name": "n3", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [ { "name": "flowA", "script": [ { "op": "set_labels", "node": "n2", "set": { "team": "a" } } ] } ]
})";

struct ResetFixture {
  Scenario sc = parse_scenario(kResetScenario, "reset.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  const backend::BackendState& proto() const { return compiled->prototype.state(); }
  /// Runs one execution; its storage is then the only spare one.
  WorldStorage& run_one() {
    sim::Engine engine;
    sim::RandomStrategy random;
    sim::explore(
        engine, [&] { return std::make_unique<BackendWorld>(*compiled); }, random,
        sim::ExploreOptions{.seed = 1, .executions = 1},
        [](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult&) {});
    REQUIRE(compiled->spare.size() == 1);
    return *compiled->spare.back();
  }
};

std::vector<uint32_t> listed(const NodeBits& bits) {
  std::vector<uint32_t> out;
  bits.list(out);
  return out;
}

}  // namespace

TEST_CASE("the dirty set's execution part keeps every node written since the world began, across checks",
          "[world-reset]") {
  ResetFixture f;
  WorldStorage& s = f.run_one();
  // The relabel of n2 was checked (which clears the per-check part) and is still listed for the reset.
  CHECK_FALSE(s.memo.dirty.nodes().any());
  CHECK(listed(s.memo.dirty.execution_nodes()) == std::vector<uint32_t>{1});
  CHECK_FALSE(s.memo.dirty.execution_unresolved());
  CHECK(s.backend.state().nodes[1].labels.get() != f.proto().nodes[1].labels.get());
}

TEST_CASE("a world reset restores exactly the nodes the execution wrote, and not a node it did not write",
          "[world-reset]") {
  ResetFixture f;
  WorldStorage& s = f.run_one();
  // An edit no step made and nobody marked (node n1): the reset does not look at n1, so it stays.
  s.backend.mutable_state().nodes[0].mig_config = "edited";
  reset_world_storage(s, *f.compiled);
  CHECK(test::state_difference(s.backend.state(), f.proto()) == "node 0 mig_config");
  s.backend.mutable_state().nodes[0].mig_config = f.proto().nodes[0].mig_config;
  CHECK(test::state_difference(s.backend.state(), f.proto()) == "");
  CHECK_FALSE(s.memo.dirty.execution_nodes().any());  // the new execution starts with nothing written
}

TEST_CASE("a world reset after the state was edited through mutable_backend() copies the whole prototype",
          "[world-reset]") {
  ResetFixture f;
  {
    BackendWorld w(*f.compiled);
    w.mutable_backend().mutable_state().nodes[2].owner = "intruder";
  }
  const BackendWorld next(*f.compiled);
  CHECK(test::state_difference(next.backend().state(), f.proto()) == "");
}

TEST_CASE("a world reset after the same edit made without mutable_backend() and unmarked keeps it", "[world-reset]") {
  // The converse of the case above: what decides the full copy is the mark mutable_backend() leaves.
  ResetFixture f;
  {
    BackendWorld w(*f.compiled);
    const_cast<backend::MemoryBackend&>(w.backend()).mutable_state().nodes[2].owner = "intruder";
  }
  const BackendWorld next(*f.compiled);
  CHECK(test::state_difference(next.backend().state(), f.proto()) == "node 2 owner");
}

TEST_CASE("a world reset after a node write no index resolves copies the whole prototype", "[world-reset]") {
  ResetFixture f;
  {
    BackendWorld w(*f.compiled);
    const_cast<backend::MemoryBackend&>(w.backend()).mutable_state().nodes[2].owner = "intruder";
    w.memo.dirty.write(Obj::Node, "no-such-node", f.compiled->node_index);
    CHECK(w.memo.dirty.execution_unresolved());
  }
  const BackendWorld next(*f.compiled);
  CHECK(test::state_difference(next.backend().state(), f.proto()) == "");
}

TEST_CASE("a world reset restores a written node's owner-epoch shadow, and the rest of the state whole",
          "[world-reset]") {
  ResetFixture f;
  WorldStorage& s = f.run_one();
  // As if the execution had stamped n3 and checked it, and made a claim: marked as ActorCaller::touch would.
  s.backend.mutable_state().nodes[2].owner_epoch = "gen-flowA-1";
  s.shadow[2].owner_epoch = "gen-flowA-1";
  s.backend.mutable_state().claims.emplace_back().claim_id = "claim-flowA-1";
  s.backend.mutable_state().audit.push_back({"flowA:op1", "stamp-owner", "n3", "flowA"});
  s.memo.dirty.write(Obj::Node, "n3", f.compiled->node_index);
  reset_world_storage(s, *f.compiled);
  CHECK(test::state_difference(s.backend.state(), f.proto()) == "");
  CHECK_FALSE(s.shadow[2].owner_epoch.has_value());
  CHECK(s.original_configs == std::vector<std::string>(3, f.proto().nodes[0].mig_config));
}

}  // namespace world_reset_test

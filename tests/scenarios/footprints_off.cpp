// Recording footprints (EngineOptions::record_footprints) only adds records: with it off, the harness skips
// hashing object ids (ActorContext::records_footprints, ActorCaller::touch), and nothing else may move. Every
// scenario file, the same random executions both ways: the same execution fingerprints (every step, its
// detail, the violation), the same violation state blocks and the same final audit and claims.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/system/backend_world.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

struct ObservedExecution {
  uint64_t fingerprint;
  std::string state;  // the violation's state block, or ""
  size_t audit, claims, footprint_accesses;
};

std::vector<ObservedExecution> run_with(const CompiledScenario& compiled, const Scenario& sc, bool footprints) {
  sim::Engine engine(
      sim::EngineOptions{.max_steps = resolve_max_steps(sc, std::nullopt), .record_footprints = footprints});
  sim::RandomStrategy random;
  std::vector<ObservedExecution> out;
  sim::explore(
      engine, [&] { return std::make_unique<BackendWorld>(compiled); }, random,
      sim::ExploreOptions{.seed = 5, .executions = 150},
      [&](uint64_t, uint64_t, sim::World& w, const sim::ExecutionResult& r) {
        const auto& state = static_cast<BackendWorld&>(w).backend().state();
        size_t accesses = 0;
        for (const sim::StepRecord& s : r.steps) accesses += s.footprint.size();
        out.push_back({r.fingerprint(), r.violation ? r.violation->state : "", state.audit.size(), state.claims.size(),
                       accesses});
      });
  return out;
}

}  // namespace

TEST_CASE("footprints off: every scenario runs the same executions as with footprints recorded", "[scenarios]") {
  uint64_t compared = 0, accesses_on = 0;
  for (const std::string& file : allocsim::testing::scenario_files()) {
    INFO(file);
    const Scenario sc = load_scenario(file);
    const auto compiled = compile(sc, {});
    const std::vector<ObservedExecution> off = run_with(*compiled, sc, false);
    const std::vector<ObservedExecution> on = run_with(*compiled, sc, true);
    REQUIRE(off.size() == on.size());
    for (size_t i = 0; i < off.size(); ++i) {
      INFO("execution " << i);
      CHECK(off[i].fingerprint == on[i].fingerprint);
      CHECK(off[i].state == on[i].state);
      CHECK(off[i].audit == on[i].audit);
      CHECK(off[i].claims == on[i].claims);
      CHECK(off[i].footprint_accesses == 0);
      accesses_on += on[i].footprint_accesses;
      ++compared;
    }
  }
  CHECK(compared > 5000);
  CHECK(accesses_on > 100000);  // the recorded side did record
}

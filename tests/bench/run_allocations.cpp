// `run` (random strategy, every invariant on) over a two-claimant scenario: once warm, an execution allocates
// nothing, including the executions whose reserve loses its compare-and-swap (issue 16 item 2: ReserveLoss keeps
// the lost CAS as raw values). Counted by the bench's counting operator new (tools/bench/alloc_counter.h, linked
// into this binary only), from the execution hook: the same point of every execution.
#include <catch2/catch.hpp>

#include <string>

#include "backend/harness/runner.h"
#include "backend/harness/scenario.h"
#include "tools/bench/alloc_counter.h"

using namespace allocsim;
using allocsim::bench::alloc_counts;

TEST_CASE("run: ALLOC-004's executions allocate nothing once warm, lost compare-and-swaps included") {
  const harness::Scenario sc =
      harness::load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-004-one-plan-two-claimants.json");
  constexpr uint64_t kWarmup = 2000, kMeasured = 2000;
  harness::RunConfig cfg;
  cfg.executions = kWarmup + kMeasured;
  bench::AllocCounts start, used;
  harness::RunHooks hooks;
  hooks.on_execution = [&](uint64_t index, const sim::World&, const sim::ExecutionResult&) {
    if (index + 1 == kWarmup) start = alloc_counts();
    if (index + 1 == cfg.executions) used = alloc_counts() - start;
  };
  const harness::ScenarioReport report = harness::run_scenario(sc, cfg, hooks);
  REQUIRE(report.summary.executions == kWarmup + kMeasured);
  // Both ways a reserve ends ran: one claimant wins, the other loses its CAS (or finds the node owned).
  uint64_t claimed = 0, conflicts = 0;
  for (const auto& [actor, ops] : report.outcomes) {
    if (const auto it = ops.find("reserve"); it != ops.end()) {
      if (const auto c = it->second.find("claimed"); c != it->second.end()) claimed += c->second;
      if (const auto c = it->second.find("conflict"); c != it->second.end()) conflicts += c->second;
    }
  }
  CHECK(claimed > kMeasured / 2);
  CHECK(conflicts > kMeasured / 4);
  CHECK(used.allocations == 0);
  CHECK(used.frees == 0);
}

// `run` (random strategy, every invariant on): once warm, an execution allocates nothing (docs/DESIGN.md §5), on
// a two-claimant scenario whose reserves lose their compare-and-swap (ReserveLoss keeps a lost CAS as raw values)
// and on last-out, whose reserves publish map entries, point the policy and write audit entries, and whose
// releases copy their claim and the shared map (backend/model/spares.h keeps removed values for their buffers, and the
// texts a list drops).
// Counted by the bench's counting operator new (tools/bench/alloc_counter.h, linked into this binary only), from
// the execution hook: the same point of every execution. Last, DPOR over a crash scenario (its own bound).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "backend/scenario/scenario.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/coverage.h"
#include "tools/bench/alloc_counter.h"

using namespace allocsim;
using allocsim::bench::alloc_counts;

namespace {

constexpr uint64_t kWarmup = 2000, kMeasured = 2000;

struct Measured {
  campaign::RunReport report;
  bench::AllocCounts used;      // over the measured executions, less the mirror's own (below)
  bench::AllocCounts coverage;  // the mirror's, over the same executions
};

/// `run` over scenarios/NAME for kWarmup + kMeasured executions, allocations counted over the last kMeasured.
/// The run's pair coverage (sim/coverage.h) stores each pair of scheduling points it has never seen before, so
/// an execution that meets a new pair allocates for it, however warm: this counts those by observing every
/// execution in a PairCoverage of its own, the mirror, which meets the same new pairs and allocates as the run's
/// does. Its allocations are taken out of `used` and reported as `coverage`.
Measured run_counted(const std::string& name, const std::string& strategy = "random") {
  const harness::Scenario sc = harness::load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/" + name);
  campaign::ExploreConfig cfg;
  cfg.strategy = strategy;
  cfg.executions = kWarmup + kMeasured;
  bench::AllocCounts start;
  Measured m;
  sim::PairCoverage mirror;
  campaign::RunHooks hooks;
  hooks.on_execution = [&](uint64_t index, const sim::World&, const sim::ExecutionResult& res) {
    const bench::AllocCounts before = alloc_counts();
    mirror.observe(res);
    if (index >= kWarmup) m.coverage = m.coverage + (alloc_counts() - before);
    if (index + 1 == kWarmup) start = alloc_counts();
    if (index + 1 == cfg.executions) m.used = alloc_counts() - start - m.coverage;
  };
  m.report = campaign::run(*harness::subject_of(sc), cfg, hooks);
  return m;
}

/// Executions in which `op` ended in `outcome`, summed over the actors.
uint64_t ended(const campaign::RunReport& r, const std::string& op, const std::string& outcome) {
  uint64_t n = 0;
  for (const auto& [actor, ops] : r.outcomes)
    if (const auto it = ops.find(op); it != ops.end())
      if (const auto c = it->second.find(outcome); c != it->second.end()) n += c->second;
  return n;
}

}  // namespace

TEST_CASE("run: ALLOC-004's executions allocate nothing once warm, lost compare-and-swaps included") {
  const Measured m = run_counted("alloc-004-one-plan-two-claimants.json");
  REQUIRE(m.report.summary.executions == kWarmup + kMeasured);
  // Both ways a reserve ends ran: one claimant wins, the other loses its CAS (or finds the node owned).
  CHECK(ended(m.report, "reserve", "claimed") > kMeasured / 2);
  CHECK(ended(m.report, "reserve", "conflict") > kMeasured / 4);
  // Nothing but the run's pair coverage, which allocates exactly as the mirror does.
  CHECK(m.used.allocations == m.coverage.allocations);
  CHECK(m.used.frees == m.coverage.frees);
}

TEST_CASE("run: ALLOC-005's executions allocate nothing once warm: entries, audit, releases") {
  const Measured m = run_counted("alloc-005-last-out.json");
  REQUIRE(m.report.summary.executions == kWarmup + kMeasured);
  // Two claims with geometry made and released in most executions (entries published and stripped, the policy
  // pointed and restored, audit entries written).
  CHECK(ended(m.report, "reserve", "claimed") > kMeasured);
  CHECK(ended(m.report, "release", "released") > kMeasured);
  // 0.17 per execution before session 17: lists of texts that shrank and grew again between executions (a plan's
  // notes, release's answer and its copy of the shared map) freed and reallocated their texts; they now go
  // through spares (backend/model/spares.h, resize_keeping and assign_keeping). 27.7 before the spare lists. What
  // is left is the run's pair coverage, which allocates exactly as the mirror does.
  UNSCOPED_INFO("pair coverage allocations over " << kMeasured << " executions: " << m.coverage.allocations);
  CHECK(m.used.allocations == m.coverage.allocations);
  CHECK(m.used.frees == m.coverage.frees);
}

TEST_CASE("run: DPOR's warm executions of a crash scenario allocate only for new source-set and sleep entries") {
  // Branch-stack nodes, choices and replayed steps reuse storage (sim/strategies/dpor.h); a new node's
  // explored entries still copy their step's footprint and draws. 135 allocations per execution before.
  const Measured m = run_counted("alloc-033-crash-at-delete-after.json", "dpor");
  REQUIRE(m.report.summary.executions == kWarmup + kMeasured);
  CHECK(m.report.summary.violating_executions == 0);
  UNSCOPED_INFO("allocations over " << kMeasured << " executions: " << m.used.allocations);
  CHECK(m.used.allocations < kMeasured * 20);
  CHECK(m.used.frees < kMeasured * 20);
  CHECK(m.used.allocations > 0);
}

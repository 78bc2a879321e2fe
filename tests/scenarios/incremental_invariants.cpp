// Incremental invariants (backend/world/dirty.h, docs/DESIGN.md §5, "Incremental checking") against the full check:
// every scenario file, run both ways under random and under DPOR (each capped), gives the same executions: the same
// fingerprint (which covers every step and the violation's invariant and message), the same violation state block, the
// same violating step and actor, and the same report.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "backend/system/system.h"
#include "backend/world/dirty.h"
#include "sim/campaign/run.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;

namespace {

using allocsim::testing::scenario_files;

/// One execution as the comparison sees it.
struct Seen {
  uint64_t index = 0, seed = 0, fingerprint = 0;
  size_t steps = 0;
  std::optional<std::string> invariant, message, state;
  std::optional<allocsim::sim::ActorId> actor;
  bool operator==(const Seen&) const = default;
};

struct Run {
  std::vector<Seen> executions;
  std::map<std::string, uint64_t> by_invariant;
  bool met = false;
  std::vector<std::string> unmet;
};

/// Restores the process-wide mode when a test ends, however it ends.
struct ModeGuard {
  ~ModeGuard() { set_check_mode(CheckMode::Incremental); }
};

Run run_in(CheckMode mode, const Scenario& sc, const allocsim::campaign::ExploreConfig& cfg) {
  set_check_mode(mode);
  Run out;
  allocsim::campaign::RunHooks hooks;
  hooks.on_fingerprint = [&](uint64_t index, uint64_t seed, uint64_t fp) {
    out.executions.push_back({index, seed, fp, 0, {}, {}, {}, {}});
  };
  hooks.on_execution = [&](uint64_t index, const allocsim::sim::World&, const allocsim::sim::ExecutionResult& r) {
    Seen* s = nullptr;
    for (auto& e : out.executions)
      if (e.index == index) s = &e;
    if (s == nullptr) {
      out.executions.push_back({});
      s = &out.executions.back();
      s->index = index;
    }
    s->steps = r.steps.size();
    s->actor = r.violation_actor;
    if (r.violation)
      s->invariant = r.violation->invariant, s->message = r.violation->message, s->state = r.violation->state;
  };
  const allocsim::campaign::RunReport r = allocsim::campaign::run(*subject_of(sc), cfg, hooks);
  out.by_invariant = r.summary.violations_by_invariant;
  out.met = r.met;
  out.unmet = r.unmet;
  return out;
}

void compare_both_ways(const std::string& strategy, uint64_t executions) {
  const ModeGuard guard;
  uint64_t violating = 0, compared = 0;
  for (const std::string& file : scenario_files()) {
    INFO(file << " under " << strategy);
    const Scenario sc = load_scenario(file);
    allocsim::campaign::ExploreConfig cfg;
    cfg.strategy = strategy;
    cfg.executions = executions;
    cfg.seed = 7;
    const Run full = run_in(CheckMode::Full, sc, cfg);
    const Run incremental = run_in(CheckMode::Incremental, sc, cfg);
    REQUIRE(full.executions.size() == incremental.executions.size());
    for (size_t i = 0; i < full.executions.size(); ++i) {
      INFO("execution " << full.executions[i].index);
      const Seen& a = full.executions[i];
      const Seen& b = incremental.executions[i];
      CHECK(a.fingerprint == b.fingerprint);
      CHECK(a.steps == b.steps);
      CHECK(a.invariant == b.invariant);
      CHECK(a.message == b.message);
      CHECK(a.state == b.state);
      CHECK(a.actor == b.actor);
      violating += a.invariant.has_value();
    }
    CHECK(full.by_invariant == incremental.by_invariant);
    CHECK(full.met == incremental.met);
    CHECK(full.unmet == incremental.unmet);
    compared += full.executions.size();
  }
  // The comparison must have judged violations, not only clean runs (mutant scenarios find theirs).
  CHECK(violating > 100);
  CHECK(compared > 1000);
}

}  // namespace

TEST_CASE("incremental invariants give the full check's violations: every scenario file, random", "[scenarios]") {
  compare_both_ways("random", 300);
}

TEST_CASE("incremental invariants give the full check's violations: every scenario file, DPOR", "[scenarios]") {
  compare_both_ways("dfs", 300);
}

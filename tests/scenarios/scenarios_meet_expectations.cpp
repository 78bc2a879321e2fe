// Every file in scenarios/ meets its expectation (docs/DESIGN.md §4): expected violations found (and only
// those), actor outcomes within expect.actors, and every expect.reach barrier fired.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;

namespace {}  // namespace

TEST_CASE("every scenario file meets its expectation under 2,000 random executions", "[scenarios]") {
  const auto files = allocsim::testing::scenario_files();
  REQUIRE(files.size() >= 6);
  for (const std::string& file : files) {
    INFO(file);
    Scenario sc = load_scenario(file);
    allocsim::campaign::ExploreConfig cfg;
    cfg.executions = 2000;
    cfg.seed = 0;
    allocsim::campaign::RunReport r = allocsim::campaign::run(*subject_of(sc), cfg);
    std::string why;
    for (const auto& u : r.unmet) why += u + "\n";
    INFO(why);
    CHECK(r.met);
    // A scenario whose `order` leaves one schedule stops after it (sim/explorer.h, single_schedule).
    CHECK(r.summary.executions == (r.summary.single_schedule ? 1 : 2000));
  }
}

// Base scenarios run upstream unmutated; they may still expect a violation when they pin a finding about
// upstream (scenarios/FINDINGS.md).
TEST_CASE("every mutant scenario expects a violation and every base scenario runs upstream unmutated", "[scenarios]") {
  for (const std::string& file : allocsim::testing::scenario_files()) {
    INFO(file);
    Scenario sc = load_scenario(file);
    const bool is_mutant = file.find("/mutants/") != std::string::npos;
    // Except a pinned race (a scenario with an `order`, README "Pinning an interleaving"): it may run a mutant
    // as a one-execution regression test of that mutant's race, outside mutants/ (one file per mutant there).
    if (!is_mutant && !sc.order.empty()) continue;
    CHECK(is_mutant == !sc.mutants.empty());
    if (is_mutant) {
      CHECK_FALSE(sc.expect.pass);
      CHECK_FALSE(sc.expect.reach.empty());  // the race window must be shown reached
    }
  }
}

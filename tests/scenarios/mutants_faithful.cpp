// A mutant scenario tests the mutant, not the scenario: with its mutants switched off, every file under
// scenarios/mutants/ must pass (the faithful port has no defect there, so the violation it expects is the
// mutant's doing). And where a file lists more than one acceptable violation, the invariant it was written
// for must really be among those found, not just any of the list.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;
using allocsim::testing::mutant_files;

TEST_CASE("every mutant scenario passes under the faithful port (its mutants switched off)", "[scenarios][mutants]") {
  const auto files = mutant_files();
  REQUIRE(files.size() >= 15);
  for (const std::string& file : files) {
    INFO(file);
    Scenario sc = load_scenario(file);
    REQUIRE_FALSE(sc.mutants.empty());
    sc.mutants.clear();
    allocsim::campaign::ExploreConfig cfg;
    cfg.executions = 1000;
    const allocsim::campaign::RunReport r = allocsim::campaign::run(*subject_of(sc), cfg);
    std::string found;
    for (const auto& [inv, n] : r.summary.violations_by_invariant) found += " " + inv;
    INFO("violated without the mutant:" << found);
    CHECK(r.summary.violating_executions == 0);
  }
}

TEST_CASE("release-clears-any-owner is caught by rollback-keeps-newer-owner itself", "[scenarios][mutants]") {
  // The file also accepts single-ownership (the same lost stamp, seen once flowB's claim is live); the
  // coverage of rollback-keeps-newer-owner (invariant_coverage.cpp) rests on this check.
  const Scenario sc =
      load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/mutants/release-clears-any-owner.json");
  allocsim::campaign::ExploreConfig cfg;
  cfg.executions = 2000;
  const allocsim::campaign::RunReport r = allocsim::campaign::run(*subject_of(sc), cfg);
  CHECK(r.met);
  CHECK(r.summary.violations_by_invariant.count("rollback-keeps-newer-owner") == 1);
}

// Every invariant can fire: for each name in `allocsim list invariants`, at least one scenario file under
// scenarios/ (a finding or a mutant scenario) expects its violation. scenarios_meet_expectations.cpp
// checks that each expected violation is really found, so "expected" here means "fires".
//
// kNotYetCovered lists the invariants no scenario reaches yet, each with the reason. It can only shrink:
// an invariant listed here that some scenario now expects fails this test until it is removed from the
// list, and a new invariant is never silently uncovered (the first test fails for it).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backend/harness/catalog.h"
#include "backend/harness/scenario.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;

namespace {

struct Uncovered {
  const char* invariant;
  const char* why;
};

// Empty since issue #3: the five engine- and cleanup-level invariants fire in scenarios/mutants/ (FINDINGS.md,
// "Coverage"). Keep the list: a future invariant that no scenario can reach yet goes here, with its reason.
const std::vector<Uncovered> kNotYetCovered = {};

std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios")) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    if (e.path().parent_path().filename() == "schema") continue;
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// invariant -> scenario files that expect its violation
std::map<std::string, std::vector<std::string>> expected_violations() {
  std::map<std::string, std::vector<std::string>> by;
  for (const std::string& file : scenario_files()) {
    const Scenario sc = load_scenario(file);
    if (sc.expect.pass) continue;
    for (const std::string& v : sc.expect.violations)
      by[v].push_back(fs::relative(file, ALLOCSIM_SOURCE_DIR).string());
  }
  return by;
}

bool listed_uncovered(std::string_view name) {
  return std::any_of(kNotYetCovered.begin(), kNotYetCovered.end(),
                     [&](const Uncovered& u) { return name == u.invariant; });
}

}  // namespace

TEST_CASE("every invariant is expected to fire by some scenario file, or is listed as not yet covered",
          "[scenarios][coverage]") {
  const auto by = expected_violations();
  for (const auto& inv : invariant_catalog()) {
    if (listed_uncovered(inv.name)) continue;
    INFO("invariant " << inv.name << ": no scenario under scenarios/ expects it (expect.violation); add a finding "
                                     "or mutant scenario that makes it fire");
    CHECK(by.count(inv.name) == 1);
  }
}

TEST_CASE("the not-yet-covered list only shrinks: no listed invariant is already covered", "[scenarios][coverage]") {
  const auto by = expected_violations();
  for (const Uncovered& u : kNotYetCovered) {
    INFO("invariant " << u.invariant << " is listed as not yet covered (" << u.why << ")");
    CHECK(is_invariant(u.invariant));  // a stale name in the list is an error too
    auto it = by.find(u.invariant);
    if (it != by.end()) {
      std::string files;
      for (const auto& f : it->second) files += " " + f;
      INFO("but" << files << " expect(s) it: remove it from kNotYetCovered in tests/scenarios/invariant_coverage.cpp");
      CHECK(it == by.end());
    }
  }
}

TEST_CASE("every expected violation names a catalog invariant", "[scenarios][coverage]") {
  for (const auto& [inv, files] : expected_violations()) {
    INFO(inv << " expected by " << files.front());
    CHECK(is_invariant(inv));
  }
}

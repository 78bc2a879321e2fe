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

#include "backend/invariants/invariant_table.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;

namespace {

struct Uncovered {
  const char* invariant;
  const char* why;
};

// Empty until the client-side invariants came (docs/DESIGN.md §5): the five engine- and cleanup-level invariants
// fire in scenarios/mutants/ (FINDINGS.md, "Coverage"). Keep the list: a future invariant that no scenario can reach
// yet goes here, with its reason.
const std::vector<Uncovered> kNotYetCovered = {
    {"observation-matches-claim",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of observe_claim"},
    {"bindings-match-grant", "no catalogue mutant yet; fires under the nightly mechanical mutants of bindings"},
    {"audit-explains-state",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of release and reserve"},
    {"capabilities-match-authority",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of capabilities"},
    {"observation-envelope-complete",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of known_now and unknown_now"},
    {"infeasible-plan-names-exclusions",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of plan's exclusions"},
    {"entry-lists-its-nodes",
     "no catalogue mutant yet; fires under the nightly mechanical mutant of reserve's entry members"},
    {"write-advances-version",
     "no catalogue mutant yet; fires under the nightly mechanical mutants of release's restore and owner clearing "
     "(a resourceVersion bump deleted)"},
};

// invariant -> scenario files that expect its violation
std::map<std::string, std::vector<std::string>> expected_violations() {
  std::map<std::string, std::vector<std::string>> by;
  for (const std::string& file : allocsim::testing::scenario_files()) {
    const Scenario sc = load_scenario(file);
    if (sc.expect.pass) continue;
    for (const std::string& v : sc.expect.violations) by[v].push_back(fs::relative(file, ALLOCSIM_SOURCE_DIR).string());
  }
  return by;
}

using Coverage = std::map<std::string, std::vector<std::string>>;  // invariant -> files expecting it

bool listed(const std::vector<Uncovered>& list, std::string_view name) {
  return std::any_of(list.begin(), list.end(), [&](const Uncovered& u) { return name == u.invariant; });
}

// The two rules as functions of their inputs, so that each can be seen to fire on inputs built to break it
// (the real list is empty, and a loop over it alone would check nothing).
// Rule 1: invariants of the table that no scenario expects and the list does not excuse.
std::vector<std::string> uncovered(const std::vector<std::string>& table, const Coverage& by,
                                   const std::vector<Uncovered>& list) {
  std::vector<std::string> out;
  for (const auto& name : table)
    if (!listed(list, name) && by.count(name) == 0) out.push_back(name);
  return out;
}

std::vector<std::string> table_names() {
  std::vector<std::string> out;
  for (const auto& inv : invariant_table()) out.emplace_back(inv.name);
  return out;
}

// Rule 2: list entries that are stale, because some scenario now expects them or they name no invariant.
std::vector<std::string> stale_entries(const std::vector<Uncovered>& list, const Coverage& by) {
  std::vector<std::string> out;
  for (const Uncovered& u : list)
    if (by.count(u.invariant) != 0 || !is_invariant(u.invariant)) out.push_back(u.invariant);
  return out;
}

}  // namespace

TEST_CASE("every invariant is expected to fire by some scenario file, or is listed as not yet covered",
          "[scenarios][coverage]") {
  const Coverage by = expected_violations();
  REQUIRE(by.size() >= 10);  // the scan found the scenario files (a wrong path would excuse everything)
  const std::vector<std::string> missing = uncovered(table_names(), by, kNotYetCovered);
  std::string names;
  for (const auto& m : missing) names += " " + m;
  INFO(
      "no scenario under scenarios/ expects these (expect.violation); add a finding or mutant scenario that "
      "makes each fire:"
      << names);
  CHECK(missing.empty());
}

TEST_CASE("the not-yet-covered list only shrinks: no listed invariant is already covered", "[scenarios][coverage]") {
  const Coverage by = expected_violations();
  const std::vector<std::string> stale = stale_entries(kNotYetCovered, by);
  std::string names;
  for (const auto& n : stale) names += " " + n;
  INFO("remove from kNotYetCovered in tests/scenarios/invariant_coverage.cpp (now covered, or not an invariant):"
       << names);
  CHECK(stale.empty());
}

TEST_CASE("the coverage rules fire on inputs built to break them", "[scenarios][coverage]") {
  const std::vector<std::string> table = {"inv-a", "inv-b", "inv-c"};
  const Coverage by = {{"inv-a", {"scenarios/a.json"}}};
  // Rule 1: an invariant nobody expects is reported unless the list excuses it.
  CHECK(uncovered(table, by, {}) == std::vector<std::string>{"inv-b", "inv-c"});
  CHECK(uncovered(table, by, {{"inv-b", "why"}}) == std::vector<std::string>{"inv-c"});
  CHECK(uncovered(table, {{"inv-a", {}}, {"inv-b", {}}, {"inv-c", {}}}, {}).empty());
  // Rule 2: an excused invariant that a scenario now expects, or a name that is no invariant, is stale.
  const Coverage real = expected_violations();
  REQUIRE(real.count("single-ownership") == 1);
  CHECK(stale_entries({{"single-ownership", "why"}}, real) == std::vector<std::string>{"single-ownership"});
  CHECK(stale_entries({{"no-such-invariant", "why"}}, real) == std::vector<std::string>{"no-such-invariant"});
  CHECK(stale_entries({}, real).empty());
}

TEST_CASE("every expected violation names an invariant of the table", "[scenarios][coverage]") {
  for (const auto& [inv, files] : expected_violations()) {
    INFO(inv << " expected by " << files.front());
    CHECK(is_invariant(inv));
  }
}

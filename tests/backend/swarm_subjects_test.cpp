// The backend's swarm generator (backend/swarm/swarm_subjects.h) against the contract of campaign::SwarmGenerator
// (sim/campaign/swarm.h), which the generic swarm relies on: a draw's text hash is hash_of's, a faithful draw differs
// from the mutant one by its mutants only, the report's digest and feature counts are those of the draws it
// counted, and a finding's file loads back under its slug (also without its mutants).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/swarm/swarm_subjects.h"
#include "sim/campaign/swarm.h"
#include "sim/campaign/swarm_report.h"

using allocsim::campaign::SwarmGenerator;
using allocsim::campaign::SwarmOptions;
using allocsim::campaign::SwarmReport;
using allocsim::harness::backend_swarm;

namespace {

SwarmOptions small_run(unsigned jobs) {
  SwarmOptions o;
  o.seed = 7;
  o.scenarios = 6;
  o.per_scenario = 12;
  o.shrink_runs = 200;
  o.mutants = {"client-side-claim"};
  o.jobs = jobs;
  o.tool_version = "test";
  return o;
}

}  // namespace

TEST_CASE("swarm generator: a draw's hash is hash_of's, and the faithful draw differs by its mutants only", "[swarm]") {
  const SwarmGenerator& g = backend_swarm();
  const SwarmOptions o = small_run(1);
  for (uint64_t i = 0; i < o.scenarios; ++i) {
    const SwarmGenerator::Drawn d = g.draw(o, i, false), faithful = g.draw(o, i, true);
    CHECK(d.text_hash == g.hash_of(o, i));
    CHECK(faithful.text_hash != d.text_hash);  // the document names its mutants
    CHECK(faithful.features == d.features);
    CHECK(faithful.subject->name() == d.subject->name());
    CHECK(faithful.subject->op_count() == d.subject->op_count());
    // Two draws of one index are the same subject: the generator keeps no state between calls.
    CHECK(g.draw(o, i, false).subject->digest() == d.subject->digest());
    for (const std::string& word : d.features)
      CHECK(std::find(g.feature_universe().begin(), g.feature_universe().end(), word) != g.feature_universe().end());
  }
}

TEST_CASE("swarm generator: the report counts its draws' digest and features, whatever --jobs", "[swarm]") {
  const SwarmGenerator& g = backend_swarm();
  const SwarmOptions o = small_run(1);
  const SwarmReport r = allocsim::campaign::run_swarm(g, o);
  REQUIRE(r.scenarios == o.scenarios);
  CHECK(r.generated == allocsim::campaign::generated_digest(g, o, o.scenarios));
  std::map<std::string, uint64_t> features;
  for (uint64_t i = 0; i < o.scenarios; ++i)
    for (const std::string& word : g.draw(o, i, false).features) ++features[word];
  CHECK(r.features == features);
  const SwarmReport r2 = allocsim::campaign::run_swarm(g, small_run(2));
  CHECK(allocsim::campaign::swarm_summary(g, o, r2).dump() == allocsim::campaign::swarm_summary(g, o, r).dump());
  // Each finding's file loads under its slug, expects its invariant, and its faithful twin has no mutant and expects
  // a pass. Two findings in these six scenarios (`allocsim swarm --seed 7 --scenarios 6 --per-scenario 12
  // --shrink-runs 200 --mutant client-side-claim` prints the same).
  REQUIRE(r.findings.size() == 2);
  for (const auto& f : r.findings) {
    CHECK(g.parse(o, f.scenario_text, f.slug + ".json")->name() == f.slug);
    const nlohmann::json doc = nlohmann::json::parse(f.scenario_text);
    CHECK(doc["expect"]["violation"] == f.invariant);
    CHECK(doc["backend"]["mutants"] == nlohmann::json(o.mutants));
    const nlohmann::json twin = nlohmann::json::parse(g.faithful_text(f.scenario_text));
    CHECK(twin["backend"]["mutants"] == nlohmann::json::array());
    CHECK(twin["expect"] == nlohmann::json{{"outcome", "pass"}});
    CHECK(g.parse(o, g.faithful_text(f.scenario_text), f.slug + ".json")->name() == f.slug);
  }
}

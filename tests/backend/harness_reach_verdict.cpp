// expect.reach verdicts (backend/system/judge.h): a barrier that never fired is blamed on the schedule
// only when some execution ran on without a violation; when every execution stopped at a violation first,
// the verdict says so (docs/DESIGN.md §4, `expect`: `reach`).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "backend/system/judge.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

using namespace allocsim;
using namespace allocsim::harness;

namespace {

Scenario load(const std::string& file) { return load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/" + file); }

/// The unmet lines about expect.reach, in order.
std::vector<std::string> reach_lines(const campaign::RunReport& r) {
  std::vector<std::string> out;
  for (const auto& u : r.unmet)
    if (u.rfind("barrier ", 0) == 0) out.push_back(u);
  return out;
}

}  // namespace

TEST_CASE("reach: every execution stopped at a violation before the barrier", "[runner][reach]") {
  // alloc-021 under stale-success-readiness: reserve's own schedule step already reads as prepared, so every
  // execution ends there and mark_ready (claim.ready.after) never runs.
  const Scenario sc = load("scenarios/alloc-021-readiness-stages.json");
  campaign::ExploreConfig cfg;
  cfg.executions = 200;
  cfg.mutants = {"stale-success-readiness"};
  const campaign::RunReport r = campaign::run(*subject_of(sc), cfg);
  REQUIRE(r.summary.executions == 200);
  REQUIRE(r.summary.violating_executions == 200);
  CHECK_FALSE(r.met);
  CHECK(reach_lines(r) == std::vector<std::string>{
                              "barrier claim.ready.after never fired (expect.reach): every one of the 200 executions "
                              "stopped at a violation before it could fire (reach is judged only on executions that "
                              "get that far)"});
}

TEST_CASE("reach: some executions ran on without a violation and still missed the barrier", "[runner][reach]") {
  // client-side-claim violates in some executions only; no execution of it releases, so delete.before
  // never fires although most executions ran to their end.
  Scenario sc = load("scenarios/mutants/client-side-claim.json");
  sc.expect.reach.push_back("delete.before");
  campaign::ExploreConfig cfg;
  cfg.executions = 200;
  const campaign::RunReport r = campaign::run(*subject_of(sc), cfg);
  REQUIRE(r.summary.executions == 200);
  REQUIRE(r.summary.violating_executions > 0);
  REQUIRE(r.summary.violating_executions < 200);
  CHECK_FALSE(r.met);
  CHECK(r.unmet == std::vector<std::string>{
                       "barrier delete.before never fired in 200 executions (expect.reach): the race window was not "
                       "reached"});
}

TEST_CASE("reach: a run of no executions keeps the old wording", "[runner][reach]") {
  // Zero executions is not "every execution stopped at a violation": nothing ran at all.
  const Scenario sc = load("scenarios/alloc-021-readiness-stages.json");
  campaign::RunReport r;
  judge_report(sc, r);
  CHECK(reach_lines(r) ==
        std::vector<std::string>{
            "barrier claim.create.after never fired in 0 executions (expect.reach): the race window was not reached",
            "barrier claim.schedule.after never fired in 0 executions (expect.reach): the race window was not reached",
            "barrier claim.ready.after never fired in 0 executions (expect.reach): the race window was not reached"});
}

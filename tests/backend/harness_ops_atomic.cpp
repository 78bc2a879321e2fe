// ops-atomic (backend/invariants/atomicity.h; docs/DESIGN.md §5, "Op atomicity"): what an execution's result is
// (ids renumbered, versions and orders left out), the op-level executions a scenario has (whole calls, the stand-in for
// a writer inside a reserve, the bound), and the verdict against them.
#include <catch2/catch.hpp>

#include "backend/invariants/atomicity.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/system/op_level.h"
#include "backend/system/system.h"
#include "backend/world/op_results.h"
#include "sim/campaign/run.h"
#include "tests/backend/invariant_test_support.h"
#include "tests/scenarios/scenario_files.h"

namespace ops_atomic_test {

// Inside the namespace: a unity batch compiles the next test file after this one.
using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;
using allocsim::testing::source_path;

TEST_CASE("ids are renumbered by rank per kind and actor", "[ops-atomic]") {
  const std::vector<std::string> actors = {"flowA", "flowA-2", "b"};
  CHECK(renumber_ids("gen-flowA-7 claim-flowA-5 gen-flowA-3", actors) == "gen-flowA-#2 claim-flowA-#1 gen-flowA-#1");
  // An entry name ends in its generation id; the longest actor name that fits wins.
  CHECK(renumber_ids("videoflow-flowA-gen-flowA-9,gen-flowA-2-3 gen-flowA-4", actors) ==
        "videoflow-flowA-gen-flowA-#2,gen-flowA-2-#1 gen-flowA-#1");
  // Not ids: no actor, no kind, no number.
  CHECK(renumber_ids("gen-flowB-3 -flowA-3 gen-flowA- n1", actors) == "gen-flowB-3 -flowA-3 gen-flowA- n1");
  CHECK(renumber_ids("claim-b-10 claim-b-4", actors) == "claim-b-#2 claim-b-#1");
}

struct Fixture {
  Scenario sc = parse_scenario(kTwoNodes, "hand-built.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  std::string result() {
    std::string out;
    render_result(world, out);
    return out;
  }
  void claim(const std::string& id, const std::string& owner, const std::string& node) {
    backend::Claim c;
    c.claim_id = id;
    c.owner = owner;
    c.generation = "gen-" + owner + "-" + id.substr(id.rfind('-') + 1);
    c.nodes = {node};
    c.status = backend::kClaimAllocated;
    s().claims.push_back(std::move(c));
    s().node(node)->owner = owner;
    s().node(node)->owner_epoch = s().claims.back().generation;
  }
};

TEST_CASE("a result leaves out versions, claim order and id numbers, and keeps what can be observed", "[ops-atomic]") {
  Fixture a, b;
  a.claim("claim-flowA-2", "flowA", "n1");
  a.claim("claim-flowB-2", "flowB", "n2");
  // b: the same claims made in the other order, with other numbers, after writes that moved the versions.
  b.claim("claim-flowB-7", "flowB", "n2");
  b.claim("claim-flowA-5", "flowA", "n1");
  b.s().node("n1")->resource_version = 9;
  b.s().shared_config_version = 4;
  CHECK(a.result() == b.result());
  CHECK_THAT(a.result(), Catch::Contains("claim claim-flowA-#1 owner=flowA generation=gen-flowA-#1 status=allocated"));
  CHECK_THAT(a.result(), Catch::Contains("node n1 owner=flowA epoch=gen-flowA-#1 "));
  b.s().node("n2")->mig_state = "pending";
  CHECK(a.result() != b.result());
  b.s().node("n2")->mig_state = "success";
  REQUIRE(a.result() == b.result());
  b.world.mutable_actors()[0].outcomes = {"claimed"};
  CHECK(a.result() != b.result());
}

TEST_CASE("the diff of two results shows each differing line and counts them all", "[ops-atomic]") {
  const ResultDiff d = diff_results("a\nb\nc\nd\n", "a\nB\nc\nD\n", 1);
  CHECK(d.differing == 2);
  CHECK(d.text == "- b\n+ B\n");
}

Scenario file(const std::string& rel) { return load_scenario(source_path(rel)); }

TEST_CASE("op-level executions run whole calls, and a reserve can still lose its compare-and-swap", "[ops-atomic]") {
  // Two flows reserve one card each on one two-card node. With whole calls each reserve sees the other's stamp
  // only as its generation check or its plan does; the stand-in writer makes a reserve lose its CAS and roll back.
  const auto r = op_level_results(file("scenarios/alloc-004-simultaneous-claim.json"), {}, kDefaultOpLevelBound);
  REQUIRE(r->judged);
  CHECK(r->note.empty());
  CHECK(r->executions == 18);
  REQUIRE(r->results.size() == 5);
  std::vector<std::string> outcomes;
  for (const auto& res : r->results) outcomes.push_back(res.text.substr(0, res.text.find("node ")));
  std::sort(outcomes.begin(), outcomes.end());
  // Both conflict: the stand-in is drawn whether or not the scenario has a third writer that could be there, so the
  // op-level results are a looser bound than the barrier-level ones (never a false alarm).
  CHECK(outcomes == std::vector<std::string>{"actor flowA: claimed\nactor flowB: conflict\n",
                                             "actor flowA: claimed\nactor flowB: infeasible\n",
                                             "actor flowA: conflict\nactor flowB: claimed\n",
                                             "actor flowA: conflict\nactor flowB: conflict\n",
                                             "actor flowA: infeasible\nactor flowB: claimed\n"});
  // Each witness is the op-level schedule, call by call: both flows take an inventory and plan (a reserve follows
  // a feasible plan only).
  for (const auto& res : r->results)
    CHECK_THAT(res.witness, Catch::Contains("flowA:inventory") && Catch::Contains("flowA:plan") &&
                                Catch::Contains("flowB:inventory") && Catch::Contains("flowB:plan"));
}

TEST_CASE("past its bound, or with an op that never returns, ops-atomic judges nothing and says why", "[ops-atomic]") {
  const auto small = op_level_results(file("scenarios/alloc-004-simultaneous-claim.json"), {}, 3);
  CHECK_FALSE(small->judged);
  CHECK(small->results.empty());
  CHECK(small->note ==
        "ops-atomic not judged: the scenario has more than 3 op-level executions (its bound); fewer actors or ops "
        "bring it under; `\"invariants\": {\"all_except\": [\"ops-atomic\"]}` leaves the check out");
  const auto spins = op_level_results(file("scenarios/mutants/release-spins-on-busy-nodes.json"), {}, 1000);
  CHECK_FALSE(spins->judged);
  CHECK_THAT(spins->note,
             Catch::StartsWith("ops-atomic not judged: an op-level execution (each op's calls as one step) ended in "
                               "actor-exception: "));
  CHECK_THAT(spins->note, Catch::Contains("passed 100000 barriers in one actor"));
  // A run says so in its notes.
  campaign::ExploreConfig cfg;
  cfg.strategy = "random";
  cfg.executions = 5;
  Scenario sc = file("scenarios/alloc-004-simultaneous-claim.json");
  sc.op_level_bound = 3;
  const campaign::RunReport rep = campaign::run(*subject_of(sc), cfg);
  CHECK(rep.notes == std::vector<std::string>{small->note});
  CHECK(rep.summary.violating_executions == 0);
}

TEST_CASE("ops-atomic fires on an aborted read and names the nearest op-level result", "[ops-atomic]") {
  const Scenario sc = file("scenarios/finding-plan-reads-rolled-back-stamp.json");
  campaign::ExploreConfig cfg;
  cfg.strategy = "dpor";
  cfg.executions = 100000;
  const campaign::RunReport rep = campaign::run(*subject_of(sc), cfg);
  REQUIRE(rep.exhausted);
  CHECK(rep.summary.executions == 107);
  CHECK(rep.summary.violations_by_invariant == std::map<std::string, uint64_t>{{"ops-atomic", 14}});
  REQUIRE(rep.summary.first);
  const sim::Violation& v = *rep.summary.first->result.violation;
  CHECK_THAT(v.message, Catch::Contains("it is none of the 5 results of the scenario's 25 op-level executions"));
  CHECK_THAT(v.message, Catch::Contains("comes from the op-level schedule flowA:inventory"));
  CHECK_THAT(v.state,
             Catch::StartsWith(
                 "result: this execution (-) against the nearest op-level result (+); ids renumbered by rank per kind "
                 "and actor (#1: the actor's lowest id of that kind in the result), since id counters differ between "
                 "executions that agree\n"));
  CHECK_THAT(v.state, Catch::Contains("- node n1 owner=- epoch=-"));
  CHECK_THAT(v.state, Catch::Contains("- node n2 owner=flowB epoch=gen-flowB-#1"));
  // The op-level set the message counts.
  const auto r = op_level_results(sc, {}, kDefaultOpLevelBound);
  CHECK(r->judged);
  CHECK(r->executions == 25);
  CHECK(r->results.size() == 5);
}

}  // namespace ops_atomic_test

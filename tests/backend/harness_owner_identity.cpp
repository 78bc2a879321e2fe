// Owner identity (docs/DESIGN.md §4 "Owner identity"): the `owner` actor key, replicas' operation ids, stamps and
// plans under one identity, a recover that reads back by identity, and the invariants that judge an identity.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/scenario/scenario_json.h"
#include "backend/world/actor_symmetry.h"
#include "in_order_run.h"

namespace owner_identity_test {

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;

/// A reserve of one whole card.
const char* const kReserve = R"({ "op": "reserve", "requests": [ { "workload": "W", "devices": 1 } ] })";

std::string reserve(const std::string& workload) {
  std::string s = kReserve;
  s.replace(s.find('W'), 1, workload);
  return s;
}

/// Two replicas of identity ctl, each reserving one card, then `leader_tail` / `standby_tail`; `more` actors after
/// them, `extra` top-level keys.
std::string replicas(const std::string& leader_tail = "", const std::string& standby_tail = "",
                     const std::string& more = "", const std::string& extra = "") {
  return two_nodes(R"({ "name": "leader", "owner": "ctl", "script": [ )" + reserve("wa") + leader_tail + R"( ] },
      { "name": "standby", "owner": "ctl", "script": [ )" +
                       reserve("wb") + standby_tail + " ] }" + more,
                   extra);
}

TEST_CASE("owner identity: the loader reads it, leaves the actor's own name unset, and writes it back", "[owner]") {
  const Scenario sc = parse_scenario(two_nodes(R"(
      { "name": "a", "owner": "ctl", "script": [] },
      { "name": "b", "owner": "b", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w",
                                                   "behind": true } ] })"),
                                     "owner.json");
  REQUIRE(sc.actors.size() == 3);
  CHECK(sc.actors[0].owner == std::optional<std::string>("ctl"));
  CHECK(sc.actors[0].identity() == "ctl");
  CHECK_FALSE(sc.actors[1].owner.has_value());  // its own name: the default
  CHECK(sc.actors[1].identity() == "b");
  CHECK(sc.actors[2].identity() == "b.behind0");  // a background actor acts as itself
  const nlohmann::ordered_json j = scenario_to_json(sc);
  CHECK(j["actors"][0]["owner"] == "ctl");
  CHECK_FALSE(j["actors"][1].contains("owner"));
  CHECK(j["actors"].size() == 2);
  CHECK(parse_scenario(j.dump(), "again.json").actors[0].identity() == "ctl");
}

TEST_CASE("owner identity: replicas stamp and claim as one owner, and the second is granted the first's card",
          "[owner]") {
  // In order: leader reserves GPU-n1-0 and stamps n1 as ctl; standby's plan counts n1 as its identity's and takes
  // GPU-n1-0 again, and its compare-and-swap passes (the stamp is ctl's already). scenarios/FINDINGS.md F2.
  const ShapedRun found(replicas());
  REQUIRE(found.result.violation.has_value());
  CHECK(found.result.violation->invariant == "no-double-grant");
  // The same run with no-double-grant left out, to its end.
  const ShapedRun r(replicas("", "", "", R"(, "invariants": { "all_except": [ "no-double-grant" ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"claimed"});
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
  const auto& s = r.world->backend().state();
  REQUIRE(s.claims.size() == 2);
  CHECK(s.claims[0].owner == "ctl");
  CHECK(s.claims[1].owner == "ctl");
  CHECK(s.claims[0].claim_id == "claim-leader-2");
  CHECK(s.claims[1].claim_id == "claim-standby-2");
  CHECK(backend::find_in(s.claims[0].plan.assignments, std::string("wa"))->front().uuid ==
        std::optional<std::string>("GPU-n1-0"));
  CHECK(backend::find_in(s.claims[1].plan.assignments, std::string("wb"))->front().uuid ==
        std::optional<std::string>("GPU-n1-0"));
  CHECK(s.node("n1")->owner == std::optional<std::string>("ctl"));
  std::vector<std::string> audit;
  for (const auto& m : s.audit) audit.push_back(m.op_id + " " + m.kind + " " + m.target + " " + m.detail);
  // One stamp: the standby's reserve finds its identity's stamp and writes none.
  CHECK(audit == std::vector<std::string>{"ctl:leader.op1 stamp-owner n1 ctl"});
  CHECK_FALSE(r.result.violation.has_value());
}

TEST_CASE("owner identity: under two identities the standby's plan leaves the leader's node out", "[owner]") {
  const ShapedRun r(two_nodes(R"({ "name": "leader", "script": [ )" + reserve("wa") + R"( ] },
                                 { "name": "standby", "script": [ )" +
                              reserve("wb") + " ] }"));
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
  const auto& s = r.world->backend().state();
  REQUIRE(s.claims.size() == 2);
  CHECK(s.claims[1].nodes == std::vector<std::string>{"n2"});
  CHECK(s.claims[1].owner == "standby");
  CHECK(s.audit.front().op_id == "leader:op1");  // an actor's own identity: the operation ids it always had
  CHECK_FALSE(r.result.violation.has_value());
}

/// leader claims both cards of n1 and binds its pod there (2 units), so that standby, a replica, finds n1 full and
/// claims a card of n2; then `standby_tail`; `more` actors after them.
std::string replicas_apart(const std::string& standby_tail, const std::string& more = "") {
  return two_nodes(R"({ "name": "leader", "owner": "ctl", "script": [
          { "op": "reserve", "requests": [ { "workload": "wa", "devices": 2 } ] },
          { "op": "bind_workload", "node": "n1", "workload": "wa", "units": 2 } ] },
      { "name": "standby", "owner": "ctl", "script": [ )" +
                   reserve("wb") + standby_tail + " ] }" + more);
}

TEST_CASE("owner identity: a recover reads back by identity and releases the live replica's claim too", "[owner]") {
  // The restarted controller recovers leader, which has ended: claims_of(ctl) is both claims, the standby's
  // included, which the standby still believes it holds. The leader's pod keeps its own claim (pending_recovery).
  const ShapedRun r(
      replicas_apart("", R"(, { "name": "restarted", "script": [ { "op": "recover", "flow": "leader" } ] })"));
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
  CHECK(r.outcomes(2) == std::vector<std::string>{"pending_recovery"});
  CHECK(r.calls("restarted") == std::vector<std::string>{"recover flow=leader",
                                                         "release recover=leader claim=claim-leader-2",
                                                         "release recover=leader claim=claim-standby-2"});
  const auto& s = r.world->backend().state();
  REQUIRE(s.claims.size() == 1);
  CHECK(s.claims[0].claim_id == "claim-leader-2");
  CHECK_FALSE(s.node("n2")->owner.has_value());
  CHECK(r.world->actors()[1].claims_held == 1);  // the standby was never told
  // recovery-converges does not judge a recovery of a shared identity (the standby may claim again after it).
  CHECK(r.world->actors()[2].told.recovered_flow == std::nullopt);
  CHECK_FALSE(r.result.violation.has_value());
}

TEST_CASE("owner identity: a replica that recovers its identity leaves out the claims it holds itself", "[owner]") {
  // standby holds its claim on n2, then recovers leader (ended): only the leader's claim is tried.
  const ShapedRun r(replicas_apart(R"(, { "op": "recover", "flow": "leader" })"));
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed", "pending_recovery"});
  CHECK(r.calls("standby").back() == "release recover=leader claim=claim-leader-2");
  const auto& s = r.world->backend().state();
  REQUIRE(s.claims.size() == 2);
  CHECK(s.node("n2")->owner == std::optional<std::string>("ctl"));
  CHECK_FALSE(r.result.violation.has_value());
}

TEST_CASE("owner identity: quiescent-clean judges an identity once none of its replicas holds a claim", "[owner]") {
  // In order: leader claims n1 and releases it, then standby claims n1 and holds it: ctl owns n1, the standby's
  // stamp. Judged for the leader alone, "leader released what it claimed, but still owns node n1" would fire.
  const std::string only = R"(, "invariants": [ "quiescent-clean" ])";
  const std::string release = R"(, { "op": "release" })";
  const ShapedRun r(replicas(release, "", "", only));
  CHECK(r.outcomes(0) == std::vector<std::string>{"claimed", "released"});
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
  CHECK(r.world->backend().state().node("n1")->owner == std::optional<std::string>("ctl"));
  CHECK_FALSE(r.result.violation.has_value());
  // Both released: ctl is judged, and nothing of it is left.
  const ShapedRun both(replicas(release, release, "", only));
  CHECK(both.outcomes(1) == std::vector<std::string>{"claimed", "released"});
  CHECK(both.world->backend().state().claims.empty());
  CHECK_FALSE(both.world->backend().state().node("n1")->owner.has_value());
  CHECK_FALSE(both.result.violation.has_value());
}

TEST_CASE("owner identity: symmetry leaves out the replicas and the actor whose name is their identity", "[owner]") {
  const Scenario sc = parse_scenario(two_nodes(R"({ "name": "ctl", "script": [ )" + reserve("wa") + R"( ] },
      { "name": "standby", "owner": "ctl", "script": [ )" +
                                               reserve("wb") + " ] }"),
                                     "sym.json");
  const ActorSymmetry s = find_interchangeable(sc);
  CHECK(s.classes.empty());
  CHECK(s.unpaired == std::vector<std::string>{"ctl: \"ctl\" occurs in standby's owner identity ctl (rule 4)",
                                               "standby: it has an owner identity of its own (rule 4)"});
  // An own name inside an identity rules its actor out too: flowA and flowB alone would be interchangeable.
  const Scenario inside = parse_scenario(two_nodes(R"({ "name": "flowA", "script": [ )" + reserve("wa") + R"( ] },
      { "name": "flowB", "script": [ )" + reserve("wb") +
                                                   R"( ] },
      { "name": "other", "owner": "flowA-replica", "script": [] })"),
                                         "inside.json");
  const ActorSymmetry t = find_interchangeable(inside);
  CHECK(t.classes.empty());
  REQUIRE_FALSE(t.unpaired.empty());
  CHECK(t.unpaired.front() == "flowA: \"flowA\" occurs in other's owner identity flowA-replica (rule 4)");
}

TEST_CASE("owner identity: a recovery's writes are the replica's that made the claim (no false lost update)",
          "[owner]") {
  // flowB, a replica of flowA, carves n1 for its MIG sharer; a sweeper recovers flowA, whose identity owns flowB's
  // claim, and restores n1's config. The restore replaces the version flowB wrote and saw: credited to flowA, which
  // never saw it, no-lost-update would fire.
  const ShapedRun r(R"({ "schema": "allocsim/scenario/v1", "name": "shaped", "backend": { "authority": "managed-mig" },
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80 } ],
    "actors": [ { "name": "flowA", "script": [] },
      { "name": "flowB", "owner": "flowA", "script": [ { "op": "reserve", "requests": [
          { "workload": "wb", "sharing": "isolated_mig", "minimum_usable_memory_gib": 10 } ] } ] },
      { "name": "sweeper", "script": [ { "op": "recover", "flow": "flowA", "wait": false } ] } ],
    "invariants": [ "no-lost-update" ] })");
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
  CHECK(r.outcomes(2) == std::vector<std::string>{"released"});
  std::vector<std::string> kinds;
  for (const auto& m : r.world->backend().state().audit) kinds.push_back(m.op_id + " " + m.kind);
  CHECK(std::find(kinds.begin(), kinds.end(), "sweeper:recover1 restore-geometry") != kinds.end());
  CHECK_FALSE(r.result.violation.has_value());
}

}  // namespace owner_identity_test

// Each clause of each invariant (docs/DESIGN.md §5) fires on a state built by hand to break it, and holds on
// the state just before the break. The world is built from a small scenario; no execution runs.
#include <catch2/catch.hpp>

#include "backend/invariants/check.h"
#include "backend/invariants/client.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/invariant_table.h"
#include "backend/invariants/ownership.h"
#include "backend/invariants/state_view.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/world/dirty.h"
#include "tests/backend/invariant_test_support.h"

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;
using backend::Claim;
using backend::DeviceIdentity;

namespace {

struct Fixture {
  Scenario sc = parse_scenario(kTwoNodes, "hand-built.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  CheckContext ctx(sim::ActorId actor = 0, bool quiescent = false) { return {world, actor, quiescent}; }

  Claim& add_claim(std::string id, std::string owner, std::vector<std::string> nodes, std::string entry = "") {
    Claim c;
    c.claim_id = std::move(id);
    c.owner = std::move(owner);
    c.generation = "gen-" + c.claim_id;
    c.nodes = std::move(nodes);
    c.status = backend::kClaimAllocated;
    c.entry_name = std::move(entry);
    for (const auto& n : c.nodes) {
      DeviceIdentity d;
      d.node = n;
      d.uuid = "GPU-" + n + "-0";
      d.product = "NVIDIA-A100-SXM4-80GB";
      c.plan.assignments.push_back({"w-" + c.claim_id + "-" + n, {d}});
    }
    s().claims.push_back(std::move(c));
    return s().claims.back();
  }
  void own(const std::string& node, const std::string& owner, const std::string& epoch) {
    s().node(node)->owner = owner;
    s().node(node)->owner_epoch = epoch;
  }
};

}  // namespace

TEST_CASE("single-ownership: a live claim's node owned by someone else", "[invariants]") {
  Fixture f;
  f.own("n1", "flowA", "gen-c1");
  f.add_claim("c1", "flowA", {"n1"});
  CHECK_FALSE(check_single_ownership(f.ctx()));
  f.own("n1", "flowB", "gen-x");
  require_fires(check_single_ownership(f.ctx()), "single-ownership",
                "covered by live claim c1 of flowA but its owner is flowB");
}

TEST_CASE("single-ownership: one node under live claims of two owners", "[invariants]") {
  Fixture f;
  f.own("n1", "flowA", "gen-c1");
  f.add_claim("c1", "flowA", {"n1"});
  f.add_claim("c2", "flowB", {"n1"});
  require_fires(check_single_ownership(f.ctx()), "single-ownership",
                "live claims of two owners: flowA (c1) and flowB (c2)");
  // A releasing claim is no longer live: no violation.
  f.s().claims[1].releasing = true;
  CHECK_FALSE(check_single_ownership(f.ctx()));
}

TEST_CASE("no-double-grant: one uuid in two live claims, but not with a releasing one", "[invariants]") {
  Fixture f;
  f.add_claim("c1", "flowA", {"n1"});
  f.add_claim("c2", "flowB", {"n2"});
  CHECK_FALSE(check_no_double_grant(f.ctx()));
  f.s().claims[1].plan.assignments[0].second[0].uuid = "GPU-n1-0";
  require_fires(check_no_double_grant(f.ctx()), "no-double-grant", "GPU-n1-0 is granted to live claims c1 and c2");
  f.s().claims[0].releasing = true;
  CHECK_FALSE(check_no_double_grant(f.ctx()));
}

TEST_CASE("no-double-grant: one uuid twice in one live claim's grant", "[invariants]") {
  Fixture f;
  f.add_claim("c1", "flowA", {"n1"});
  auto& assignments = f.s().claims[0].plan.assignments;
  assignments.push_back({"wb", assignments[0].second});  // a second workload handed the same device
  require_fires(check_no_double_grant(f.ctx()), "no-double-grant", "GPU-n1-0 is granted twice within live claim c1");
  assignments.pop_back();
  CHECK_FALSE(check_no_double_grant(f.ctx()));
}

TEST_CASE("no-orphaned-geometry: each clause", "[invariants]") {
  Fixture f;
  const std::string entry = "videoflow-flowA-gen-c1";
  SECTION("node configured with an entry missing from the map") {
    f.add_claim("c1", "flowA", {"n1"}, entry);
    f.s().node("n1")->mig_config = entry;
    require_fires(check_no_orphaned_geometry(f.ctx()), "no-orphaned-geometry", "not in the shared map");
  }
  SECTION("node configured with an entry no claim owns") {
    f.s().shared_config.push_back({entry, {{"n1", 1}}});
    f.s().node("n1")->mig_config = entry;
    require_fires(check_no_orphaned_geometry(f.ctx()), "no-orphaned-geometry", "which no live or releasing claim owns");
  }
  SECTION("map entry that belongs to no claim") {
    f.s().shared_config.push_back({entry, {{"n1", 1}}});
    require_fires(check_no_orphaned_geometry(f.ctx()), "no-orphaned-geometry", "belongs to no live or releasing claim");
  }
  SECTION("free node not back on its recorded config") {
    f.s().node("n2")->mig_config = "all-balanced";
    require_fires(check_no_orphaned_geometry(f.ctx()), "no-orphaned-geometry",
                  "node n2 has no claim but is on all-balanced");
  }
  SECTION("a consistent claim holds") {
    f.add_claim("c1", "flowA", {"n1"}, entry);
    f.s().shared_config.push_back({entry, {{"n1", 1}}});
    f.s().node("n1")->mig_config = entry;
    CHECK_FALSE(check_no_orphaned_geometry(f.ctx()));
  }
}

TEST_CASE("shared-map-never-deleted: each clause", "[invariants]") {
  Fixture f;
  CHECK_FALSE(check_shared_map_never_deleted(f.ctx()));
  SECTION("deleted") {
    f.s().shared_map_deleted = true;
    require_fires(check_shared_map_never_deleted(f.ctx()), "shared-map-never-deleted", "was deleted");
  }
  SECTION("entries but the pointer went back") {
    f.s().shared_config.push_back({"videoflow-flowB-g", {{"n1", 1}}});
    require_fires(check_shared_map_never_deleted(f.ctx()), "shared-map-never-deleted",
                  "pointer names default-mig-parted-config while the shared map still holds 1 entry");
  }
  SECTION("no entry but the pointer still on the allocsim map") {
    f.s().pointer = "videoflow-map";
    require_fires(check_shared_map_never_deleted(f.ctx()), "shared-map-never-deleted",
                  "no entry but the pointer still names videoflow-map");
  }
}

TEST_CASE("geometry-stable-under-workloads: a geometry write on a busy node", "[invariants]") {
  Fixture f;
  f.s().audit.push_back({"flowA:op1", "label-geometry", "n1", "videoflow-flowA-g"});
  CHECK_FALSE(check_geometry_stable_under_workloads(f.ctx()));
  f.s().node("n1")->workloads.push_back({"foreign", 1});
  require_fires(check_geometry_stable_under_workloads(f.ctx()), "geometry-stable-under-workloads",
                "flowA:op1 wrote label-geometry on node n1 while workloads hold it");
  f.world.audit_seen = f.s().audit.size();  // already judged at an earlier step
  CHECK_FALSE(check_geometry_stable_under_workloads(f.ctx()));
  f.s().audit.push_back({"flowA:release1", "restore-geometry", "n1", "all-disabled"});
  require_fires(check_geometry_stable_under_workloads(f.ctx()), "geometry-stable-under-workloads", "restore-geometry");
}

TEST_CASE("readiness-answers-its-write: prepared and ready on what the actor was told", "[invariants]") {
  Fixture f;
  const std::string entry = "videoflow-flowA-gen-c1";
  Claim& c = f.add_claim("c1", "flowA", {"n1"}, entry);
  c.label_versions.push_back({"n1", 5});
  backend::ClaimObservation obs;
  obs.claim_id = "c1";
  obs.status = backend::kClaimPrepared;
  obs.evidence.push_back({"n1", entry, "success", 5, 5, {}});
  auto& told = f.world.mutable_actors()[0].told;
  told.observation = obs;
  CHECK_FALSE(check_readiness_answers_its_write(f.ctx(0)));
  SECTION("a success older than this claim's write") {
    told.observation->evidence[0].state_generation = 4;
    require_fires(check_readiness_answers_its_write(f.ctx(0)), "readiness-answers-its-write", "node n1 shows");
  }
  SECTION("a success for another entry") {
    told.observation->evidence[0].mig_config = "videoflow-flowB-g";
    require_fires(check_readiness_answers_its_write(f.ctx(0)), "readiness-answers-its-write", "is prepared");
  }
  SECTION("pending state") {
    told.observation->evidence[0].state = "pending";
    require_fires(check_readiness_answers_its_write(f.ctx(0)), "readiness-answers-its-write", "pending");
  }
  SECTION("ready before the workload was marked ready") {
    told.observation->status = backend::kClaimReady;
    require_fires(check_readiness_answers_its_write(f.ctx(0)), "readiness-answers-its-write", "never marked ready");
    f.s().claims[0].workload_ready = true;
    CHECK_FALSE(check_readiness_answers_its_write(f.ctx(0)));
  }
  SECTION("prepared without geometry") {
    f.s().claims[0].entry_name.clear();
    require_fires(check_readiness_answers_its_write(f.ctx(0)), "readiness-answers-its-write", "no geometry");
  }
  SECTION("only the stepping actor's observation counts") {
    told.observation->evidence[0].state = "pending";
    CHECK_FALSE(check_readiness_answers_its_write(f.ctx(1)));
  }
}

TEST_CASE("partial-inventory-never-idle: a feasible plan from a partial inventory", "[invariants]") {
  Fixture f;
  auto& told = f.world.mutable_actors()[1].told;
  told.plan_feasible = true;
  CHECK_FALSE(check_partial_inventory_never_idle(f.ctx(1)));
  told.plan_from_failed_pods = true;
  require_fires(check_partial_inventory_never_idle(f.ctx(1)), "partial-inventory-never-idle",
                "flowB got a feasible plan");
  told.plan_feasible = false;
  CHECK_FALSE(check_partial_inventory_never_idle(f.ctx(1)));
}

TEST_CASE("stale-plan-writes-nothing: a stale reserve's audit entry or claim", "[invariants]") {
  Fixture f;
  f.world.stale_reserves.push_back("flowA:op1");
  f.s().audit.push_back({"flowB:op1", "stamp-owner", "n1", "flowB"});
  CHECK_FALSE(check_stale_plan_writes_nothing(f.ctx()));
  SECTION("audit entry") {
    f.s().audit.push_back({"flowA:op1", "stamp-owner", "n2", "flowA"});
    require_fires(check_stale_plan_writes_nothing(f.ctx()), "stale-plan-writes-nothing", "yet wrote stamp-owner on n2");
  }
  SECTION("claim") {
    f.add_claim("c9", "flowA", {"n2"}).op_id = "flowA:op1";
    require_fires(check_stale_plan_writes_nothing(f.ctx()), "stale-plan-writes-nothing", "yet created claim c9");
  }
}

TEST_CASE("rollback-keeps-newer-owner: removing another epoch's stamp", "[invariants]") {
  Fixture f;
  f.world.shadow[0].owner_epoch = "gen-flowB-2";
  f.world.mutable_actors()[0].op_epoch = "gen-flowA-2";
  f.own("n1", "flowB", "gen-flowB-2");
  CHECK_FALSE(check_rollback_keeps_newer_owner(f.ctx(0)));
  f.s().node("n1")->owner.reset();
  f.s().node("n1")->owner_epoch.reset();
  require_fires(check_rollback_keeps_newer_owner(f.ctx(0)), "rollback-keeps-newer-owner",
                "flowA (epoch gen-flowA-2) removed node n1's owner stamp of epoch gen-flowB-2");
  // The stamp's own epoch may remove it.
  f.world.mutable_actors()[0].op_epoch = "gen-flowB-2";
  CHECK_FALSE(check_rollback_keeps_newer_owner(f.ctx(0)));
}

TEST_CASE("rollback-keeps-newer-owner: a step that leaves half an owner stamp", "[invariants]") {
  Fixture f;
  f.world.shadow[0].owner_epoch = "gen-flowA-2";
  f.world.mutable_actors()[0].op_epoch = "gen-flowA-2";
  f.own("n1", "flowA", "gen-flowA-2");
  CHECK_FALSE(check_rollback_keeps_newer_owner(f.ctx(0)));
  SECTION("the owner cleared, its epoch left behind") {
    f.s().node("n1")->owner.reset();
    require_fires(check_rollback_keeps_newer_owner(f.ctx(0)), "rollback-keeps-newer-owner",
                  "flowA left node n1 with half an owner stamp: owner -, epoch gen-flowA-2");
  }
  SECTION("an owner written without its epoch") {
    f.s().node("n1")->owner_epoch.reset();
    f.world.shadow[0].owner_epoch.reset();
    require_fires(check_rollback_keeps_newer_owner(f.ctx(0)), "rollback-keeps-newer-owner",
                  "flowA left node n1 with half an owner stamp: owner flowA, epoch -");
  }
  SECTION("both cleared by the stamp's own epoch: no stamp, no violation") {
    f.s().node("n1")->owner.reset();
    f.s().node("n1")->owner_epoch.reset();
    CHECK_FALSE(check_rollback_keeps_newer_owner(f.ctx(0)));
  }
}

TEST_CASE("quiescent-clean: leftovers of an actor that released what it claimed", "[invariants]") {
  Fixture f;
  auto& a = f.world.mutable_actors()[0];
  a.claims_made = 1;
  a.claims_held = 0;
  CHECK_FALSE(check_quiescent_clean(f.ctx(sim::kNoActor, true)));
  SECTION("owner") {
    f.own("n2", "flowA", "gen-x");
    require_fires(check_quiescent_clean(f.ctx(sim::kNoActor, true)), "quiescent-clean", "still owns node n2");
  }
  SECTION("claim") {
    f.add_claim("c1", "flowA", {"n1"});
    require_fires(check_quiescent_clean(f.ctx(sim::kNoActor, true)), "quiescent-clean", "claim c1 remains");
  }
  SECTION("entry") {
    f.s().shared_config.push_back({"videoflow-flowA-gen-1", {{"n1", 1}}});
    f.s().pointer = "videoflow-map";
    require_fires(check_quiescent_clean(f.ctx(sim::kNoActor, true)), "quiescent-clean",
                  "map entry videoflow-flowA-gen-1 remains");
  }
  SECTION("pointer") {
    f.s().pointer = "videoflow-map";
    require_fires(check_quiescent_clean(f.ctx(sim::kNoActor, true)), "quiescent-clean", "pointer names videoflow-map");
  }
  SECTION("an actor still holding its claim is not judged") {
    a.claims_held = 1;
    f.own("n2", "flowA", "gen-x");
    CHECK_FALSE(check_quiescent_clean(f.ctx(sim::kNoActor, true)));
  }
}

TEST_CASE("no-double-grant: the state block lists both claims with their granted device ids", "[invariants]") {
  Fixture f;
  f.add_claim("c1", "flowA", {"n1"});
  f.add_claim("c2", "flowB", {"n2"});
  f.s().claims[1].plan.assignments[0].second[0].uuid = "GPU-n1-0";
  const auto v = check_no_double_grant(f.ctx());
  REQUIRE(v.has_value());
  CHECK(v->state ==
        "claim c1: owner=flowA generation=gen-c1 nodes=[n1] entry=- live devices=[w-c1-n1:GPU-n1-0]\n"
        "claim c2: owner=flowB generation=gen-c2 nodes=[n2] entry=- live devices=[w-c2-n2:GPU-n1-0]\n");
  // The shrinker's before/after view renders the same fields again.
  CHECK(render_like(f.world, v->state) == v->state);
}

TEST_CASE("render_like re-renders the stale-reserve and actor lines from the other state", "[invariants]") {
  Fixture after;
  after.world.stale_reserves.push_back("flowA:op1");
  auto& a = after.world.mutable_actors()[0];
  a.claims_made = 1;
  const std::string reported = render_stale_reserves(after.world) + render_actor_claims(a);
  CHECK(reported == "stale reserves: [flowA:op1]\nactor flowA: claims_made=1 claims_held=0\n");
  Fixture before;
  CHECK(render_like(before.world, reported) == "stale reserves: []\nactor flowA: claims_made=0 claims_held=0\n");
}

TEST_CASE("render_like never copies a line the invariant computed at the violation into the other state",
          "[invariants]") {
  // capacity-within-cards reports "capacity n1: ... uncovered=[fw:1]" beside the node: the node line is
  // re-rendered from the earlier state, the computed line keeps only its subject.
  Fixture f;
  const std::string reported = render_node(f.s().nodes[0]) +
                               "capacity n1: cards=1 granted=[] uncovered=[fw:1]\n"
                               "flow workload fw: requested by flowA; live grants []; covered since bound: 0\n"
                               "actor flowA told: infeasible plan: none\n";
  CHECK(render_like(f.world, reported) == render_node(f.s().nodes[0]) +
                                              "capacity n1: (computed at the violation only)\n"
                                              "flow workload fw: (computed at the violation only)\n"
                                              "actor flowA told: (computed at the violation only)\n");
}

TEST_CASE("render_like keeps a computed diff's subject once and leaves out its - and + lines", "[invariants]") {
  // ops-atomic reports its result as a subject line and then the differing lines, "- " for this execution and
  // "+ " for the nearest op-level result: both halves were computed at the violation.
  Fixture f;
  const std::string reported =
      "result: this execution (-) against the nearest op-level result (+)\n"
      "- node n1 owner=- epoch=- mig.config=all-disabled\n"
      "+ node n1 owner=flowB epoch=gen-flowB-#1 mig.config=all-disabled\n" +
      render_node(f.s().nodes[0]);
  CHECK(render_like(f.world, reported) == "result: (computed at the violation only)\n" + render_node(f.s().nodes[0]));
}

TEST_CASE("recovery-converges: each clause, right after flowA recovered flowB", "[invariants]") {
  Fixture f;
  f.world.mutable_actors()[0].told.recovered_flow = "flowB";
  CHECK_FALSE(check_recovery_converges(f.ctx(0)));
  CHECK_FALSE(check_recovery_converges(f.ctx(1)));  // only the recovering actor's step is judged
  SECTION("owner") {
    f.own("n1", "flowB", "gen-flowB-1");
    require_fires(check_recovery_converges(f.ctx(0)), "recovery-converges",
                  "flowB still owns node n1 (epoch gen-flowB-1)");
  }
  SECTION("claim") {
    f.add_claim("c1", "flowB", {"n1"});
    require_fires(check_recovery_converges(f.ctx(0)), "recovery-converges", "claim c1 remains");
  }
  SECTION("entry") {
    f.s().shared_config.push_back({"videoflow-flowB-gen-1", {{"n1", 1}}});
    require_fires(check_recovery_converges(f.ctx(0)), "recovery-converges", "map entry videoflow-flowB-gen-1 remains");
  }
  SECTION("restore record") {
    f.s().node("n2")->restore_record = "all-disabled";
    require_fires(check_recovery_converges(f.ctx(0)), "recovery-converges", "keeps restore record all-disabled");
  }
  SECTION("config") {
    f.s().node("n2")->mig_config = "all-balanced";
    require_fires(check_recovery_converges(f.ctx(0)), "recovery-converges",
                  "is on all-balanced, not its recorded config");
  }
}

TEST_CASE("every invariant with a check names the fields it reads", "[invariants]") {
  for (const InvariantSpec& spec : invariant_table()) {
    INFO(spec.name);
    CHECK(spec.reads.empty() == (spec.check == nullptr));
    CHECK(std::string(spec.alloc_case).size() > 0);
  }
}

TEST_CASE("check_invariants runs only the enabled invariants, in table order", "[invariants]") {
  // The state is built by hand, around the touch funnel the dirty set learns writes from (dirty.h): the
  // full check sees it whatever was written.
  struct Full {
    Full() { set_check_mode(CheckMode::Full); }
    ~Full() { set_check_mode(CheckMode::Incremental); }
  } const full;
  Fixture f;
  f.s().shared_map_deleted = true;  // shared-map-never-deleted
  f.own("n1", "flowB", "gen-x");
  f.add_claim("c1", "flowA", {"n1"});  // single-ownership, earlier in the table
  auto v = check_invariants(f.world, 0, false);
  REQUIRE(v);
  CHECK(v->invariant == "single-ownership");
  set_invariants(*f.compiled, {3});  // only shared-map-never-deleted
  v = check_invariants(f.world, 0, false);
  REQUIRE(v);
  CHECK(v->invariant == "shared-map-never-deleted");
}

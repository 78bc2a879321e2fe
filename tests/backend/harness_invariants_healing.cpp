// heals-after-faults (backend/invariants/healing.h; docs/DESIGN.md §5, "The healing phase"): each clause fires on a
// quiescent state built by hand to break it and holds on the state just before the break; the healing itself
// (faults stopped, applies landed, crashed flows recovered) runs on a copy and never writes the world.
#include <catch2/catch.hpp>

#include "backend/invariants/healing.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "tests/backend/invariant_test_support.h"

namespace healing_test {

// Inside the namespace: a unity batch compiles the next test file after this one.
using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;

using backend::Claim;
using backend::DeviceIdentity;

struct Fixture {
  Scenario sc = parse_scenario(kTwoNodes, "hand-built.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  ActorState& actor(size_t i) { return world.mutable_actors()[i]; }
  std::optional<sim::Violation> check() { return check_heals_after_faults(CheckContext{world, sim::kNoActor, true}); }

  /// A claim of `owner` on `node` with its stamp; with `geometry`, its entry, the node's config and restore record
  /// as upstream's reserve writes them.
  Claim& claim(const std::string& id, const std::string& owner, const std::string& node, bool geometry) {
    Claim c;
    c.claim_id = id;
    c.owner = owner;
    c.generation = "gen-" + id;
    c.nodes = {node};
    c.status = backend::kClaimAllocated;
    c.op_id = owner + ":op1";
    DeviceIdentity d;
    d.node = node;
    d.uuid = "GPU-" + node + "-0";
    c.plan.assignments.push_back({"w-" + id, {d}});
    backend::NodeFixture& n = *s().node(node);
    n.owner = owner;
    n.owner_epoch = c.generation;
    if (geometry) {
      c.entry_name = "videoflow-" + owner + "-" + c.generation;
      c.plan.geometry.push_back({node, "1g.10gb:1"});
      s().shared_config.push_back({c.entry_name, {{node, 1}}});
      s().pointer = backend::kActivePointer;
      s().pointer_restore = backend::kDefaultPointer;
      n.restore_record = n.mig_config;
      n.mig_config = c.entry_name;
      n.mig_layout = {{"1g.10gb", 1}};
    }
    s().claims.push_back(std::move(c));
    return s().claims.back();
  }
  void told(size_t actor_index, const Claim& c) {
    actor(actor_index).held.emplace_back(c.claim_id, c.generation);
    ++actor(actor_index).claims_held;
    ++actor(actor_index).claims_made;
  }
};

TEST_CASE("heals-after-faults: a clean cluster and a claim its alive owner holds both hold", "[invariants][healing]") {
  Fixture f;
  CHECK_FALSE(f.check());
  f.told(0, f.claim("c1", "flowA", "n1", true));
  CHECK_FALSE(f.check());
}

TEST_CASE("heals-after-faults: a claim its alive owner was never told of is cleaned up, on a copy",
          "[invariants][healing]") {
  Fixture f;
  f.claim("c1", "flowA", "n1", true);  // its reserve raised after creating it: flowA holds nothing
  CHECK_FALSE(f.check());
  const auto& s = f.world.backend().state();
  CHECK(s.claims.size() == 1);  // the healing ran on a copy: the world is as it was
  CHECK(s.node("n1")->owner == "flowA");
  CHECK(s.shared_config.size() == 1);
  CHECK(s.audit.empty());
}

TEST_CASE("heals-after-faults: an owner stamp no claim carries, after the crashed flow is recovered",
          "[invariants][healing]") {
  Fixture f;
  f.actor(0).crashed = "owner.update.after";
  f.s().node("n1")->owner = "flowA";
  f.s().node("n1")->owner_epoch = "gen-flowA-3";
  const auto v = f.check();
  require_fires(v, "heals-after-faults", "node n1 keeps flowA's owner stamp (epoch gen-flowA-3)");
  CHECK_THAT(v->state, Catch::StartsWith("healing: recovered flowA (crashed at owner.update.after): no claim to read "
                                         "back\nnode n1: owner=flowA"));
  SECTION("a stamp of an epoch no claim left has, though the same flow keeps another claim there") {
    f.actor(0).crashed = nullptr;
    f.told(0, f.claim("c1", "flowA", "n1", false));
    f.s().node("n1")->owner_epoch = "gen-flowA-6";  // a later reserve stamped, then crashed or raised
    require_fires(f.check(), "heals-after-faults", "node n1 keeps flowA's owner stamp (epoch gen-flowA-6)");
  }
}

TEST_CASE("heals-after-faults: cleaning up an older claim of the flow clears the stamp a kept claim relies on (F1)",
          "[invariants][healing]") {
  Fixture f;
  f.claim("c1", "flowA", "n1", false);  // flowA cannot name it: the healing cleans it up
  const Claim& c2 = f.claim("c2", "flowA", "n2", false);
  f.told(0, c2);
  f.s().claims.back().nodes = {"n1"};  // flowA's second claim on n1, which it owns: never stamped (F1)
  f.s().node("n2")->owner.reset();
  f.s().node("n2")->owner_epoch.reset();
  f.s().node("n1")->owner_epoch = "gen-c1";
  const auto v = f.check();
  require_fires(v, "heals-after-faults",
                "claim c2 of flowA holds node n1, but the node's owner is -: the cleanup of another claim of the flow "
                "cleared its stamp (F1)");
}

TEST_CASE("heals-after-faults: a claim whose release failed after clearing its stamp waits for its workloads",
          "[invariants][healing]") {
  Fixture f;
  Claim& c1 = f.claim("c1", "flowA", "n1", false);
  c1.releasing = true;  // its release cleared the stamp, then crashed at restore.after
  f.actor(0).crashed = "restore.after";
  f.s().node("n1")->owner.reset();
  f.s().node("n1")->owner_epoch.reset();
  f.s().node("n1")->workloads.push_back({"pod1", 2});  // a pod bound since: the retry answers pending_recovery
  CHECK_FALSE(f.check());
}

TEST_CASE("heals-after-faults: a held claim whose release failed part way is released again", "[invariants][healing]") {
  Fixture f;
  Claim& c1 = f.claim("c1", "flowA", "n1", true);
  f.told(0, c1);
  c1.releasing = true;  // its release restored n1 and cleared the stamp, then raised at delete.before
  f.s().node("n1")->owner.reset();
  f.s().node("n1")->owner_epoch.reset();
  f.s().node("n1")->mig_config = backend::kDefaultMigConfig;
  f.s().node("n1")->restore_record.reset();
  f.s().node("n1")->mig_layout.clear();
  CHECK_FALSE(f.check());  // the retry strips the entry, restores the pointer and drops the claim
}

TEST_CASE("heals-after-faults: a claim workloads still hold stays, with what it explains", "[invariants][healing]") {
  Fixture f;
  f.actor(0).crashed = "claim.schedule.after";
  f.claim("c1", "flowA", "n1", true);
  CHECK_FALSE(f.check());  // recovered: released, restored, the pointer back
  f.s().node("n1")->workloads.push_back({"wa", 1});
  CHECK_FALSE(f.check());  // recovery answers pending_recovery; the claim explains its stamp, entry and layout
  f.s().node("n1")->workloads.clear();
  f.s().failed_reads.push_back({"config", "timeout"});
  CHECK_FALSE(f.check());  // the fault stops before the recovery's release reads the config
  const auto& n1 = *f.world.backend().state().node("n1");
  CHECK(n1.owner == "flowA");  // the world itself is as it was
  CHECK(f.world.backend().state().failed_reads.size() == 1);
}

TEST_CASE("heals-after-faults: each leftover no remaining claim explains", "[invariants][healing]") {
  Fixture f;
  SECTION("an allocsim config") {
    f.s().node("n2")->mig_config = "videoflow-flowB-gen-7";
    require_fires(f.check(), "heals-after-faults", "node n2 is on allocsim config videoflow-flowB-gen-7");
  }
  SECTION("a restore record") {
    f.s().node("n2")->restore_record = "all-disabled";
    require_fires(f.check(), "heals-after-faults", "node n2 keeps restore record all-disabled");
  }
  SECTION("a map entry") {
    f.s().shared_config.push_back({"videoflow-flowB-gen-7", {{"n1", 1}}});
    f.s().pointer = backend::kActivePointer;
    require_fires(f.check(), "heals-after-faults", "map entry videoflow-flowB-gen-7 remains");
  }
  SECTION("the pointer on the map, the map empty") {
    f.s().pointer = backend::kActivePointer;
    require_fires(f.check(), "heals-after-faults", "the pointer names videoflow-map while the map holds 0 entries");
  }
  SECTION("the pointer elsewhere, the map holding a claim's entry") {
    f.told(0, f.claim("c1", "flowA", "n1", true));
    f.s().pointer = backend::kDefaultPointer;
    require_fires(f.check(), "heals-after-faults",
                  "the pointer names default-mig-parted-config while the map holds 1 entry");
  }
}

TEST_CASE("heals-after-faults: mig-manager reconciles a node that drifted from its config", "[invariants][healing]") {
  Fixture f;
  SECTION("carved on the default config (a start state, a manual nvidia-smi)") {
    f.s().node("n1")->mig_layout = {{"1g.10gb", 2}};
    CHECK_FALSE(f.check());
  }
  SECTION("pending with no apply queued (another writer's half-finished reconfiguration), under a claim") {
    f.told(0, f.claim("c1", "flowA", "n1", true));
    f.s().node("n1")->mig_state = "pending";
    CHECK_FALSE(f.check());
  }
  SECTION("an administrator's config keeps its layout") {
    f.s().node("n1")->mig_layout = {{"1g.10gb", 2}};
    f.s().node("n1")->mig_config = "all-1g.10gb";
    CHECK_FALSE(f.check());
  }
  SECTION("a layout under a claim with geometry, its config relabelled by another writer") {
    f.told(0, f.claim("c1", "flowA", "n1", true));
    f.s().node("n1")->mig_config = backend::kDefaultMigConfig;
    CHECK_FALSE(f.check());
  }
  CHECK(f.world.backend().state().audit.empty());
}

TEST_CASE("heals-after-faults: a recovery release that never returns is reported, not looped on",
          "[invariants][healing]") {
  Scenario sc = parse_scenario(kTwoNodes, "hand-built.json");
  sc.mutants = {"release-spins-on-busy-nodes"};
  const auto compiled = compile(sc, {});
  BackendWorld world{*compiled};
  Claim c;
  c.claim_id = "c1";
  c.owner = "flowA";
  c.generation = "gen-c1";
  c.nodes = {"n1"};
  world.mutable_backend().mutable_state().claims.push_back(c);
  world.mutable_backend().mutable_state().node("n1")->workloads.push_back({"wa", 1});
  world.mutable_actors()[0].crashed = "claim.create.after";
  require_fires(check_heals_after_faults(CheckContext{world, sim::kNoActor, true}), "heals-after-faults",
                "healing never ended: the recovery of flowA (crashed at claim.create.after) released c1 and fired "
                "10000 barriers without returning");
}

TEST_CASE("heals-after-faults: the healing line says what ran", "[invariants][healing]") {
  Fixture f;
  f.actor(1).crashed = "delete.before";
  f.claim("c2", "flowB", "n2", true);
  f.s().pending_geometry.push_back({f.s().clock.now() + 5, "n2", 9});
  f.s().failing_geometry.push_back("n2");
  f.s().node("n1")->owner = "flowB";  // a stamp of the crashed flow that no claim carries
  f.s().node("n1")->owner_epoch = "gen-old";
  const auto v = f.check();
  require_fires(v, "heals-after-faults", "node n1 keeps flowB's owner stamp (epoch gen-old)");
  CHECK_THAT(v->state, Catch::StartsWith("healing: faults stopped; 1 queued apply landed (the clock moved on 5s); "
                                         "recovered flowB (crashed at delete.before): c2 released\n"));
}

}  // namespace healing_test

// The client-side invariants (docs/DESIGN.md §5, backend/invariants/client.h): each clause fires
// on a state built by hand to break it, and holds on the state just before the break. No execution runs.
#include <catch2/catch.hpp>

#include "backend/invariants/audit.h"
#include "backend/invariants/client.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/histories.h"
#include "backend/invariants/invariant_table.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "tests/backend/invariant_test_support.h"

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;
using backend::Claim;
using backend::DeviceIdentity;

namespace {

const std::string kEntry = "videoflow-flowA-gen-c1";

DeviceIdentity gpu(const std::string& node, int ordinal) {
  DeviceIdentity d;
  d.node = node;
  d.ordinal = ordinal;
  d.uuid = "GPU-" + node + "-" + std::to_string(ordinal);
  d.product = "NVIDIA-A100-SXM4-80GB";
  return d;
}

DeviceIdentity slice(const std::string& node, const std::string& profile, int k) {
  DeviceIdentity d;
  d.node = node;
  d.mig_uuid = "MIG-" + node + "-" + profile + "-" + std::to_string(k);
  d.mig_profile = profile;
  d.product = "NVIDIA-A100-SXM4-80GB";
  return d;
}

struct ClientFixture {
  Scenario sc = parse_scenario(kTwoNodes, "hand-built.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  CheckContext ctx(sim::ActorId actor = 0) { return {world, actor, false}; }

  /// Claim c1 of flowA: workload wa holds GPU-n1-0 and GPU-n2-1, workload wb a 1g.10gb slice on n1.
  Claim& add_claim() {
    Claim c;
    c.claim_id = "c1";
    c.owner = "flowA";
    c.generation = "gen-c1";
    c.nodes = {"n1", "n2"};
    c.status = backend::kClaimAllocated;
    c.plan.assignments.push_back({"wa", {gpu("n1", 0), gpu("n2", 1)}});
    c.plan.assignments.push_back({"wb", {slice("n1", "1g.10gb", 1)}});
    s().claims.push_back(std::move(c));
    return s().claims.back();
  }
  backend::ClaimObservation& tell(const std::string& status) {
    backend::ClaimObservation obs;
    obs.claim_id = "c1";
    obs.owner = "flowA";
    obs.desired_generation = "gen-c1";
    obs.observed_generation = "gen-c1";
    obs.status = status;
    obs.grant = {gpu("n1", 0), gpu("n2", 1), slice("n1", "1g.10gb", 1)};
    world.mutable_actors()[0].told.observation = obs;
    return *world.mutable_actors()[0].told.observation;
  }
};

}  // namespace

TEST_CASE(
    "client invariants: their rows come after the engine-level findings, then the history row, the healing row, the "
    "atomicity row last",
    "[invariants]") {
  const auto& k = invariant_table();
  REQUIRE(k.size() >= 10);
  size_t engine_last = 0;  // the engine-level findings (no check function) come before every client row
  for (size_t i = 0; i < k.size(); ++i)
    if (k[i].check == nullptr) engine_last = i;
  CHECK(std::string(k[engine_last].name) == "actor-exception");
  const std::vector<std::string> last = {"observation-matches-claim",
                                         "bindings-match-grant",
                                         "mig-layout-matches-grant",
                                         "audit-explains-state",
                                         "capabilities-match-authority",
                                         "observation-envelope-complete",
                                         "infeasible-plan-names-exclusions",
                                         "entry-lists-its-nodes",
                                         "no-lost-update",
                                         "write-advances-version",
                                         "heals-after-faults",
                                         "ops-atomic"};
  REQUIRE(engine_last < k.size() - last.size());
  std::vector<std::string> rows;
  for (size_t i = k.size() - last.size(); i < k.size(); ++i) rows.emplace_back(k[i].name);
  CHECK(rows == last);
}

TEST_CASE("write-advances-version: the write that did not move its counter, named with the counter's move",
          "[invariants]") {
  ClientFixture f;
  CHECK_FALSE(check_write_advances_version(f.ctx()));
  f.s().audit.push_back({"flowA:release1", "restore-geometry", "n1", "all-disabled"});
  UnversionedWrite u;
  u.by.principal = 0;
  u.by.audit = static_cast<int64_t>(f.s().audit.size() - 1);
  u.by.what = "restore-geometry";
  u.by.step = 5;
  u.writes = 1;
  u.before = u.after = 3;
  SECTION("a node's resourceVersion") {
    u.counter = Counter::Node;
    u.node = 1;
    f.world.histories.unversioned = u;
    require_fires(check_write_advances_version(f.ctx()), "write-advances-version",
                  "node n2's resourceVersion went 3 -> 3 in a step that wrote it 1 time through the API, the last "
                  "flowA's restore-geometry (flowA:release1) at step 5: a compare-and-swap on the version cannot see "
                  "that write");
  }
  SECTION("the map's version, over two writes") {
    u.counter = Counter::Map;
    u.writes = 2;
    u.after = 4;
    f.world.histories.unversioned = u;
    require_fires(check_write_advances_version(f.ctx()), "write-advances-version",
                  "the shared map's version went 3 -> 4 in a step that wrote it 2 times through the API");
    CHECK_THAT(check_write_advances_version(f.ctx())->message, Catch::EndsWith("cannot see every one of them"));
  }
}

TEST_CASE("observation-matches-claim: grant, owner and generation as the claim has them", "[invariants]") {
  ClientFixture f;
  f.add_claim();
  auto& obs = f.tell(backend::kClaimAllocated);
  CHECK_FALSE(check_observation_matches_claim(f.ctx(0)));
  SECTION("an empty grant") {
    obs.grant.clear();
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim",
                  "with [] grant, but the claim has [GPU-n1-0,GPU-n2-1,MIG-n1-1g.10gb-1]");
  }
  SECTION("a grant in another order") {
    std::swap(obs.grant[0], obs.grant[1]);
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim", "grant");
  }
  SECTION("another owner") {
    obs.owner = "flowB";
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim", "with flowB owner");
  }
  SECTION("another generation") {
    obs.desired_generation = "gen-old";
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim", "gen-old generation");
  }
  SECTION("no observed generation") {
    obs.observed_generation.reset();
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim",
                  "with - observed generation, but the claim has gen-c1");
  }
  SECTION("a device that differs in another field than its uuid") {
    obs.grant[0].ordinal = 7;
    require_fires(check_observation_matches_claim(f.ctx(0)), "observation-matches-claim", "grant");
  }
  SECTION("a claim that is gone, or another actor's step, is not judged") {
    obs.grant.clear();
    CHECK_FALSE(check_observation_matches_claim(f.ctx(1)));
    f.s().claims.clear();
    CHECK_FALSE(check_observation_matches_claim(f.ctx(0)));
  }
}

TEST_CASE("bindings-match-grant: the faithful bindings of a ready claim hold, and only ready is judged",
          "[invariants]") {
  // The backend computes bindings from the claim's plan, so no state breaks them: only a defect in
  // bindings() does (the nightly mutants of `bindings`, tools/nightly/mutants.py). Here: the clause holds
  // on a claim with two devices on two nodes and a MIG slice, and is not judged before `ready`.
  ClientFixture f;
  f.add_claim();
  f.tell(backend::kClaimReady);
  CHECK_FALSE(check_bindings_match_grant(f.ctx(0)));
  backend::SequentialCaller caller;
  const auto b = f.world.mutable_backend().bindings(caller, "c1", "wa");
  CHECK(b.gpu_limit == 2);
  CHECK(b.nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(b.env[0].second == "GPU-n1-0,GPU-n2-1");
  f.tell(backend::kClaimPrepared);
  CHECK_FALSE(check_bindings_match_grant(f.ctx(0)));
}

TEST_CASE("mig-layout-matches-grant: the applied layout counts the claim's MIG devices", "[invariants]") {
  ClientFixture f;
  Claim& c = f.add_claim();
  c.entry_name = kEntry;
  c.label_versions.push_back({"n1", 5});
  f.s().shared_config.push_back({kEntry, {{"n1", 1}}});
  auto& n1 = *f.s().node("n1");
  n1.mig_config = kEntry;
  n1.mig_state = "success";
  n1.mig_state_generation = 5;
  n1.mig_layout = {{"1g.10gb", 1}};
  CHECK_FALSE(check_mig_layout_matches_grant(f.ctx()));
  SECTION("twice the slices the grant needs") {
    n1.mig_layout = {{"1g.10gb", 2}};
    require_fires(check_mig_layout_matches_grant(f.ctx()), "mig-layout-matches-grant", "need {1g.10gb:1}");
  }
  SECTION("an empty layout") {
    n1.mig_layout.clear();
    require_fires(check_mig_layout_matches_grant(f.ctx()), "mig-layout-matches-grant", "node n1 applied");
  }
  SECTION("another claim's geometry gathered in") {
    n1.mig_layout = {{"1g.10gb", 1}, {"3g.40gb", 1}};
    require_fires(check_mig_layout_matches_grant(f.ctx()), "mig-layout-matches-grant", "for claim c1");
  }
  SECTION("not judged while the state answers an older write, is pending, or the entry left the map") {
    n1.mig_layout.clear();
    n1.mig_state_generation = 4;
    CHECK_FALSE(check_mig_layout_matches_grant(f.ctx()));
    n1.mig_state_generation = 5;
    n1.mig_state = "pending";
    CHECK_FALSE(check_mig_layout_matches_grant(f.ctx()));
    n1.mig_state = "success";
    f.s().shared_config.clear();
    CHECK_FALSE(check_mig_layout_matches_grant(f.ctx()));
  }
}

TEST_CASE("audit-explains-state: each field the log writes, and the versions", "[invariants]") {
  ClientFixture f;
  auto& s = f.s();
  auto& n1 = *s.node("n1");
  CHECK_FALSE(check_audit_explains_state(f.ctx()));
  SECTION("an owner stamp, logged or not") {
    n1.owner = "flowA";
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "node n1 has owner=flowA");
    s.audit.push_back({"flowA:op1", "stamp-owner", "n1", "flowA"});
    CHECK_FALSE(check_audit_explains_state(f.ctx()));
    n1.owner.reset();  // released without its release-owner entry
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "leaves it at flowA");
  }
  SECTION("a geometry label and a restore record") {
    n1.restore_record = n1.mig_config;
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "restore_record");
    s.audit.push_back({"flowA:op1", "record-restore", "n1", n1.mig_config});
    n1.mig_config = kEntry;
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "mig_config=" + kEntry);
    s.audit.push_back({"flowA:op1", "label-geometry", "n1", kEntry});
    CHECK_FALSE(check_audit_explains_state(f.ctx()));
  }
  SECTION("a map entry, the map's version, the pointer and its version") {
    s.shared_config.push_back({kEntry, {{"n1", 1}}});
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "the shared map holds");
    s.audit.push_back({"flowA:op1", "publish-entry", kEntry, ""});
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "after 1 logged write");
    s.shared_config_version += 1;
    CHECK_FALSE(check_audit_explains_state(f.ctx()));
    s.pointer = backend::kActivePointer;
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "the pointer names");
    s.audit.push_back({"flowA:op1", "point-policy", "clusterpolicy", backend::kActivePointer});
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "the pointer is at version");
    s.pointer_version += 1;
    CHECK_FALSE(check_audit_explains_state(f.ctx()));
    s.shared_config.clear();  // stripped without its strip-entry
    require_fires(check_audit_explains_state(f.ctx()), "audit-explains-state", "the audit log leaves [" + kEntry);
  }
}

TEST_CASE("capabilities-match-authority: a backend advertising another authority than the scenario's", "[invariants]") {
  ClientFixture f;  // managed-mig
  CHECK_FALSE(check_capabilities_match_authority(f.ctx()));
  backend::BackendOptions dra;
  dra.authority = backend::kAuthorityDra;
  f.world.mutable_backend() = backend::MemoryBackend({}, dra);
  require_fires(check_capabilities_match_authority(f.ctx()), "capabilities-match-authority",
                "the managed-mig backend advertises capabilities: adapter=memory-dra authority=dra");
  CHECK(spec_of("capabilities-match-authority").quiescent_only);
}

TEST_CASE("observation-envelope-complete: the stamp, generation, reason and detail of every answer", "[invariants]") {
  ClientFixture f;
  auto& told = f.world.mutable_actors()[0].told;
  CHECK_FALSE(check_observation_envelope_complete(f.ctx(0)));  // nothing told this step
  SECTION("a Known answer") {
    told.envelope = Told::Envelope{"observe", true, "gen-c1", "gen-c1", "", "", 1015.0, 1015.0, 1015.0};
    CHECK_FALSE(check_observation_envelope_complete(f.ctx(0)));
    SECTION("stamped with another time than the clock's") {
      told.envelope->observed_at = 0;
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "flowA was told an answer of observe: observed_at=0 but the clock read 1015");
    }
    SECTION("a value stamped with another time than the clock's") {
      told.envelope->value_observed_at = 0;
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "the value's observed_at=0 but the clock read 1015");
    }
    SECTION("without a generation") {
      told.envelope->generation.reset();
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "a Known answer without a generation");
    }
    SECTION("with another generation than its value's") {
      told.envelope->generation = "gen-c0";
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "generation=gen-c0 but the value it stamps has generation gen-c1");
    }
  }
  SECTION("an Unknown answer") {
    told.envelope = Told::Envelope{"inventory",           false,  std::nullopt, "",    "unreachable",
                                   "node listing failed", 1000.0, 1000.0,       1000.0};
    CHECK_FALSE(check_observation_envelope_complete(f.ctx(0)));
    SECTION("without a reason") {
      told.envelope->reason.clear();
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "an Unknown answer with reason '', not one of the contract's");
    }
    SECTION("without a detail") {
      told.envelope->detail.clear();
      require_fires(check_observation_envelope_complete(f.ctx(0)), "observation-envelope-complete",
                    "an Unknown answer without a detail");
    }
  }
}

TEST_CASE("infeasible-plan-names-exclusions: every node left out of a failed packing, with its reason",
          "[invariants]") {
  ClientFixture f;
  ActorState& a = f.world.mutable_actors()[0];  // flowA
  backend::InventorySnapshot snap;
  snap.devices = {gpu("n1", 0), gpu("n1", 1), gpu("n2", 0), gpu("n2", 1)};
  snap.owners = {{"n1", "flowB"}};
  snap.sharing = {{"n1", backend::kClassPhysical}, {"n2", backend::kClassTimeSliced}};
  a.inventory = snap;
  const std::string packing =
      "no per-host packing places every whole-device request on one node (free per node: {}; excluded: ['n1: owned "
      "by flowB', 'n2: time-sliced \u2014 its units are shares or slices, not whole devices'])";
  a.plan = backend::Infeasible{{packing}};
  a.told.plan_feasible = false;
  CHECK_FALSE(check_infeasible_plan_names_exclusions(f.ctx(0)));
  SECTION("the owned node missing from the reason") {
    a.plan =
        backend::Infeasible{{"no per-host packing places every whole-device request on one node (free per node: "
                             "{}; excluded: ['n2: time-sliced']"}};
    require_fires(check_infeasible_plan_names_exclusions(f.ctx(0)), "infeasible-plan-names-exclusions",
                  "flowA's plan is infeasible without saying 'n1: owned by flowB'");
  }
  SECTION("the shared node missing from the reason") {
    a.plan =
        backend::Infeasible{{"no per-host packing places every whole-device request on one node (free per node: "
                             "{}; excluded: ['n1: owned by flowB']"}};
    require_fires(check_infeasible_plan_names_exclusions(f.ctx(0)), "infeasible-plan-names-exclusions",
                  "flowA's plan is infeasible without saying 'n2: time-sliced'");
  }
  SECTION("a node the flow owns itself is not an exclusion") {
    a.inventory->owners = {{"n1", "flowA"}};
    a.plan =
        backend::Infeasible{{"no per-host packing places every whole-device request on one node (free per node: "
                             "{}; excluded: ['n2: time-sliced']"}};
    CHECK_FALSE(check_infeasible_plan_names_exclusions(f.ctx(0)));
  }
  SECTION("another reason than the packing one names nothing") {
    a.plan = backend::Infeasible{{"managed-mig cannot provide isolated MIG slices"}};
    CHECK_FALSE(check_infeasible_plan_names_exclusions(f.ctx(0)));
  }
}

TEST_CASE("entry-lists-its-nodes: a claim's map entry names the nodes its geometry is carved on", "[invariants]") {
  ClientFixture f;
  Claim& cl = f.add_claim();
  cl.entry_name = kEntry;
  cl.plan.geometry = {{"n1", "1g.10gb:1"}};
  f.s().shared_config = {{kEntry, {{"n1", 1}}}};
  CHECK_FALSE(check_entry_lists_its_nodes(f.ctx()));
  SECTION("an entry without its node") {
    f.s().shared_config = {{kEntry, {}}};
    require_fires(check_entry_lists_its_nodes(f.ctx()), "entry-lists-its-nodes",
                  "the shared map's entry " + kEntry + " lists nodes [], but claim c1 carves geometry on [n1]");
  }
  SECTION("an entry with a node the claim does not carve") {
    f.s().shared_config = {{kEntry, {{"n1", 1}, {"n2", 1}}}};
    require_fires(check_entry_lists_its_nodes(f.ctx()), "entry-lists-its-nodes", "lists nodes [n1,n2]");
  }
  SECTION("a claim whose entry is gone is another invariant's") {
    f.s().shared_config.clear();
    CHECK_FALSE(check_entry_lists_its_nodes(f.ctx()));
  }
}

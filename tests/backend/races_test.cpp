// Upstream's two cross-call races, replayed sequentially: a HookCaller runs "the other actor" at a barrier
// upstream fires outside its lock (ALLOC-004 owner CAS, ALLOC-005 last owner out). Plus each mutant's
// effect in isolation, and the footprints reported through Caller::touch.
#include <algorithm>

#include "backend/model/errors.h"
#include "backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace {

/// Runs `action` at the first firing of `barrier` only.
void once_at(HookCaller& c, std::string barrier, std::function<void()> action) {
  c.hook = [&c, barrier = std::move(barrier), action = std::move(action)](std::string_view name) {
    if (name != barrier) return;
    const auto run = action;  // clearing the hook destroys this lambda's captures
    c.hook = nullptr;
    run();
  };
}

bool has_touch(const HookCaller& c, Obj what, const std::string& name, bool write) {
  return std::any_of(c.touches.begin(), c.touches.end(),
                     [&](const auto& t) { return t.what == what && t.name == name && t.write == write; });
}

}  // namespace

TEST_CASE("ALLOC-004: the owner write re-checks the version it read", "[races]") {
  const bool mutant = GENERATE(false, true);
  MemoryBackend b({a100_node("n1")},
                  opts(kAuthorityManagedMig, 0, mutant ? std::vector{Mutant::ClientSideClaim} : std::vector<Mutant>{}));
  HookCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("w")}, snapshot(b, c)));
  // A concurrent writer bumps n1 between flowA's read and its write.
  once_at(c, "owner.read.after", [&] { b.mutable_state().node("n1")->resource_version += 1; });
  if (!mutant) {
    try {
      b.reserve(c, plan, "flowA:op", std::nullopt);
      FAIL("expected OwnershipConflict");
    } catch (const OwnershipConflict& e) {
      CHECK(e.message() == "node n1 changed (resourceVersion 1 -> 2) between the read and the write");
      CHECK(e.remedy() == "Re-plan against the current state.");
      CHECK(e.node() == "n1");
    }
    CHECK(b.mutations({"stamp-owner"}).empty());
    CHECK(b.state().claims.empty());
    CHECK_FALSE(b.state().node("n1")->owner.has_value());
  } else {
    CHECK(b.reserve(c, plan, "flowA:op", std::nullopt).status == "allocated");
    CHECK(b.mutations({"stamp-owner"}).size() == 1);
  }
  CHECK(c.depth == 0);
}

TEST_CASE("ALLOC-004: two claimants of one plan both read version 1, exactly one wins", "[races]") {
  const bool mutant = GENERATE(false, true);
  MemoryBackend b({a100_node("n1")},
                  opts(kAuthorityManagedMig, 0, mutant ? std::vector{Mutant::ClientSideClaim} : std::vector<Mutant>{}));
  HookCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("w")}, snapshot(b, c)));
  // flowA pauses after its read; flowB runs its whole reserve of the same plan in the gap.
  std::optional<ClaimObservation> b_claim;
  once_at(c, "owner.read.after", [&] { b_claim = b.reserve(c, plan, "flowB:op", std::nullopt); });
  std::optional<ClaimObservation> a_claim;
  std::string conflict;
  try {
    a_claim = b.reserve(c, plan, "flowA:op", std::nullopt);
  } catch (const OwnershipConflict& e) {
    conflict = e.message();
  }
  REQUIRE(b_claim.has_value());
  if (!mutant) {
    CHECK_FALSE(a_claim.has_value());
    CHECK(conflict == "node n1 changed (resourceVersion 1 -> 2) between the read and the write");
    CHECK(b.state().claims.size() == 1);
    CHECK(b.mutations({"stamp-owner"}) == std::vector<Mutation>{{"flowB:op", "stamp-owner", "n1", "flowB"}});
    CHECK(b.state().node("n1")->owner == "flowB");
  } else {
    // The defect: flowA overwrites flowB's stamp, and flowB's live claim covers a node it no longer owns.
    REQUIRE(a_claim.has_value());
    CHECK(b.state().claims.size() == 2);
    CHECK(b.mutations({"stamp-owner"}).size() == 2);
    CHECK(b.state().node("n1")->owner == "flowA");
  }
  // A rival's stamp read before the gap is refused outright.
  SequentialCaller plain;
  try {
    b.reserve(plain, plan, "flowC:op", std::nullopt);
    FAIL("expected OwnershipConflict");
  } catch (const OwnershipConflict& e) {
    CHECK(e.message() == std::string("node n1 is owned by ") + (mutant ? "'flowA'" : "'flowB'"));
    CHECK(e.remedy() == "Re-plan against the remaining pool.");
  }
}

TEST_CASE("reserve rolls back only its own stamps when a later node is owned", "[races]") {
  std::vector<NodeFixture> nodes = {a100_node("n1"), a100_node("n2")};
  MemoryBackend b(nodes, opts(kAuthorityDevicePlugin));
  HookCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("a", 2), req("b", 2)}, snapshot(b, c)));
  // After flowA stamps n1, flowB takes n2 before flowA reads it.
  once_at(c, "owner.update.after", [&] {
    NodeFixture& n2 = *b.mutable_state().node("n2");
    n2.owner = "flowB";
    n2.owner_epoch = "gen-flowB";
    n2.resource_version += 1;
  });
  CHECK_THROWS_AS(b.reserve(c, plan, "flowA:op", std::nullopt), OwnershipConflict);
  CHECK(kinds(b.mutations()) == std::vector<std::string>{"stamp-owner", "release-owner"});
  CHECK(b.mutations()[1] == Mutation{"flowA:op", "release-owner", "n1", "rollback"});
  CHECK_FALSE(b.state().node("n1")->owner.has_value());
  CHECK(b.state().node("n2")->owner == "flowB");
  CHECK(c.depth == 0);
}

TEST_CASE("ALLOC-005: another flow's entry published during delete.before survives the last-out decision", "[races]") {
  const bool mutant = GENERATE(false, true);
  MemoryBackend b({a100_node("n1"), a100_node("n2")},
                  opts(kAuthorityManagedMig, 0, mutant ? std::vector{Mutant::StaleLastOut} : std::vector<Mutant>{}));
  HookCaller c;
  const ClaimObservation a = plan_and_reserve(b, c, {mig_req("wa", 10)}, "flowA:op1");
  // flowA's release pauses at delete.before; flowB plans and reserves a MIG sharer in the gap. n1 was
  // already reverted, so flowB lands on it, as in the upstream test.
  std::optional<ClaimObservation> bee;
  once_at(c, "delete.before", [&] { bee = plan_and_reserve(b, c, {mig_req("wb", 10, "flowB")}, "flowB:op1"); });
  CHECK(b.release(c, a.claim_id, "flowA:rel", a.desired_generation).status == "released");
  REQUIRE(bee.has_value());
  CHECK(bee->evidence[0].node == "n1");
  REQUIRE(b.state().shared_config.size() == 1);
  CHECK(b.state().shared_config[0].first.rfind("videoflow-flowB", 0) == 0);
  const auto observed = b.observe(c, bee->claim_id);
  REQUIRE(observed.known);
  CHECK(observed.value.grant.size() == 1);
  if (!mutant) {
    CHECK(b.state().pointer == "videoflow-map");
    CHECK_FALSE(b.state().shared_tombstone);
    CHECK(b.mutations({"restore-policy"}).empty());
    // flowB's own cleanup is the real last one out.
    CHECK(b.release(c, bee->claim_id, "flowB:rel", bee->desired_generation).status == "released");
    CHECK(b.state().pointer == "default-mig-parted-config");
    CHECK(b.state().shared_tombstone);
    CHECK(b.mutations({"restore-policy"}) ==
          std::vector<Mutation>{{"flowB:rel", "restore-policy", "clusterpolicy", "default-mig-parted-config"}});
  } else {
    // The defect: the pointer goes back and the map is tombstoned while flowB's entry is live.
    CHECK(b.state().pointer == "default-mig-parted-config");
    CHECK(b.state().shared_tombstone);
    CHECK(b.mutations({"restore-policy"}).size() == 1);
  }
  CHECK(b.mutations({"delete-map"}).empty());
}

TEST_CASE("ALLOC-005 by hand: an entry appearing during delete.before keeps the pointer", "[races]") {
  const bool mutant = GENERATE(false, true);
  MemoryBackend b({a100_node("n1")},
                  opts(kAuthorityManagedMig, 0, mutant ? std::vector{Mutant::StaleLastOut} : std::vector<Mutant>{}));
  HookCaller c;
  const ClaimObservation a = plan_and_reserve(b, c, {mig_req("wa", 10)}, "flowA:op1");
  once_at(c, "delete.before", [&] {
    put_in(b.mutable_state().shared_config, std::string("videoflow-flowB-gen-9"),
           OrderedMap<std::string, int>{{"n1", 1}});
  });
  b.release(c, a.claim_id, "flowA:rel", a.desired_generation);
  CHECK(b.state().pointer == (mutant ? "default-mig-parted-config" : "videoflow-map"));
  CHECK(b.state().shared_tombstone == mutant);
  CHECK(b.state().shared_config.size() == 1);
}

TEST_CASE("a crash at delete.after: the retry finishes the release without touching anything else", "[races]") {
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig));
  HookCaller c;
  const ClaimObservation a = plan_and_reserve(b, c, {mig_req("wa", 10)}, "flowA:op1");
  once_at(c, "delete.after", [] { throw std::runtime_error("crash"); });
  CHECK_THROWS_WITH(b.release(c, a.claim_id, "flowA:rel", a.desired_generation), "crash");
  CHECK(c.depth == 0);
  CHECK(b.state().claims.size() == 1);  // the crash came before the claim's removal
  const auto before = b.mutations().size();
  CHECK(b.release(c, a.claim_id, "flowA:rel2", a.desired_generation).status == "released");
  // Nothing left to restore or release: only the (tolerant) entry strip is recorded again.
  const auto after = b.mutations();
  REQUIRE(after.size() == before + 1);
  CHECK(after.back() == Mutation{"flowA:rel2", "strip-entry", "videoflow-flowA-gen-3", ""});
  CHECK(b.state().pointer == "default-mig-parted-config");
  CHECK(b.state().shared_tombstone);
  CHECK(b.state().claims.empty());
}

TEST_CASE("mutant stale-success-readiness: an old success completes a new geometry", "[mutants]") {
  const bool mutant = GENERATE(false, true);
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityManagedMig, 30,
                                         mutant ? std::vector{Mutant::StaleSuccessReadiness} : std::vector<Mutant>{}));
  SequentialCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 20)}, "flowA:op");
  CHECK(b.state().node("n1")->mig_state == (mutant ? "success" : "pending"));
  CHECK(b.state().node("n1")->mig_state_generation == 0);
  CHECK(claim.status == (mutant ? "prepared" : "allocated"));
  b.advance_clock(c, 30);
  b.apply_pending_geometry(c);
  CHECK(b.observe(c, claim.claim_id).value.status == "prepared");
}

TEST_CASE("mutant map-deleted-on-last-out: the map is deleted, and a later publish recreates it", "[mutants]") {
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig, 0, {Mutant::MapDeletedOnLastOut}));
  SequentialCaller c;
  const ClaimObservation a = plan_and_reserve(b, c, {mig_req("wa", 10)}, "flowA:op1");
  b.release(c, a.claim_id, "flowA:rel", a.desired_generation);
  CHECK(b.state().shared_map_deleted);
  CHECK_FALSE(b.state().shared_tombstone);
  CHECK(b.state().shared_config.empty());
  CHECK(b.state().pointer == "default-mig-parted-config");
  CHECK(b.mutations({"delete-map"}) == std::vector<Mutation>{{"flowA:rel", "delete-map", "videoflow-map", ""}});
  plan_and_reserve(b, c, {mig_req("wb", 10, "flowB")}, "flowB:op1");
  CHECK_FALSE(b.state().shared_map_deleted);
  CHECK(b.state().shared_config.size() == 1);
}

TEST_CASE("mutant partial-inventory-is-idle: a failed pod listing reads as idle", "[mutants]") {
  const bool mutant = GENERATE(false, true);
  std::vector<NodeFixture> nodes = {gpu_node("n1")};
  put_in(nodes[0].workloads, std::string("foreign"), 4);
  MemoryBackend b(nodes, opts(kAuthorityDevicePlugin, 0,
                              mutant ? std::vector{Mutant::PartialInventoryIsIdle} : std::vector<Mutant>{}));
  SequentialCaller c;
  b.fail_reads(c, "pods");
  const InventorySnapshot s = snapshot(b, c);
  CHECK(s.completeness == (mutant ? "complete" : "partial"));
  CHECK(s.occupancy == (mutant ? OrderedMap<std::string, int>{{"n1", 0}} : OrderedMap<std::string, int>{}));
  CHECK(std::holds_alternative<FeasiblePlan>(b.plan(c, {req("w")}, s)) == mutant);
  // With pod reads working the mutant changes nothing.
  b.fail_reads(c, "pods", std::nullopt);
  CHECK(snapshot(b, c).occupancy == OrderedMap<std::string, int>{{"n1", 4}});
}

TEST_CASE("mutant allocated-is-ready: allocated reads as ready, other states unchanged", "[mutants]") {
  MemoryBackend b({gpu_node("n1"), gpu_node("n2")}, opts(kAuthorityManagedMig, 5, {Mutant::AllocatedIsReady}));
  SequentialCaller c;
  CHECK(plan_and_reserve(b, c, {req("w")}, "flowA:op1").status == "ready");
  const ClaimObservation mig = plan_and_reserve(b, c, {mig_req("s", 20)}, "flowA:op2");
  CHECK(mig.status == "ready");
  b.advance_clock(c, 5);
  b.apply_pending_geometry(c);
  CHECK(b.observe(c, mig.claim_id).value.status == "prepared");
  CHECK(b.reconcile(c, mig.claim_id, "failed", mig.desired_generation).status == "failed");
}

TEST_CASE("mutant stale-plan-applied: reserve applies a plan whose inventory changed", "[mutants]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDevicePlugin, 0, {Mutant::StalePlanApplied}));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("w", 4)}, snapshot(b, c)));
  b.bind_workload(c, "n1", "foreign", 4);
  CHECK(b.reserve(c, plan, "flowA:op", plan.snapshot_generation).status == "allocated");
  CHECK(b.mutations({"stamp-owner"}).size() == 1);
}

TEST_CASE("footprints: each step reports what it read and wrote", "[races]") {
  MemoryBackend b({a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig, 5));
  HookCaller c;
  b.fail_reads(c, "config", std::nullopt);
  CHECK(has_touch(c, Obj::FailedReads, "config", true));
  c.touches.clear();
  const InventorySnapshot s = snapshot(b, c);
  CHECK(has_touch(c, Obj::AllNodes, "", false));
  CHECK(has_touch(c, Obj::Node, "n2", false));
  CHECK(has_touch(c, Obj::FailedReads, "pods", false));
  CHECK(has_touch(c, Obj::FailedReads, "nodes", false));
  c.touches.clear();
  const FeasiblePlan plan = feasible(b.plan(c, {mig_req("s", 10)}, s));
  CHECK(c.touches.empty());  // the snapshot is the actor's own; products never change
  const ClaimObservation claim = b.reserve(c, plan, "flowA:op", plan.snapshot_generation);
  CHECK(has_touch(c, Obj::AllNodes, "", false));
  CHECK(has_touch(c, Obj::Node, "n1", true));
  CHECK(has_touch(c, Obj::Claim, "", true));
  CHECK(has_touch(c, Obj::Claim, claim.claim_id, true));
  CHECK(has_touch(c, Obj::SharedMap, "videoflow-map", true));
  CHECK(has_touch(c, Obj::Pointer, "clusterpolicy", true));
  CHECK(has_touch(c, Obj::Clock, "pending-geometry", true));
  CHECK(has_touch(c, Obj::Audit, "", true));
  CHECK_FALSE(has_touch(c, Obj::Node, "n2", true));
  c.touches.clear();
  b.advance_clock(c, 5);
  CHECK(has_touch(c, Obj::Clock, "clock", true));
  b.apply_pending_geometry(c);
  CHECK(has_touch(c, Obj::Clock, "pending-geometry", true));
  CHECK(has_touch(c, Obj::Node, "n1", true));
  CHECK(has_touch(c, Obj::Claim, "", false));
  CHECK(has_touch(c, Obj::FailingGeometry, "n1", false));
  c.touches.clear();
  b.observe(c, claim.claim_id);
  CHECK(has_touch(c, Obj::Claim, claim.claim_id, false));
  CHECK(has_touch(c, Obj::Node, "n1", false));
  CHECK(std::none_of(c.touches.begin(), c.touches.end(), [](const auto& t) { return t.write; }));
  c.touches.clear();
  b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation);
  CHECK(has_touch(c, Obj::FailedReads, "config", false));
  CHECK(has_touch(c, Obj::Node, "n1", true));
  CHECK(has_touch(c, Obj::SharedMap, "videoflow-map", true));
  CHECK(has_touch(c, Obj::Pointer, "clusterpolicy", true));
  CHECK(has_touch(c, Obj::Claim, "", true));
}

TEST_CASE("footprints: a release's restore step reads its claim even when the claim is gone", "[races]") {
  // release_restore marks its claim releasing when the claim is still there, and does nothing to it when it is gone;
  // both depend on the claim, so the step reads (Claim, id) either way (FootprintedState::find_claim_for_write). Under
  // upstream's lock nothing removes the claim there; the hook plays a step that did.
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityDevicePlugin, 0));
  HookCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {req("w")}, "flowA:op1");
  std::vector<HookCaller::Touch> restore;
  c.hook = [&](std::string_view name) {
    if (name == "restore.before") {
      b.mutable_state().claims.clear();
      c.touches.clear();
    }
    if (name == "restore.after") restore = c.touches;
  };
  b.release(c, claim.claim_id, "flowA:op2", claim.desired_generation);
  CHECK(std::any_of(restore.begin(), restore.end(),
                    [&](const auto& t) { return t.what == Obj::Claim && t.name == claim.claim_id && !t.write; }));
  CHECK_FALSE(std::any_of(restore.begin(), restore.end(),
                          [&](const auto& t) { return t.what == Obj::Claim && t.name == claim.claim_id && t.write; }));
}

TEST_CASE("footprints: the step that schedules a claim writes it, on every authority", "[races]") {
  // Between claim.create.after and claim.schedule.after the reserve writes the claim again (its status; on
  // managed MIG also its entry and label versions). Without that write in the step's footprint, DPOR took an
  // observe of the claim and the scheduling step for independent, and the causal slice of a violation that
  // read the claim's grant left the step out (the verdict self-check's explain-slice-replay).
  for (const std::string authority : {kAuthorityDevicePlugin, kAuthorityManagedMig}) {
    INFO(authority);
    MemoryBackend b({a100_node("n1")}, opts(authority, 0));
    HookCaller c;
    const WorkloadRequest r = authority == kAuthorityManagedMig ? mig_req("s", 10) : req("w", 1);
    const FeasiblePlan plan = feasible(b.plan(c, {r}, snapshot(b, c)));
    CHECK(plan.geometry.empty() == (authority != kAuthorityManagedMig));  // both paths of the step
    std::vector<HookCaller::Touch> scheduling;
    c.hook = [&](std::string_view name) {
      if (name == "claim.create.after") c.touches.clear();
      if (name == "claim.schedule.after") scheduling = c.touches;
    };
    const ClaimObservation claim = b.reserve(c, plan, "flowA:op", plan.snapshot_generation);
    REQUIRE_FALSE(claim.claim_id.empty());
    CHECK(std::any_of(scheduling.begin(), scheduling.end(),
                      [&](const auto& t) { return t.what == Obj::Claim && t.name == claim.claim_id && t.write; }));
  }
}

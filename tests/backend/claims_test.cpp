// MemoryBackend claims: reserve / observe / release life cycle, exact audit and barrier sequences, and
// the memory-backend ALLOC cases that need no concurrency (007 config reads, 021, 022, 023).
#include "backend/model/errors.h"
#include "backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

TEST_CASE("release is generation-fenced: a wrong generation keeps the owner, the right one clears it", "[claims]") {
  MemoryBackend b({gpu_node("n1"), gpu_node("n2")}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("a", 4)}, snapshot(b, c)));
  const ClaimObservation winner = b.reserve(c, plan, "flowA:op", std::nullopt);
  CHECK(winner.claim_id == "claim-2");
  CHECK(winner.desired_generation == "gen-3");
  CHECK(winner.status == "allocated");
  CHECK(b.state().node("n1")->owner == "flowA");
  const ReleaseObservation stale = b.release(c, winner.claim_id, "flowA:old", "gen-not-current");
  CHECK(stale.status == "stale");
  CHECK(stale.remaining == std::vector<std::string>{"n1"});
  CHECK(stale.reason == "claim generation is gen-3");
  CHECK(b.state().node("n1")->owner == "flowA");
  const ReleaseObservation done = b.release(c, winner.claim_id, "flowA:op2", winner.desired_generation);
  CHECK(done.status == "released");
  CHECK(done.remaining.empty());
  CHECK_FALSE(b.state().node("n1")->owner.has_value());
  CHECK_FALSE(b.state().node("n1")->owner_epoch.has_value());
}

TEST_CASE("reserve stamps each node of its plan once, in name order, whatever order the plan lists them", "[claims]") {
  // Upstream's `sorted({d.node for ...})`: one stamp per node, taken in one global order, so two claimants of the
  // same nodes meet at the same first node.
  MemoryBackend b({gpu_node("n1"), gpu_node("n2")}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const InventorySnapshot snap = snapshot(b, c);
  const auto device = [&](const std::string& node, int ordinal) {
    for (const DeviceIdentity& d : snap.devices)
      if (d.node == node && d.ordinal == ordinal) return d;
    FAIL("no device " << node << "/" << ordinal);
    return DeviceIdentity{};
  };
  FeasiblePlan plan = feasible(b.plan(c, {req("a")}, snap));
  plan.assignments.clear();
  plan.assignments.push_back({"a", {device("n2", 0)}});
  plan.assignments.push_back({"b", {device("n1", 0)}});
  plan.assignments.push_back({"c", {device("n2", 1)}});
  const ClaimObservation claim = b.reserve(c, plan, "flowA:op", std::nullopt);
  CHECK(claim.status == "allocated");
  REQUIRE(b.state().claims.size() == 1);
  CHECK(b.state().claims[0].nodes == std::vector<std::string>{"n1", "n2"});
  CHECK(b.mutations() ==
        std::vector<Mutation>{{"flowA:op", "stamp-owner", "n1", "flowA"}, {"flowA:op", "stamp-owner", "n2", "flowA"}});
}

TEST_CASE("a release's restore answers its own write: state success at the restored version, apply landed or not",
          "[claims]") {
  // Upstream lines 464-467: the restore writes the recorded config back and, in the same write, the state
  // `success` at the node's new resourceVersion; the model has no apply for a restore.
  const double delay = GENERATE(0.0, 30.0);  // applied at once, or queued for 30 s
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityManagedMig, delay));
  SequentialCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 20)}, "flowA:op");
  const NodeFixture& n1 = *b.state().node("n1");
  CHECK(n1.mig_state == (delay > 0 ? "pending" : "success"));
  const int64_t labelled = n1.resource_version;
  CHECK(b.release(c, claim.claim_id, "flowA:release", claim.desired_generation).status == "released");
  CHECK(n1.mig_config == "all-disabled");
  CHECK(n1.mig_state == "success");
  CHECK(n1.resource_version == labelled + 2);  // the restore's write, then the stamp's clearing
  CHECK(n1.mig_state_generation == labelled + 1);
  CHECK_FALSE(n1.restore_record.has_value());
}

TEST_CASE("readiness answers its own write: Blackwell with a 30 s apply delay", "[claims]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityManagedMig, 30));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {mig_req("s1", 20)}, snapshot(b, c)));
  CHECK(plan.geometry == OrderedMap<std::string, std::string>{{"n1", "1g.24gb:1"}});
  const ClaimObservation claim = b.reserve(c, plan, "flowA:op", std::nullopt);
  CHECK(claim.status == "allocated");  // geometry written, not yet applied
  CHECK(b.state().node("n1")->mig_state == "pending");
  REQUIRE(b.state().pending_geometry.size() == 1);
  CHECK(b.state().pending_geometry[0].due == 1030.0);
  auto obs = b.observe(c, claim.claim_id);
  REQUIRE(obs.known);
  CHECK(obs.value.status == "allocated");
  CHECK(obs.generation == "gen-3");
  b.advance_clock(c, 29);
  b.apply_pending_geometry(c);
  CHECK(b.observe(c, claim.claim_id).value.status == "allocated");
  b.advance_clock(c, 2);
  b.apply_pending_geometry(c);
  CHECK(b.state().pending_geometry.empty());
  CHECK(b.observe(c, claim.claim_id).value.status == "prepared");
  CHECK(b.state().node("n1")->mig_layout == OrderedMap<std::string, int>{{"1g.24gb", 1}});
  b.mark_workload_ready(c, claim.claim_id);
  CHECK(b.observe(c, claim.claim_id).value.status == "ready");

  SECTION("a later version bump on the node makes prepared false again (backend/CONTRACT.md §8)") {
    MemoryBackend fresh({gpu_node("n1")}, opts(kAuthorityManagedMig));
    const ClaimObservation cl = plan_and_reserve(fresh, c, {mig_req("s1", 20)}, "flowA:op");
    CHECK(cl.status == "prepared");
    fresh.bind_workload(c, "n1", "flowA/s1", 1);
    CHECK(fresh.observe(c, cl.claim_id).value.status == "allocated");
  }
}

TEST_CASE("release waits for workloads, then restores and tombstones the shared map", "[claims]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 20)}, "flowA:op");
  REQUIRE(claim.evidence.size() == 1);
  const std::string entry = claim.evidence[0].mig_config;
  CHECK(entry == "videoflow-flowA-gen-3");
  REQUIRE(b.state().shared_config.size() == 1);
  CHECK(b.state().shared_config[0].first == entry);
  CHECK(b.state().pointer == "videoflow-map");

  b.bind_workload(c, "n1", "flowA/s1", 1);
  const ReleaseObservation held = b.release(c, claim.claim_id, "flowA:release", claim.desired_generation);
  CHECK(held.status == "pending_recovery");
  CHECK(held.remaining == std::vector<std::string>{"n1"});
  CHECK(held.reason == "workloads still hold the devices");
  CHECK(b.state().node("n1")->owner == "flowA");
  const ReleaseObservation kept = b.release(c, claim.claim_id, "flowA:release", claim.desired_generation, true);
  CHECK(kept.status == "pending_recovery");
  b.unbind_workload(c, "n1", "flowA/s1");
  const ReleaseObservation retained = b.release(c, claim.claim_id, "flowA:release", claim.desired_generation, true);
  CHECK(retained.status == "pending_recovery");
  CHECK(retained.reason == "workloads retained");
  CHECK(retained.remaining == std::vector<std::string>{"n1"});
  const auto before = b.mutations().size();
  CHECK(kinds(b.mutations()) ==
        std::vector<std::string>{"stamp-owner", "publish-entry", "point-policy", "record-restore", "label-geometry"});

  const ReleaseObservation done = b.release(c, claim.claim_id, "flowA:release", claim.desired_generation);
  CHECK(done.status == "released");
  CHECK(b.state().shared_config.empty());
  CHECK(b.state().shared_tombstone);
  CHECK_FALSE(b.state().shared_map_deleted);
  CHECK(b.state().pointer == "default-mig-parted-config");
  CHECK(b.state().node("n1")->mig_config == "all-disabled");
  CHECK(b.state().node("n1")->mig_layout.empty());
  CHECK_FALSE(b.state().node("n1")->owner.has_value());
  CHECK(b.state().claims.empty());
  CHECK(b.mutations().size() > before);
  CHECK(b.mutations({"delete-map"}).empty());
  const auto unknown = b.observe(c, claim.claim_id);
  CHECK_FALSE(unknown.known);
  CHECK(unknown.reason == "unreachable");
  CHECK(unknown.detail == "no claim " + claim.claim_id);
}

TEST_CASE("a full MIG reserve and release: exact audit, barriers and lock depth", "[claims]") {
  MemoryBackend b({a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig));
  HookCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
  CHECK(claim.status == "prepared");
  CHECK(b.state().claims[0].label_versions == OrderedMap<std::string, int64_t>{{"n1", 3}});
  CHECK(b.state().claims[0].op_id == "flowA:op1");
  // The evidence of readiness: n1 as the reserve left it, its config the claim's entry, applied at its version.
  REQUIRE(claim.evidence.size() == 1);
  const NodeEvidence& e = claim.evidence[0];
  CHECK(e.node == "n1");
  CHECK(e.mig_config == "videoflow-flowA-gen-3");
  CHECK(e.state == "success");
  CHECK(e.state_generation == 3);
  CHECK(e.resource_version == 3);
  CHECK(e.layout == OrderedMap<std::string, int>{{"1g.10gb", 1}});
  b.mark_workload_ready(c, claim.claim_id);
  const ReleaseObservation done = b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation);
  CHECK(done.status == "released");
  CHECK(c.depth == 0);

  const std::string entry = "videoflow-flowA-gen-3";
  CHECK(b.mutations() == std::vector<Mutation>{
                             {"flowA:op1", "stamp-owner", "n1", "flowA"},
                             {"flowA:op1", "publish-entry", entry, "{'n1': '1g.10gb:1'}"},
                             {"flowA:op1", "point-policy", "clusterpolicy", "videoflow-map"},
                             {"flowA:op1", "record-restore", "n1", "all-disabled"},
                             {"flowA:op1", "label-geometry", "n1", entry},
                             {"flowA:rel", "restore-geometry", "n1", "all-disabled"},
                             {"flowA:rel", "release-owner", "n1", "flowA"},
                             {"flowA:rel", "strip-entry", entry, ""},
                             {"flowA:rel", "restore-policy", "clusterpolicy", "default-mig-parted-config"},
                         });
  // Outside-lock barriers fire at depth 0; the ones upstream fires holding its lock at depth 1.
  CHECK(c.log == std::vector<Fired>{
                     {"owner.read.after", "node=n1 op_id=flowA:op1 version=1", 0},
                     {"owner.update.before", "node=n1 op_id=flowA:op1", 0},
                     {"owner.update.after", "node=n1 op_id=flowA:op1", 0},
                     {"claim.create.after", "claim=claim-2 op_id=flowA:op1", 1},
                     {"claim.schedule.after", "claim=claim-2 op_id=flowA:op1", 1},
                     {"claim.ready.after", "claim=claim-2", 1},
                     {"restore.before", "claim=claim-2 op_id=flowA:rel", 1},
                     {"restore.after", "claim=claim-2 op_id=flowA:rel", 1},
                     {"delete.before", "entry=" + entry + " op_id=flowA:rel seen=" + entry, 0},
                     {"delete.after", "entry=" + entry + " op_id=flowA:rel", 0},
                 });
  CHECK(c.fired.size() == c.log.size());
  // Versions: stamp (2), label (3), restore (4, state answers it), owner release (5).
  CHECK(b.state().node("n1")->resource_version == 5);
  CHECK(b.state().node("n1")->mig_state_generation == 4);
  CHECK(b.state().node("n2")->resource_version == 1);
  CHECK(b.state().shared_config_version == 3);
  CHECK(b.state().pointer_version == 3);
}

TEST_CASE("release marks the claim releasing before its first mutation", "[claims]") {
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig));
  HookCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
  std::vector<std::pair<std::string, bool>> seen;
  c.hook = [&](std::string_view name) {
    if (const Claim* live = b.state().claim(claim.claim_id)) seen.emplace_back(std::string(name), live->releasing);
  };
  SECTION("not when the config read fails") {
    b.fail_reads(c, "config");
    CHECK(b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation).status == "pending_recovery");
    CHECK_FALSE(b.state().claims[0].releasing);
  }
  SECTION("from the node loop on") {
    b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation);
    CHECK(seen == std::vector<std::pair<std::string, bool>>{{"restore.before", false},
                                                            {"restore.after", true},
                                                            {"delete.before", true},
                                                            {"delete.after", true}});
  }
}

TEST_CASE("rejected plan: zero mutations (ALLOC-001 through the planner)", "[claims]") {
  MemoryBackend b({gpu_node("n1", 2, kH100, 80.0)}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  std::vector<WorkloadRequest> layout;
  for (int i = 0; i < 4; ++i) layout.push_back(mig_req("big" + std::to_string(i), 20));
  for (int i = 0; i < 3; ++i) layout.push_back(mig_req("small" + std::to_string(i), 10));
  const Infeasible no = infeasible(b.plan(c, layout, snapshot(b, c)));
  CHECK(no.reasons == std::vector<std::string>{"n1: requested 110 GiB of MIG memory on a 80 GiB card",
                                               "n1: requested 11 memory slices on a card with 8"});
  CHECK(b.mutations().empty());
  CHECK(b.state().node("n1")->resource_version == 1);
  CHECK(b.state().pointer == "default-mig-parted-config");
  // The same demand spread over two cards is fine.
  MemoryBackend two({gpu_node("n1", 2, kH100, 80.0), gpu_node("n2", 2, kH100, 80.0)}, opts(kAuthorityManagedMig));
  const std::vector<WorkloadRequest> first(layout.begin(), layout.begin() + 4);
  CHECK(feasible(two.plan(c, first, snapshot(two, c))).geometry ==
        OrderedMap<std::string, std::string>{{"n1", "1g.20gb:4"}});
}

TEST_CASE("ALLOC-007: a config read failing at release keeps ownership, restored, release completes", "[claims]") {
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig));
  HookCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op");
  const auto written = b.mutations().size();
  b.fail_reads(c, "config");
  const ReleaseObservation held = b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation);
  CHECK(held.status == "pending_recovery");
  CHECK(held.remaining == std::vector<std::string>{"n1"});
  CHECK(held.reason == "shared configuration could not be read; ownership retained for retry");
  CHECK(c.names().back() == "restore.before");
  CHECK(b.state().node("n1")->owner == "flowA");
  CHECK(b.state().claims.size() == 1);
  CHECK(b.mutations().size() == written);
  b.fail_reads(c, "config", std::nullopt);
  CHECK(b.release(c, claim.claim_id, "flowA:rel", claim.desired_generation).status == "released");
  CHECK_FALSE(b.state().node("n1")->owner.has_value());

  SECTION("node reads failing make observe Unknown") {
    b.fail_reads(c, "nodes");
    const auto obs = b.observe(c, claim.claim_id);
    CHECK_FALSE(obs.known);
    CHECK(obs.reason == "timeout");
    CHECK(obs.detail == "node read failed");
  }
}

TEST_CASE("ALLOC-021: allocated, prepared and ready are distinct", "[claims]") {
  MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig, 5));
  HookCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op");
  CHECK(claim.status == "allocated");
  CHECK(b.observe(c, claim.claim_id).value.status == "allocated");
  SECTION("the geometry applies") {
    b.advance_clock(c, 5);
    b.apply_pending_geometry(c);
    CHECK(b.observe(c, claim.claim_id).value.status == "prepared");
    CHECK(b.observe(c, claim.claim_id).value.status == "prepared");
    b.mark_workload_ready(c, claim.claim_id);
    CHECK(b.observe(c, claim.claim_id).value.status == "ready");
  }
  SECTION("the geometry fails permanently") {
    b.fail_geometry(c, "n1");
    b.advance_clock(c, 5);
    b.apply_pending_geometry(c);
    CHECK(b.state().node("n1")->mig_state == "failed");
    CHECK(b.state().node("n1")->mig_layout.empty());
    CHECK(b.observe(c, claim.claim_id).value.status == "failed");
    b.mark_workload_ready(c, claim.claim_id);
    CHECK(b.observe(c, claim.claim_id).value.status == "failed");
  }
  const auto names = c.names();
  CHECK(std::count(names.begin(), names.end(), "claim.schedule.after") == 1);
  CHECK(std::count(names.begin(), names.end(), "claim.ready.after") == 1);
}

TEST_CASE("fail_geometry with no delay fails the claim at reserve, exclusive claims skip prepared", "[claims]") {
  MemoryBackend b({a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  b.fail_geometry(c, "n1");
  const ClaimObservation mig = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op");
  CHECK(mig.status == "failed");
  const ClaimObservation whole = plan_and_reserve(b, c, {req("w")}, "flowA:op2");
  CHECK(whole.status == "allocated");
  b.mark_workload_ready(c, whole.claim_id);
  CHECK(b.observe(c, whole.claim_id).value.status == "ready");
}

TEST_CASE("reconcile: generation-checked, desired failed forces failed", "[claims]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {req("w")}, "flowA:op");
  try {
    b.reconcile(c, claim.claim_id, "failed", "gen-9");
    FAIL("expected OwnershipConflict");
  } catch (const OwnershipConflict& e) {
    CHECK(e.message() == "claim claim-2 is at gen-3, not gen-9");
    CHECK(e.remedy() == "Observe the claim and retry with its current generation.");
  }
  CHECK(b.reconcile(c, claim.claim_id, "ready", "gen-3").status == "allocated");
  CHECK(b.reconcile(c, claim.claim_id, "failed", "gen-3").status == "failed");
  b.mark_workload_ready(c, claim.claim_id);
  CHECK(b.observe(c, claim.claim_id).value.status == "failed");
  CHECK_THROWS_AS(b.reconcile(c, "claim-99", "failed", "gen-3"), std::out_of_range);
  CHECK_THROWS_AS(b.mark_workload_ready(c, "claim-99"), std::out_of_range);
  CHECK(c.depth == 0);
}

TEST_CASE("bindings: device ids, count, hostname selector and gpu limit", "[claims]") {
  MemoryBackend b({a100_node("n1"), a100_node("n2")}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  const ClaimObservation claim = plan_and_reserve(b, c, {req("w", 2), mig_req("s", 10)}, "flowA:op");
  const WorkloadBindings whole = b.bindings(c, claim.claim_id, "w");
  CHECK(whole.env ==
        OrderedMap<std::string, std::string>{{"CUDA_VISIBLE_DEVICES", "GPU-n1-0,GPU-n1-1"}, {"VF_GPU_COUNT", "2"}});
  CHECK(whole.node_selector_hostname == "n1");
  CHECK(whole.gpu_limit == 2);
  CHECK(whole.nodes == std::vector<std::string>{"n1"});
  const WorkloadBindings slice = b.bindings(c, claim.claim_id, "s");
  CHECK(slice.env[0].second == "MIG-n2-1g.10gb-1");
  CHECK(slice.gpu_limit == 1);  // always nvidia.com/gpu, even for a MIG grant
  CHECK(slice.node_selector_hostname == "n2");
  const WorkloadBindings none = b.bindings(c, claim.claim_id, "nobody");
  CHECK(none.env == OrderedMap<std::string, std::string>{{"CUDA_VISIBLE_DEVICES", ""}, {"VF_GPU_COUNT", "0"}});
  CHECK_FALSE(none.node_selector_hostname.has_value());
  CHECK(claim.grant.size() == 3);
}

TEST_CASE("ALLOC-022: DRA reclaim of two claims of one flow on one node", "[claims]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDra));
  SequentialCaller c;
  const ClaimObservation first = plan_and_reserve(b, c, {req("w1")}, "flowA:op1");
  const ClaimObservation second = plan_and_reserve(b, c, {req("w2")}, "flowA:op2");
  CHECK(first.status == "allocated");
  CHECK(second.status == "allocated");
  CHECK(b.mutations({"stamp-owner"}).size() == 1);  // the node was already flowA's
  b.bind_workload(c, "n1", "flowA/w1", 1);
  const ReleaseObservation busy = b.release(c, first.claim_id, "flowA:rel1", first.desired_generation);
  CHECK(busy.status == "pending_recovery");
  CHECK(busy.remaining == std::vector<std::string>{"n1"});
  b.unbind_workload(c, "n1", "flowA/w1");
  CHECK(b.release(c, first.claim_id, "flowA:rel1", first.desired_generation).status == "released");
  const auto releases = b.mutations({"release-owner"});
  CHECK(releases == std::vector<Mutation>{{"flowA:rel1", "release-owner", "n1", "flowA"}});
  const ReleaseObservation again = b.release(c, first.claim_id, "flowA:rel1", first.desired_generation);
  CHECK(again.status == "released");
  CHECK(again.reason == "already released");
  CHECK(again.remaining.empty());
  CHECK(b.mutations({"release-owner"}) == releases);
  const auto other = b.observe(c, second.claim_id);
  REQUIRE(other.known);
  CHECK(other.value.status == "allocated");
  CHECK(other.value.grant.size() == 1);
  // Seed quirk (reported): the second claim never stamped, so the first one's release left it unowned.
  CHECK_FALSE(b.state().node("n1")->owner.has_value());
}

TEST_CASE("ALLOC-023: a stale plan is refused before any write, a fresh one is reserved", "[claims]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("w")}, snapshot(b, c)));
  b.bind_workload(c, "n1", "foreign", 1);  // bumps n1 after planning
  try {
    b.reserve(c, plan, "flowA:op", plan.snapshot_generation);
    FAIL("expected OwnershipConflict");
  } catch (const OwnershipConflict& e) {
    CHECK(e.message() == "the inventory changed since the plan was made (generation 1 -> 2); nothing was reserved");
    CHECK(std::string(e.what()) == e.message() + " Re-plan against the current inventory.");
    CHECK(e.node().empty());
  }
  CHECK(b.mutations().empty());
  CHECK(b.state().claims.empty());
  CHECK(b.state().node("n1")->resource_version == 2);
  CHECK(c.counter == 1);  // no claim or generation id drawn
  // Positive control.
  const ClaimObservation claim = plan_and_reserve(b, c, {req("w")}, "flowA:op");
  CHECK(claim.status == "allocated");
  CHECK(b.state().node("n1")->owner == "flowA");
}

TEST_CASE("capabilities per authority (backend/CONTRACT.md §8)", "[claims]") {
  const auto caps = [](const char* authority) { return MemoryBackend({}, opts(authority)).capabilities(); };
  const AllocationCapabilities managed = caps(kAuthorityManagedMig);
  CHECK(managed.adapter == "memory-managed-mig");
  CHECK(managed.authority == "managed-mig");
  CHECK(managed.isolated_mig);
  CHECK_FALSE(managed.cooperative_sharing);
  CHECK(managed.memory_enforcement == "hardware");
  CHECK_FALSE(managed.elastic);
  CHECK(managed.multi_device);
  CHECK_FALSE(managed.topology_verification);
  CHECK(managed.admission_boundary);
  const AllocationCapabilities dra = caps(kAuthorityDra);
  CHECK(dra.isolated_mig);
  CHECK(dra.memory_enforcement == "hardware");
  CHECK(dra.elastic);
  const AllocationCapabilities local = caps(kAuthorityLocal);
  CHECK_FALSE(local.isolated_mig);
  CHECK(local.cooperative_sharing);
  CHECK(local.memory_enforcement == "none");
  const AllocationCapabilities plugin = caps(kAuthorityDevicePlugin);
  CHECK(plugin.adapter == "memory-device-plugin");
  CHECK_FALSE(plugin.isolated_mig);
  CHECK(plugin.memory_enforcement == "accounting");
  CHECK(plugin.elastic);
}

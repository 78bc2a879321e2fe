// MemoryBackend::inventory and ::plan: partial inventories, MIG sharers, sharing classes (ALLOC-009),
// per-host fragmentation (ALLOC-010) and upstream's exact reasons.
#include "backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace {
const std::string kOccupancyUnknown = "occupancy unknown: the pod listing failed, so no device can be assumed idle";

NodeFixture labelled(std::string name, Labels labels, int count = 2) {
  NodeFixture n = gpu_node(std::move(name), count, kA100, 80.0);
  n.labels = std::move(labels);
  return n;
}
}  // namespace

TEST_CASE("inventory: devices, occupancy, sharing, owners and generation in scenario order", "[plan]") {
  std::vector<NodeFixture> nodes = {gpu_node("n2", 2), gpu_node("n1", 1)};
  nodes[0].owner = "flowB";
  nodes[0].resource_version = 5;
  put_in(nodes[1].workloads, std::string("foreign"), 1);
  MemoryBackend b(nodes, opts(kAuthorityManagedMig));
  SequentialCaller c;
  const auto obs = b.inventory(c, std::nullopt);
  REQUIRE(obs.known);
  const InventorySnapshot& s = obs.value;
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0] == DeviceIdentity{"n2", 0, "GPU-n2-0", std::nullopt, kBlackwell, 96 * kGiB, std::nullopt});
  CHECK(s.devices[2].uuid == "GPU-n1-0");
  CHECK(s.occupancy == OrderedMap<std::string, int>{{"n2", 0}, {"n1", 1}});
  CHECK(s.sharing == OrderedMap<std::string, std::string>{{"n2", "physical"}, {"n1", "physical"}});
  CHECK(s.owners == OrderedMap<std::string, std::string>{{"n2", "flowB"}});
  CHECK(s.completeness == "complete");
  CHECK(s.generation == "6");
  CHECK(obs.generation == "6");
  CHECK(s.observed_at == 1000.0);
  // A scope sums only its own nodes' versions.
  const auto scoped = b.inventory(c, std::vector<std::string>{"n1"});
  REQUIRE(scoped.known);
  CHECK(scoped.value.devices.size() == 1);
  CHECK(scoped.value.generation == "1");
  CHECK(c.depth == 0);
}

TEST_CASE("ALLOC-007: failed pod reads give a partial inventory and an infeasible plan, zero mutations", "[plan]") {
  std::vector<NodeFixture> nodes = {gpu_node("n1")};
  put_in(nodes[0].workloads, std::string("foreign/w"), 1);
  MemoryBackend b(nodes, opts(kAuthorityManagedMig));
  SequentialCaller c;
  b.fail_reads(c, "pods");
  const auto obs = b.inventory(c, std::nullopt);
  REQUIRE(obs.known);
  CHECK(obs.value.completeness == "partial");
  CHECK(obs.value.occupancy.empty());
  for (const auto& requests :
       {std::vector<WorkloadRequest>{req("w")}, std::vector<WorkloadRequest>{mig_req("s", 10)}}) {
    const Infeasible no = infeasible(b.plan(c, requests, obs.value));
    CHECK(no.reasons == std::vector<std::string>{kOccupancyUnknown});
  }
  CHECK(b.mutations().empty());
  CHECK(b.state().nodes[0].workloads == OrderedMap<std::string, int>{{"foreign/w", 1}});
  CHECK(c.counter == 0);  // an infeasible plan draws no id

  SECTION("node reads failing make the inventory itself Unknown") {
    b.fail_reads(c, "nodes", "unreachable");
    const auto none = b.inventory(c, std::nullopt);
    CHECK_FALSE(none.known);
    CHECK(none.reason == "unreachable");
    CHECK(none.detail == "node listing failed");
  }
  SECTION("a complete snapshot shows the foreign occupancy and still refuses a full node") {
    b.fail_reads(c, "pods", std::nullopt);
    b.bind_workload(c, "n1", "foreign/w", 4);
    const InventorySnapshot s = snapshot(b, c);
    CHECK(s.occupancy == OrderedMap<std::string, int>{{"n1", 4}});
    const Infeasible no = infeasible(b.plan(c, {req("w")}, s));
    CHECK(no.reasons == std::vector<std::string>{"no per-host packing places every whole-device request on one node "
                                                 "(free per node: {'n1': 0}; excluded: none)"});
    CHECK(b.mutations().empty());
  }
}

TEST_CASE("plan: a MIG sharer gets the smallest profile and a sorted layout string", "[plan]") {
  MemoryBackend b({gpu_node("n1")}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {mig_req("s1", 20)}, snapshot(b, c)));
  CHECK(plan.geometry == OrderedMap<std::string, std::string>{{"n1", "1g.24gb:1"}});
  REQUIRE(plan.assignments.size() == 1);
  CHECK(plan.assignments[0].first == "s1");
  CHECK(plan.assignments[0].second == std::vector<DeviceIdentity>{{"n1", std::nullopt, std::nullopt, "MIG-n1-1g.24gb-1",
                                                                   kBlackwell, 24 * kGiB, "1g.24gb"}});
  CHECK(plan.plan_id == "plan-1");
  CHECK(plan.snapshot_generation == "1");
  CHECK(plan.notes.empty());
}

TEST_CASE("plan: all MIG sharers of a plan go to the first free node in insertion order", "[plan]") {
  // n2 comes first in the scenario, so it is the MIG node although n1 sorts first.
  MemoryBackend b({a100_node("n2"), a100_node("n1")}, opts(kAuthorityManagedMig));
  SequentialCaller c;
  const FeasiblePlan plan =
      feasible(b.plan(c, {mig_req("s1", 10), mig_req("s2", 20), mig_req("s3", 10), req("whole")}, snapshot(b, c)));
  // The whole-device request packs onto n1 (hosts sorted), the sharers take n2.
  CHECK(plan.geometry == OrderedMap<std::string, std::string>{{"n2", "1g.10gb:2,1g.20gb:1"}});
  REQUIRE(plan.assignments.size() == 4);
  CHECK(plan.assignments[0].first == "whole");
  CHECK(plan.assignments[0].second[0].uuid == "GPU-n1-0");
  CHECK(plan.assignments[1].second[0].mig_uuid == "MIG-n2-1g.10gb-1");
  CHECK(plan.assignments[2].second[0].mig_uuid == "MIG-n2-1g.20gb-1");
  CHECK(plan.assignments[3].second[0].mig_uuid == "MIG-n2-1g.10gb-2");
}

TEST_CASE("plan: whole devices are taken in order without reuse within a plan", "[plan]") {
  MemoryBackend b({gpu_node("n1", 3)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("a"), req("b", 2)}, snapshot(b, c)));
  REQUIRE(plan.assignments.size() == 2);
  CHECK(plan.assignments[0].first == "b");  // widest first
  CHECK(plan.assignments[0].second.size() == 2);
  CHECK(plan.assignments[0].second[1].uuid == "GPU-n1-1");
  CHECK(plan.assignments[1].second.size() == 1);
  CHECK(plan.assignments[1].second[0].uuid == "GPU-n1-2");
  CHECK(plan.geometry.empty());
}

TEST_CASE("plan: a plan over another device list than the last one's indexes that list afresh", "[plan]") {
  // The plan keeps its index of the last snapshot's device list and builds it again for another list. Here the
  // second list is longer (n3's and n2's devices, then n1's four), so any part of the first index left over would
  // map n1's devices to the wrong nodes, or rank the nodes for packing in another order than their names'.
  MemoryBackend b({gpu_node("n3", 1), gpu_node("n2", 2), gpu_node("n1", 4)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const auto scoped = b.inventory(c, std::vector<std::string>{"n3", "n2"});
  REQUIRE(scoped.known);
  const FeasiblePlan first = feasible(b.plan(c, {req("a", 2)}, scoped.value));
  REQUIRE(first.assignments.size() == 1);
  CHECK(first.assignments[0].second.size() == 2);
  CHECK(first.assignments[0].second[0].uuid == "GPU-n2-0");
  const FeasiblePlan whole = feasible(b.plan(c, {req("b", 4)}, snapshot(b, c)));
  REQUIRE(whole.assignments.size() == 1);
  std::vector<std::string> uuids;
  for (const auto& d : whole.assignments[0].second) uuids.push_back(d.uuid.value_or("-"));
  CHECK(uuids == std::vector<std::string>{"GPU-n1-0", "GPU-n1-1", "GPU-n1-2", "GPU-n1-3"});
  const FeasiblePlan two = feasible(b.plan(c, {req("c", 2)}, snapshot(b, c)));
  REQUIRE(two.assignments.size() == 1);
  CHECK(two.assignments[0].second[0].uuid == "GPU-n1-0");  // names in byte order: n1 packs first
}

TEST_CASE("plan: after another device list, the first node by name still packs first", "[plan]") {
  // Pool order n2, n1, n3. The first list (n2, n3) gives n2 index 0 and n3 index 1; the whole pool gives n1 index
  // 1, so a rank left from the first list (n3's, 1) would tie n1 with n2 and let pool order put n2 first.
  MemoryBackend b({gpu_node("n2", 2), gpu_node("n1", 2), gpu_node("n3", 2)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const auto scoped = b.inventory(c, std::vector<std::string>{"n2", "n3"});
  REQUIRE(scoped.known);
  CHECK(feasible(b.plan(c, {req("a")}, scoped.value)).assignments[0].second[0].uuid == "GPU-n2-0");
  CHECK(feasible(b.plan(c, {req("b")}, snapshot(b, c))).assignments[0].second[0].uuid == "GPU-n1-0");
}

TEST_CASE("plan: node names that agree in their first 8 bytes are told apart by the whole name", "[plan]") {
  // The plan's node index compares a name's first 8 bytes as a number first (backend/model/name_head.h); cloud node
  // names agree there, so the rest of the name must decide.
  MemoryBackend b({gpu_node("gpu-node-01", 1), gpu_node("gpu-node-02", 2), gpu_node("gpu-node-03", 3)},
                  opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("a", 2), req("b", 3)}, snapshot(b, c)));
  std::vector<std::string> granted;
  for (const auto& [workload, devices] : plan.assignments)
    for (const auto& d : devices) granted.push_back(workload + "@" + d.uuid.value_or("-"));
  CHECK(granted == std::vector<std::string>{"b@GPU-gpu-node-03-0", "b@GPU-gpu-node-03-1", "b@GPU-gpu-node-03-2",
                                            "a@GPU-gpu-node-02-0", "a@GPU-gpu-node-02-1"});
}

TEST_CASE("plan: sharer reasons worded as upstream's", "[plan]") {
  SequentialCaller c;
  SECTION("an authority without MIG") {
    MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDevicePlugin));
    CHECK(infeasible(b.plan(c, {mig_req("s", 10)}, snapshot(b, c))).reasons ==
          std::vector<std::string>{"device-plugin cannot provide isolated MIG slices"});
  }
  SECTION("no profile large enough, GiB printed with %g") {
    MemoryBackend b({gpu_node("n1")}, opts(kAuthorityDra));
    WorkloadRequest big = mig_req("s", 0);
    big.minimum_usable_memory_bytes = 200 * kGiB + kGiB / 2;
    CHECK(infeasible(b.plan(c, {big}, snapshot(b, c))).reasons ==
          std::vector<std::string>{"no MIG profile on " + kBlackwell + " holds 200.5 GiB"});
  }
  SECTION("no free card") {
    std::vector<NodeFixture> nodes = {gpu_node("n1", 1)};
    put_in(nodes[0].workloads, std::string("foreign"), 1);
    MemoryBackend b(nodes, opts(kAuthorityManagedMig));
    CHECK(infeasible(b.plan(c, {mig_req("s", 10)}, snapshot(b, c))).reasons ==
          std::vector<std::string>{"no free card for MIG sharer s"});
  }
  SECTION("the sharers' combined layout breaks the card") {
    MemoryBackend b({a100_node("n1")}, opts(kAuthorityManagedMig));
    std::vector<WorkloadRequest> five;
    for (int i = 0; i < 5; ++i) five.push_back(mig_req("s" + std::to_string(i), 20));
    CHECK(infeasible(b.plan(c, five, snapshot(b, c))).reasons ==
          std::vector<std::string>{"n1: requested 100 GiB of MIG memory on a 80 GiB card",
                                   "n1: requested 10 memory slices on a card with 8",
                                   "n1: 5 x 1g.20gb exceeds the 4 instances the card allows"});
  }
  CHECK(c.counter == 0);
}

TEST_CASE("plan: another flow's node is excluded and noted", "[plan]") {
  std::vector<NodeFixture> nodes = {gpu_node("n1", 1), gpu_node("n2", 1)};
  nodes[0].owner = "flowB";
  MemoryBackend b(nodes, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const FeasiblePlan plan = feasible(b.plan(c, {req("w")}, snapshot(b, c)));
  CHECK(plan.assignments[0].second[0].node == "n2");
  CHECK(plan.notes == std::vector<std::string>{"n1: owned by flowB"});
  // flowB itself may plan there.
  const FeasiblePlan theirs = feasible(b.plan(c, {req("w", 1, "flowB")}, snapshot(b, c)));
  CHECK(theirs.assignments[0].second[0].node == "n1");
  CHECK(theirs.notes.empty());
}

TEST_CASE("ALLOC-009: MPS, time-sliced, MIG and unlabeled nodes are recognised and never planned on", "[plan]") {
  const Labels phys = {{"nvidia.com/gpu.product", kA100}, {"nvidia.com/gpu.count", "2"}};
  const Labels mps = {{"nvidia.com/gpu.product", kA100}, {"nvidia.com/gpu.sharing-strategy", "mps"}};
  const Labels ts = {{"nvidia.com/gpu.product", kA100}, {"nvidia.com/gpu.replicas", "4"}};
  const Labels mig = {{"nvidia.com/gpu.product", kA100 + "-MIG-1g.10gb"},
                      {"nvidia.com/mig.strategy", "single"},
                      {"nvidia.com/mig.capable", "true"}};
  MemoryBackend b({labelled("mps", mps), labelled("phys", phys), labelled("ts", ts), labelled("mig", mig),
                   labelled("bare", {})},
                  opts(kAuthorityManagedMig));
  SequentialCaller c;
  const InventorySnapshot s = snapshot(b, c);
  CHECK(s.sharing == OrderedMap<std::string, std::string>{{"mps", "mps"},
                                                          {"phys", "physical"},
                                                          {"ts", "time-sliced"},
                                                          {"mig", "mig"},
                                                          {"bare", "unknown"}});
  const FeasiblePlan plan = feasible(b.plan(c, {req("w", 2)}, s));
  for (const auto& d : plan.assignments[0].second) CHECK(d.node == "phys");
  const std::string tail = " \u2014 its units are shares or slices, not whole devices";
  CHECK(plan.notes == std::vector<std::string>{"mps: mps" + tail, "ts: time-sliced" + tail, "mig: mig" + tail,
                                               "bare: unknown" + tail});
  // MIG sharers also skip them: the first free node is the physical one.
  const FeasiblePlan sharer = feasible(b.plan(c, {mig_req("s", 10)}, s));
  CHECK(sharer.geometry == OrderedMap<std::string, std::string>{{"phys", "1g.10gb:1"}});

  SECTION("a shares-only pool is infeasible and nothing is written") {
    MemoryBackend shares({labelled("s1", mps), labelled("s2", ts)}, opts(kAuthorityManagedMig));
    const Infeasible no = infeasible(shares.plan(c, {req("w")}, snapshot(shares, c)));
    CHECK(no.reasons == std::vector<std::string>{
                            "no per-host packing places every whole-device request on one node (free per node: {}; "
                            "excluded: ['s1: mps" +
                            tail + "', 's2: time-sliced" + tail + "'])"});
    CHECK(infeasible(shares.plan(c, {mig_req("s", 10)}, snapshot(shares, c))).reasons ==
          std::vector<std::string>{"no free card for MIG sharer s"});
    CHECK(shares.mutations().empty());
  }
}

TEST_CASE("ALLOC-010: per-host fragmentation makes three requests of two infeasible on 3+3", "[plan]") {
  SequentialCaller c;
  const std::vector<WorkloadRequest> three = {req("a", 2), req("b", 2), req("c", 2)};
  MemoryBackend frag({gpu_node("h1", 3), gpu_node("h2", 3)}, opts(kAuthorityDevicePlugin));
  const Infeasible no = infeasible(frag.plan(c, three, snapshot(frag, c)));
  CHECK(no.reasons == std::vector<std::string>{"no per-host packing places every whole-device request on one node "
                                               "(free per node: {'h1': 3, 'h2': 3}; excluded: none)"});
  CHECK(frag.mutations().empty());
  // Positive controls.
  CHECK(feasible(frag.plan(c, {req("a", 2), req("b", 2)}, snapshot(frag, c))).assignments.size() == 2);
  MemoryBackend even({gpu_node("h1", 2), gpu_node("h2", 2), gpu_node("h3", 2)}, opts(kAuthorityDevicePlugin));
  const FeasiblePlan plan = feasible(even.plan(c, three, snapshot(even, c)));
  CHECK(plan.assignments[2].second[0].node == "h3");
}

namespace {
/// "" when the two outcomes are equal field by field, else the first field that differs.
std::string outcome_difference(const PlanOutcome& a, const PlanOutcome& b) {
  if (a.index() != b.index()) return "feasibility";
  if (const auto* x = std::get_if<Infeasible>(&a))
    return x->reasons == std::get<Infeasible>(b).reasons ? "" : "reasons";
  const auto& p = std::get<FeasiblePlan>(a);
  const auto& q = std::get<FeasiblePlan>(b);
  if (p.assignments != q.assignments) return "assignments";
  if (p.geometry != q.geometry) return "geometry";
  if (p.snapshot_generation != q.snapshot_generation) return "snapshot_generation";
  if (p.plan_id != q.plan_id) return "plan_id";
  if (p.notes != q.notes) return "notes";
  return "";
}
}  // namespace

TEST_CASE("plan_into over earlier plans' storage equals plan(): larger, smaller, infeasible, and back", "[plan]") {
  // Long names, so that reused strings hold heap buffers; n1 is another flow's (an exclusion note).
  NodeFixture owned = gpu_node("n1-owned-by-another-flow");
  owned.owner = "flowB";
  MemoryBackend b({owned, gpu_node("n2-a-node-with-a-long-name"), gpu_node("n3-another-long-named-node", 2)},
                  opts(kAuthorityManagedMig));
  SequentialCaller into_caller, fresh_caller;
  const InventorySnapshot snap = snapshot(b, into_caller);
  fresh_caller.counter = into_caller.counter;
  const std::vector<std::vector<WorkloadRequest>> sequence = {
      {req("trainer-with-a-long-workload-id", 2), req("w2", 1), mig_req("sharer-one-with-a-long-id", 20),
       mig_req("s2", 20)},
      {req("only-one", 1)},
      {},
      {req("too-wide-for-any-node", 5)},
      {mig_req("s2", 20), req("w2", 3)},
      {req("trainer-with-a-long-workload-id", 2), req("w2", 1), mig_req("sharer-one-with-a-long-id", 20),
       mig_req("s2", 20)},
      {req("w2", 1), mig_req("w2", 20)},  // one workload id twice: the sharer's entry replaces the device's
  };
  PlanOutcome reused;
  for (size_t i = 0; i < sequence.size(); ++i) {
    INFO("request set " << i);
    b.plan_into(into_caller, sequence[i], snap, reused);
    CHECK(outcome_difference(reused, b.plan(fresh_caller, sequence[i], snap)) == "");
  }
  // The sequence reached every branch it is meant to: MIG geometry, an exclusion, and an infeasible plan.
  CHECK(feasible(b.plan(fresh_caller, sequence[0], snap)).geometry.size() == 1);
  CHECK(feasible(b.plan(fresh_caller, sequence[0], snap)).notes.size() == 1);
  CHECK(infeasible(b.plan(fresh_caller, sequence[3], snap)).reasons.size() == 1);
}

// plan_into finds a node's entries by name through a sorted index (memory_backend.cpp index_by_name), with a
// fast path for a snapshot in node order; a hand-made snapshot out of that order takes the other paths, and
// must read as upstream's dicts do: a node's devices wherever they are listed, the first map entry per name.
TEST_CASE("plan: a snapshot out of node order reads as dicts (devices interleaved, first entry per name)", "[plan]") {
  MemoryBackend b({gpu_node("n1", 2), gpu_node("n2", 1), gpu_node("n3", 1)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  InventorySnapshot s = snapshot(b, c);
  REQUIRE(s.devices.size() == 4);
  std::vector<DeviceIdentity> devices = s.devices.items();
  std::swap(devices[1], devices[2]);  // n1#0, n2#0, n1#1, n3#0: n1's two devices apart
  s.devices = DeviceTuple(std::move(devices));
  s.owners = {{"n3", "flowB"}, {"n3", "flowA"}, {"n9", "flowB"}};  // the first n3 entry counts; n9 has no devices
  s.sharing = {{"n2", "mps"}, {"n1", "physical"}, {"n2", "physical"}, {"n3", "physical"}};
  s.occupancy = {{"n3", 0}, {"n2", 0}, {"n1", 1}, {"n1", 0}};
  SECTION("the node with one free device of two cannot take two") {
    const Infeasible no = infeasible(b.plan(c, {req("w", 2)}, s));
    CHECK(no.reasons == std::vector<std::string>{
                            "no per-host packing places every whole-device request on one node (free per node: "
                            "{'n1': 1}; excluded: ['n2: mps \u2014 its units are shares or slices, not whole devices', "
                            "'n3: owned by flowB'])"});
  }
  SECTION("one device: n1's, its first listed one") {
    const FeasiblePlan plan = feasible(b.plan(c, {req("w", 1)}, s));
    REQUIRE(plan.assignments.size() == 1);
    REQUIRE(plan.assignments[0].second.size() == 1);
    CHECK(plan.assignments[0].second[0].uuid == "GPU-n1-0");
    CHECK(plan.notes == std::vector<std::string>{"n2: mps \u2014 its units are shares or slices, not whole devices",
                                                 "n3: owned by flowB"});
  }
}

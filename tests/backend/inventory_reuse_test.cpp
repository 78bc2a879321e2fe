// What inventory and plan keep between calls so that a step's cost does not grow with the nodes it leaves alone
// (docs/DESIGN.md §5, "Per-node cost of inventory and plan"): the shared device list (DeviceTuple), the labels' stamps
// (StampedLabels) under the classification memo, and a caller that records no reads (Caller::records_reads).
#include <catch2/catch.hpp>

#include <utility>

#include "backend_fixtures.h"

using namespace allocsim::backend;
using namespace allocsim::backend::testing;

namespace {

/// A HookCaller that says it records no reads, as the simulator's does when nothing keeps footprints.
class WritesOnlyCaller : public HookCaller {
 public:
  WritesOnlyCaller() { records_reads_ = false; }
};

size_t node_reads(const HookCaller& c) {
  size_t n = 0;
  for (const auto& t : c.touches) n += t.what == Obj::Node && !t.write;
  return n;
}

}  // namespace

TEST_CASE("inventory: every unscoped inventory hands out one device list, a scope its own", "[plan]") {
  MemoryBackend b({gpu_node("n1", 2), gpu_node("n2", 1)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const InventorySnapshot one = snapshot(b, c);
  const InventorySnapshot two = snapshot(b, c);
  REQUIRE(one.devices.size() == 3);
  CHECK(one.devices.same_list(two.devices));

  const auto n2 = b.inventory(c, std::vector<std::string>{"n2"});
  REQUIRE(n2.known);
  CHECK_FALSE(n2.value.devices.same_list(one.devices));
  CHECK(n2.value.devices == DeviceTuple{one.devices[2]});
  CHECK(b.inventory(c, std::vector<std::string>{"n2"}).value.devices.same_list(n2.value.devices));
  const auto n1 = b.inventory(c, std::vector<std::string>{"n1"});  // another scope: built again
  CHECK(n1.value.devices == DeviceTuple{one.devices[0], one.devices[1]});

  MemoryBackend copy = b;  // the same nodes: the same list
  CHECK(snapshot(copy, c).devices.same_list(one.devices));
  // Equality is by devices; identity (what plan_into's index is keyed on) is not.
  const DeviceTuple rebuilt(one.devices.items());
  CHECK(rebuilt == one.devices);
  CHECK_FALSE(rebuilt.same_list(one.devices));
  CHECK(DeviceTuple() == DeviceTuple(std::vector<DeviceIdentity>{}));
  CHECK(DeviceTuple().empty());
}

TEST_CASE("plan: a plan on a rebuilt device list reads the list it is given, not the last one indexed", "[plan]") {
  MemoryBackend b({gpu_node("n1", 1), gpu_node("n2", 1)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const InventorySnapshot original = snapshot(b, c);
  CHECK(feasible(b.plan(c, {req("w", 1)}, original)).assignments[0].second[0].uuid == "GPU-n1-0");
  // The nodes listed the other way round, n1's device in use: the packing takes n2's, found through the new
  // list's own index (the last one indexed lists n1's device first).
  InventorySnapshot swapped = original;
  swapped.devices = DeviceTuple{original.devices[1], original.devices[0]};
  swapped.occupancy = {{"n2", 0}, {"n1", 1}};
  swapped.sharing = {{"n2", "physical"}, {"n1", "physical"}};
  CHECK(feasible(b.plan(c, {req("w", 1)}, swapped)).assignments[0].second[0].uuid == "GPU-n2-0");
  CHECK(feasible(b.plan(c, {req("w", 1)}, original)).assignments[0].second[0].uuid == "GPU-n1-0");
}

// The packing tries hosts in name order (upstream's `sorted(remaining)`), which plan_into reads off its node
// index: byte order of the whole names, whatever the scenario's order and wherever the names first differ.
TEST_CASE("plan: whole devices go to the first free node in name order, not scenario order", "[plan]") {
  // The last two share their first 8 bytes (the index's head): the rest of the name decides between them.
  MemoryBackend b({gpu_node("b1", 1), gpu_node("a2", 1), gpu_node("a10", 1), gpu_node("rack-07-z", 2),
                   gpu_node("rack-07-y", 2)},
                  opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  const auto first_node = [&](int devices) {
    return *feasible(b.plan(c, {req("w", devices)}, snapshot(b, c))).assignments[0].second[0].node;
  };
  CHECK(first_node(1) == "a10");  // a10 < a2 < b1 < rack-07-y < rack-07-z
  CHECK(first_node(2) == "rack-07-y");
  put_in(b.mutable_state().nodes[2].workloads, std::string("busy"), 1);  // a10 full
  CHECK(first_node(1) == "a2");
}

TEST_CASE("StampedLabels: equal stamps mean equal labels, through edits, copies, assignments and moves", "[plan]") {
  StampedLabels a(Labels{{"k", "v"}});
  const uint64_t first = a.stamp();
  CHECK(first != 0);
  CHECK(StampedLabels(Labels{}).stamp() == 0);  // no labels
  StampedLabels b = a;
  CHECK(b.stamp() == first);
  CHECK(b.get() == a.get());
  b.edit().clear();
  CHECK(b.stamp() != first);
  CHECK(a.stamp() == first);
  StampedLabels moved = std::move(a);
  CHECK(moved.stamp() == first);
  CHECK(a.stamp() == 0);  // NOLINT(bugprone-use-after-move): a moved-from value is empty, under stamp 0
  CHECK(a.get().empty());
  StampedLabels assigned;
  assigned = Labels{{"k", "v"}};  // the same labels as `a` had, but written anew: a new stamp
  CHECK(assigned.stamp() != first);
  CHECK(assigned.stamp() != b.stamp());
}

// inventory memoises each node's label classification (MemoryBackend::labels_class) under the labels' stamp:
// labels written since, or put back from a copy (a read fault's stale view), read as what they are.
TEST_CASE("inventory: a node whose labels changed since the last inventory is classified by the new ones", "[plan]") {
  MemoryBackend b({gpu_node("n1", 1), gpu_node("n2", 1)}, opts(kAuthorityDevicePlugin));
  SequentialCaller c;
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "physical"}});
  const std::vector<NodeFixture> before = b.state().nodes;
  put_in(b.mutable_state().nodes[1].labels.edit(), std::string("nvidia.com/gpu.sharing-strategy"), std::string("mps"));
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "mps"}});
  b.mutable_state().nodes[1].labels.edit().clear();
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "unknown"}});
  b.mutable_state().nodes[1].labels = before[1].labels;
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "physical"}});
  b.mutable_state().nodes[1].labels = Labels{};  // no labels: stamp 0, which the memo must not take for its own
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "unknown"}});
  b.mutable_state().nodes = before;
  CHECK(snapshot(b, c).sharing == OrderedMap<std::string, std::string>{{"n1", "physical"}, {"n2", "physical"}});
}

TEST_CASE("a caller that records no reads gets no per-node reads from inventory or reserve, and every write",
          "[plan]") {
  const auto run = [](HookCaller& c) {
    MemoryBackend b({gpu_node("n1", 1), gpu_node("n2", 1), gpu_node("n3", 1)}, opts(kAuthorityDevicePlugin));
    const FeasiblePlan p = feasible(b.plan(c, {req("w", 1)}, snapshot(b, c)));
    (void)b.reserve(c, p, "flowA:op1", p.snapshot_generation);
  };
  HookCaller all;
  WritesOnlyCaller writes;
  run(all);
  run(writes);
  CHECK(all.records_reads());
  CHECK_FALSE(writes.records_reads());
  CHECK(node_reads(all) >= 6);  // inventory's three and the generation check's three, at least
  CHECK(node_reads(writes) == node_reads(all) - 6);
  const auto written = [](const HookCaller& c) {
    std::vector<std::pair<Obj, std::string>> out;
    for (const auto& t : c.touches)
      if (t.write) out.emplace_back(t.what, t.name);
    return out;
  };
  CHECK_FALSE(written(all).empty());
  CHECK(written(writes) == written(all));
}

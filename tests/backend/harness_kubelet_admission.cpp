// A pod's resource and its claim (docs/DESIGN.md §4; backend/world/kubelet_admission.h,
// backend/ops/op_environment.cpp): what each node advertises, each refusal with its note, the rebinding and
// unbinding of a pod's resource, the footprints only scenarios with such a bind touch, and capacity-within-cards
// leaving MIG-slice pods out of cards.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "backend/world/kubelet_admission.h"
#include "backend/world/object_ids.h"
#include "in_order_run.h"

namespace kubelet_admission_test {

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;

namespace {

/// One A100-80GB node n1 with `cards` cards, under managed-mig (applies 5 s after the write) and `strategy`.
std::string mig_node(int cards, const std::string& strategy, const std::string& actors) {
  return fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "kubelet",
    "backend": {{ "authority": "managed-mig", "mig_apply_seconds": 5 }},
    "nodes": [ {{ "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": {0}, "memory_gib": 80,
      "labels": {{ "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "{0}",
        "nvidia.com/mig.capable": "true", "nvidia.com/mig.strategy": "{1}", "nvidia.com/mig.config": "all-disabled",
        "nvidia.com/mig.config.state": "success" }} }} ],
    "actors": [ {2} ] }})",
                     cards, strategy, actors);
}

/// flowA: a 1g.10gb slice, carved and ready, then `binds` (JSON ops, comma-separated).
std::string mig_flow(const std::string& binds) {
  return R"({ "name": "flowA", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "sharing": "isolated_mig", "minimum_usable_memory_gib": 10 } ] },
      { "op": "advance_clock", "seconds": 5 }, { "op": "await", "status": "prepared" }, { "op": "mark_ready" }, )" +
         binds + " ] }";
}

backend::NodeFixture node(int cards, OrderedMap<std::string, int> layout, std::string strategy) {
  backend::NodeFixture n;
  n.name = "n1";
  n.gpu_count = cards;
  n.mig_layout = std::move(layout);
  if (!strategy.empty()) n.labels = backend::Labels{{"nvidia.com/mig.strategy", strategy}};
  return n;
}

}  // namespace

TEST_CASE("kubelet admission: what a node advertises, by its layout and MIG strategy", "[kubelet]") {
  const auto gpu = kWholeCardResource;
  CHECK(advertised(node(4, {}, "mixed"), gpu) == 4);  // rule 1: an empty layout is whole cards
  CHECK(advertised(node(4, {}, "mixed"), "nvidia.com/mig-1g.10gb") == 0);
  CHECK(advertised(node(1, {{"1g.10gb", 3}, {"2g.20gb", 1}}, "mixed"), gpu) == 0);  // rule 3
  CHECK(advertised(node(1, {{"1g.10gb", 3}, {"2g.20gb", 1}}, "mixed"), "nvidia.com/mig-1g.10gb") == 3);
  CHECK(advertised(node(1, {{"1g.10gb", 3}, {"2g.20gb", 1}}, ""), "nvidia.com/mig-2g.20gb") == 1);  // none named
  CHECK(advertised(node(1, {{"1g.10gb", 3}, {"2g.20gb", 1}}, "mixed"), "nvidia.com/mig-3g.40gb") == 0);
  CHECK(advertised(node(1, {{"1g.10gb", 3}, {"2g.20gb", 1}}, "single"), gpu) == 4);  // rule 2: every slice
  CHECK(advertised(node(1, {{"1g.10gb", 3}}, "single"), "nvidia.com/mig-1g.10gb") == 0);
  CHECK(advertised(node(2, {{"1g.10gb", 3}}, "none"), gpu) == 2);  // rule 1: MIG devices not exposed
  CHECK(advertised(node(2, {{"1g.10gb", 3}}, "none"), "nvidia.com/mig-1g.10gb") == 0);
  CHECK(advertises_slices(node(1, {{"1g.10gb", 3}}, "single"), gpu));
  CHECK_FALSE(advertises_slices(node(1, {{"1g.10gb", 3}}, "mixed"), gpu));
  CHECK_FALSE(advertises_slices(node(1, {}, "single"), gpu));
  CHECK(advertises_slices(node(1, {}, "mixed"), "nvidia.com/mig-1g.10gb"));

  PodResources pods;
  pods.bind("n1", "w2", "nvidia.com/mig-1g.10gb", true);
  pods.bind("n1", "w1", "nvidia.com/mig-1g.10gb", true);
  pods.bind("n0", "w9", "nvidia.com/mig-2g.20gb", true);
  REQUIRE(pods.held.size() == 3);  // sorted by node, then workload, whatever the order of binds
  CHECK((pods.held[0].node == "n0" && pods.held[1].workload == "w1" && pods.held[2].workload == "w2"));
  backend::NodeFixture n = node(1, {{"1g.10gb", 7}}, "mixed");
  n.workloads = {{"w1", 2}, {"w2", 1}, {"w3", 1}};
  CHECK(held_by_pods(n, pods, "nvidia.com/mig-1g.10gb", "") == 3);
  CHECK(held_by_pods(n, pods, "nvidia.com/mig-1g.10gb", "w1") == 1);  // a rebind replaces its own pod's units
  CHECK(held_by_pods(n, pods, gpu, "") == 1);                         // w3, a plain bind's pod
  pods.bind("n1", "w1", gpu, false);                                  // a whole-card bind erases the entry
  pods.unbind("n1", "w2");
  REQUIRE(pods.held.size() == 1);
  CHECK(pods.of("n1", "w1") == gpu);
  CHECK(pods.of("n0", "w9") == "nvidia.com/mig-2g.20gb");
}

TEST_CASE(
    "kubelet admission: a MIG claim's own pod asks a whole card and is refused under mixed, admitted under single",
    "[kubelet]") {
  const std::string binds = R"({ "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" },
      { "op": "bind_workload", "node": "n1", "workload": "wa", "resource": "nvidia.com/mig-1g.10gb" },
      { "op": "bind_workload", "node": "n1", "workload": "wb", "resource": "nvidia.com/mig-1g.10gb" })";
  const ShapedRun mixed(mig_node(1, "mixed", mig_flow(binds)));
  CHECK(mixed.outcomes(0) ==
        std::vector<std::string>{"claimed", "done", "prepared", "done", "rejected", "done", "rejected"});
  const auto calls = mixed.calls("flowA");
  REQUIRE(calls.size() >= 3);
  CHECK(calls[calls.size() - 3] ==
        "bind_workload node=n1 workload=wa claim=flowA pod=nvidia.com/gpu:1 "
        "refused=insufficient:nvidia.com/gpu@n1 free=0");
  CHECK(calls[calls.size() - 2] == "bind_workload node=n1 workload=wa units=1 resource=nvidia.com/mig-1g.10gb");
  // The layout has one 1g.10gb slice, which wa holds now.
  CHECK(calls.back() ==
        "bind_workload node=n1 workload=wb units=1 resource=nvidia.com/mig-1g.10gb "
        "refused=insufficient:nvidia.com/mig-1g.10gb@n1 free=0");
  const auto& s = mixed.world->backend().state();
  CHECK(s.node("n1")->workloads == backend::OrderedMap<std::string, int>{{"wa", 1}});
  REQUIRE(mixed.world->pod_resources.held.size() == 1);
  CHECK(mixed.world->pod_resources.of("n1", "wa") == "nvidia.com/mig-1g.10gb");

  const ShapedRun single(mig_node(1, "single", mig_flow(binds)));
  CHECK(single.outcomes(0) ==
        std::vector<std::string>{"claimed", "done", "prepared", "done", "done", "rejected", "rejected"});
  CHECK(single.calls("flowA")[single.calls("flowA").size() - 3] ==
        "bind_workload node=n1 workload=wa claim=flowA pod=nvidia.com/gpu:1");
}

TEST_CASE("kubelet admission: a claim's pod is refused with no claim, a gone claim, another's claim or another node",
          "[kubelet]") {
  const ShapedRun r(two_nodes(R"(
      { "name": "early", "script": [ { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] },
      { "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] },
        { "op": "bind_workload", "node": "n2", "workload": "wa", "claim": "flowA" },
        { "op": "bind_workload", "node": "n1", "workload": "wb", "claim": "flowA" },
        { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" },
        { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] },
      { "name": "sweeper", "script": [ { "op": "recover", "flow": "flowA", "wait": false },
        { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"rejected"});
  CHECK(r.calls("early")[0] == "bind_workload node=n1 workload=wa claim=flowA refused=no-claim:flowA");
  CHECK(r.outcomes(1) == std::vector<std::string>{"claimed", "rejected", "rejected", "done", "done"});
  const auto calls = r.calls("flowA");
  REQUIRE(calls.size() == 7);  // inventory, plan, reserve, then the binds
  CHECK(calls[3] == "bind_workload node=n2 workload=wa claim=flowA refused=node-selector:n1");
  CHECK(calls[4] == "bind_workload node=n1 workload=wb claim=flowA refused=not-reserved:wb@claim-flowA-2");
  CHECK(calls[5] == "bind_workload node=n1 workload=wa claim=flowA pod=nvidia.com/gpu:1");
  CHECK(calls[6] == "bind_workload node=n1 workload=wa claim=flowA pod=nvidia.com/gpu:1");  // a rebind: its own unit
  // The sweeper releases nothing while wa's pod runs (pending_recovery), so the claim stays and a bind that names
  // it from another actor's script is admitted.
  CHECK(r.outcomes(2) == std::vector<std::string>{"pending_recovery", "done"});

  const ShapedRun gone(two_nodes(R"(
      { "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] } ] },
      { "name": "sweeper", "script": [ { "op": "recover", "flow": "flowA", "wait": false },
        { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] })"));
  CHECK(gone.outcomes(1) == std::vector<std::string>{"released", "rejected"});
  CHECK(gone.calls("sweeper").back() ==
        "bind_workload node=n1 workload=wa claim=flowA refused=claim-gone:claim-flowA-2");
}

TEST_CASE("kubelet admission: footprints and pod resources exist only where a bind names a resource or a claim",
          "[kubelet]") {
  const auto touches = [](const ShapedRun& run, uint64_t id) {
    for (const auto& st : run.result.steps)
      for (const auto& t : st.footprint)
        if (t.object == id) return true;
    return false;
  };
  const std::string plain = R"({ "name": "pods", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w1" },
      { "op": "unbind_workload", "node": "n1", "workload": "w1" } ] })";
  const ShapedRun without(two_nodes(plain), {}, true);
  CHECK_FALSE(touches(without, pod_resources_id()));
  const ShapedRun with(two_nodes(plain + R"(, { "name": "other", "script": [
      { "op": "bind_workload", "node": "n2", "workload": "w2", "resource": "nvidia.com/gpu", "units": 2 },
      { "op": "bind_workload", "node": "n2", "workload": "w3", "resource": "nvidia.com/gpu" } ] })"),
                       {}, true);
  CHECK(touches(with, pod_resources_id()));
  CHECK(with.outcomes(1) == std::vector<std::string>{"done", "rejected"});  // two cards, both held by w2
  CHECK(with.calls("other")[1] ==
        "bind_workload node=n2 workload=w3 units=1 resource=nvidia.com/gpu refused=insufficient:nvidia.com/gpu@n2 "
        "free=0");

  // Another actor's claim named: its reserve writes its claims object, and the bind reads it; its own claim: neither.
  const ShapedRun across(two_nodes(R"(
      { "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] } ] },
      { "name": "other", "script": [ { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] })"),
                         {}, true);
  CHECK(across.outcomes(1) == std::vector<std::string>{"done"});
  CHECK(touches(across, actor_claims_id("flowA")));
  const ShapedRun own(two_nodes(
                          R"({ "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] },
      { "op": "bind_workload", "node": "n1", "workload": "wa", "claim": "flowA" } ] })"),
                      {}, true);
  CHECK(own.outcomes(0) == std::vector<std::string>{"claimed", "done"});
  CHECK_FALSE(touches(own, actor_claims_id("flowA")));
}

TEST_CASE("kubelet admission: capacity-within-cards counts no MIG-slice pod in cards", "[kubelet]") {
  // Under the single strategy the slices are advertised as nvidia.com/gpu: two pods of one slice each on a one-card
  // carved node are admitted (seven slices) and hold slices, not two cards. A plain bind's pod beside them does
  // count as a card.
  const std::string single = R"({ "schema": "allocsim/scenario/v1", "name": "single",
    "backend": { "authority": "managed-mig" },
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80,
      "labels": { "nvidia.com/mig.strategy": "single" }, "mig_layout": { "1g.10gb": 7 } } ],
    "actors": [ { "name": "pods", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "w1", "resource": "nvidia.com/gpu" },
      { "op": "bind_workload", "node": "n1", "workload": "w2", "resource": "nvidia.com/gpu", "units": 2 } ] } ] })";
  const ShapedRun slices(single);
  CHECK(slices.outcomes(0) == std::vector<std::string>{"done", "done"});
  CHECK_FALSE(slices.result.violation.has_value());
  CHECK(slices.world->pod_resources.holds_slices("n1", "w2"));

  // A foreign slice pod beside flowA's slice on the one carved card: two slices of one card, no second card.
  const ShapedRun r(mig_node(1, "mixed",
                             mig_flow(R"({ "op": "bind_workload", "node": "n1", "workload": "wa",
      "resource": "nvidia.com/mig-1g.10gb" })") +
                                 R"(, { "name": "foreign", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "x", "resource": "nvidia.com/mig-1g.10gb" } ] })"));
  CHECK(r.outcomes(0).back() == "done");
  CHECK(r.outcomes(1) == std::vector<std::string>{"rejected"});  // one slice carved, and wa holds it
  CHECK_FALSE(r.result.violation.has_value());
}

}  // namespace kubelet_admission_test

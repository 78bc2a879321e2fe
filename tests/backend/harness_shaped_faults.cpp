// Faults with shape and conditional ops (docs/DESIGN.md §4, "Read faults" and "Op modifiers"): stale_reads,
// partial_reads, fail_geometry_for, geometry_no_effect, geometry_partial, reject_binds (read_faults.h,
// admission_faults.h, backend/ops/op_faults.cpp,
// backend/model/geometry_hooks.cpp), and the op modifiers `when` and `retry` (conditional_ops.h). Harness cases
// run on a fixed schedule: the lowest-numbered runnable actor always runs, so actors run one after another in file
// order.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "backend/model/check_mode.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "backend/world/object_ids.h"
#include "backend_fixtures.h"
#include "in_order_run.h"
#include "sim/engine.h"

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::backend::testing;
using namespace allocsim::harness::testing;
using allocsim::backend::MemoryBackend;
using allocsim::backend::SequentialCaller;

namespace {

const char* kFlowA = R"({ "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] } ] })";

}  // namespace

// -- stale_reads -----------------------------------------------------------------------------------

TEST_CASE("stale reads: the history keeps one entry per write, K writes ago is K entries back", "[shaped][stale]") {
  backend::BackendState s;
  s.nodes.resize(1);
  ReadFaults f;
  f.start(s);  // resource_version 1 (the fixture's default)
  for (int64_t v = 2; v <= 12; ++v) {
    s.nodes[0].resource_version = v;
    f.after_step(s);  // no write counted: nothing recorded
    ++f.writes;
    f.after_step(s);
  }
  REQUIRE(f.history.size() == static_cast<size_t>(kMaxStaleWrites) + 1);
  CHECK(f.past(0).nodes[0].resource_version == 12);
  CHECK(f.past(1).nodes[0].resource_version == 11);
  CHECK(f.past(kMaxStaleWrites).nodes[0].resource_version == 12 - kMaxStaleWrites);
  ReadFaults young;
  young.start(s);
  CHECK(young.past(5).nodes[0].resource_version == 12);  // fewer writes than K: the start state
}

TEST_CASE("stale reads: a stale inventory plans on a taken node and reserve refuses it, writing nothing",
          "[shaped][stale]") {
  const std::string flow_b =
      R"({ "name": "flowB", "script": [ { "op": "reserve", "requests": [ { "workload": "wb" } ] } ] })";
  SECTION("with the fault: the plan is stale") {
    ShapedRun r(
        two_nodes(fmt::format(R"({}, {{ "name": "cache", "script": [ {{ "op": "stale_reads", "writes": 8 }} ] }}, {})",
                              kFlowA, flow_b)));
    CHECK(r.outcomes(0) == std::vector<std::string>{"claimed"});
    CHECK(r.outcomes(2) == std::vector<std::string>{"conflict"});
    CHECK(r.calls("flowB").front() == "inventory reserve=1 fault=stale_reads:8");
    for (const auto& m : r.world->backend().state().audit) CHECK(m.op_id != "flowB:op1");
    CHECK(r.world->read_faults.stale_reads == 0);  // one read consumed it
  }
  SECTION("without it: a fresh inventory plans on n2") {
    ShapedRun r(two_nodes(fmt::format("{}, {}", kFlowA, flow_b)));
    CHECK(r.outcomes(1) == std::vector<std::string>{"claimed"});
    CHECK(r.world->backend().state().node("n2")->owner == "flowB");
  }
}

TEST_CASE("stale reads: a stale observe can miss a claim made since", "[shaped][stale]") {
  ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] },
      { "op": "stale_reads", "writes": 8, "reads": 2 }, { "op": "observe" }, { "op": "observe" }, { "op": "observe" } ] })"));
  // The start state had no claim: "no claim" is Unknown; the third observe reads the live state again.
  CHECK(r.outcomes(0) == std::vector<std::string>{"claimed", "done", "unknown", "unknown", "allocated"});
}

// -- partial_reads ---------------------------------------------------------------------------------

TEST_CASE("partial reads: the listing omits the named workloads and still says complete", "[shaped][partial]") {
  const std::string text = R"({ "schema": "allocsim/scenario/v1", "name": "partial",
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
                 "workloads": { "fw": 1, "gw": 1 } } ],
    "actors": [ { "name": "lister", "script": [ { "op": "partial_reads", "workloads": ["fw"] } ] },
                { "name": "flowA", "script": [ { "op": "inventory" }%s ] } ] })";
  SECTION("the faulted read") {
    ShapedRun r(std::string(text).replace(text.find("%s"), 2, ""));
    const auto& inv = *r.world->actors()[1].inventory;
    CHECK(inv.completeness == backend::kCompletenessComplete);
    CHECK(inv.occupancy == backend::OrderedMap<std::string, int>{{"n1", 1}});  // gw only
    CHECK(r.calls("flowA") == std::vector<std::string>{"inventory fault=partial_reads:fw"});
  }
  SECTION("the next read is whole again") {
    ShapedRun r(std::string(text).replace(text.find("%s"), 2, R"(, { "op": "inventory" })"));
    CHECK(r.world->actors()[1].inventory->occupancy == backend::OrderedMap<std::string, int>{{"n1", 2}});
  }
}

TEST_CASE("partial reads: devices are left out of the inventory's device listing, which still says complete",
          "[shaped][partial]") {
  const std::string text = R"({ "schema": "allocsim/scenario/v1", "name": "partial",
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 3, "memory_gib": 80 },
               { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80 } ],
    "actors": [ { "name": "plugin", "script": [ { "op": "partial_reads",
                    "devices": [ { "node": "n1", "ordinal": 1 }, { "node": "n2", "ordinal": 0 } ], "reads": 2 } ] },
                { "name": "flowA", "script": [ { "op": "inventory" }, { "op": "inventory" }, { "op": "inventory" } ] } ] })";
  const ShapedRun r(text);
  const auto uuids = [](const backend::InventorySnapshot& inv) {
    std::vector<std::string> out;
    for (const auto& d : inv.devices) out.push_back(*d.uuid);
    return out;
  };
  CHECK(r.calls("plugin") == std::vector<std::string>{"partial_reads devices=GPU-n1-1,GPU-n2-0 reads=2"});
  CHECK(r.calls("flowA") == std::vector<std::string>{"inventory fault=partial_reads:GPU-n1-1,GPU-n2-0",
                                                     "inventory fault=partial_reads:GPU-n1-1,GPU-n2-0", "inventory "});
  // The last inventory (the third read, past the fault's two) lists every card; the actor keeps it.
  const auto& inv = *r.world->actors()[1].inventory;
  CHECK(uuids(inv) == std::vector<std::string>{"GPU-n1-0", "GPU-n1-1", "GPU-n1-2", "GPU-n2-0"});
  // A faulted one: the same scenario cut to one inventory.
  std::string one = text;
  const std::string two = R"({ "op": "inventory" }, { "op": "inventory" }, )";
  one.replace(one.find(two), two.size(), "");
  const ShapedRun f(one);
  const auto& cut = *f.world->actors()[1].inventory;
  CHECK(uuids(cut) == std::vector<std::string>{"GPU-n1-0", "GPU-n1-2"});
  CHECK(cut.completeness == backend::kCompletenessComplete);
  CHECK(cut.occupancy == backend::OrderedMap<std::string, int>{{"n1", 0}, {"n2", 0}});  // pods are as they are
  CHECK(f.world->read_faults.partial_reads == 1);
}

TEST_CASE("partial reads in a release's listing: the release frees the claim of a pod that runs (finding F14)",
          "[shaped][partial]") {
  const std::string text = R"({ "schema": "allocsim/scenario/v1", "name": "partial",
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
    "actors": [ { "name": "agent", "script": [ { "op": "partial_reads", "workloads": ["wa"]%s } ] },
                { "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] },
                  { "op": "bind_workload", "node": "n1", "workload": "wa" }, { "op": "release" } ] } ] })";
  const auto run = [&](const std::string& listings) {
    return std::make_unique<ShapedRun>(std::string(text).replace(text.find("%s"), 2, listings));
  };
  SECTION("listings [release]: the release sees no pod, frees the claim, and says which fault it read") {
    const auto r = run(R"(, "listings": ["release"])");
    // The violation ends the execution in the release's own step, before the op records its outcome.
    CHECK(r->outcomes(1) == std::vector<std::string>{"claimed", "done", "-"});
    CHECK(r->calls("agent") == std::vector<std::string>{"partial_reads workloads=wa reads=1 listings=release"});
    CHECK(r->calls("flowA").back() == "release fault=partial_reads:wa");
    REQUIRE(r->result.violation.has_value());
    CHECK(r->result.violation->invariant == "bound-workload-covered");
    const auto& s = r->world->backend().state();
    CHECK(s.node("n1")->workloads == backend::OrderedMap<std::string, int>{{"wa", 1}});
    CHECK_FALSE(s.node("n1")->owner.has_value());
    CHECK(s.release_pods_hidden.reads == 0);  // one release used it up
    CHECK(s.release_pods_hidden.workloads.empty());
    CHECK(r->world->read_faults.partial_reads == 0);  // the inventory's listing was not armed
  }
  SECTION("the default covers only inventories: the release sees the pod and keeps the claim") {
    const auto r = run("");
    CHECK(r->outcomes(1) == std::vector<std::string>{"claimed", "done", "pending_recovery"});
    CHECK_FALSE(r->result.violation.has_value());
    CHECK(r->world->backend().state().release_pods_hidden.reads == 0);
  }
  SECTION("both listings: the reserve's inventory and the release's check each use one read") {
    const auto r = run(R"(, "listings": ["inventory", "release"], "reads": 2)");
    CHECK(r->calls("flowA").front() == "inventory reserve=1 fault=partial_reads:wa");
    CHECK(r->world->read_faults.partial_reads == 1);
    CHECK(r->world->backend().state().release_pods_hidden.reads == 1);
    CHECK(r->result.violation.has_value());  // bound-workload-covered, at the release
  }
}

TEST_CASE("hide_from_release: the next N release checks miss the workloads, then the listing is whole",
          "[shaped][partial]") {
  backend::BackendOptions o = opts(backend::kAuthorityDevicePlugin);
  o.release_read_hook = true;  // a backend whose releases read the hook's footprint (else arming it is refused)
  MemoryBackend b({a100_node("n1")}, o);
  SequentialCaller c;
  const auto first = plan_and_reserve(b, c, {req("wa")}, "flowA:op1");
  b.bind_workload(c, "n1", "wa", 1);
  b.hide_from_release(c, {"wb"}, 1);  // another workload hidden: wa is still listed
  CHECK(b.release(c, first.claim_id, "flowA:release1", first.desired_generation).status == "pending_recovery");
  CHECK(b.state().release_pods_hidden.reads == 0);
  b.hide_from_release(c, {"wa"}, 1);
  CHECK(b.release(c, first.claim_id, "flowA:release2", first.desired_generation).status == "released");
  CHECK(b.state().node("n1")->workloads == backend::OrderedMap<std::string, int>{{"wa", 1}});
  CHECK_THROWS_AS(b.hide_from_release(c, {"wa"}, 0), std::invalid_argument);
  MemoryBackend plain({a100_node("n1")}, opts(backend::kAuthorityDevicePlugin));
  CHECK_THROWS_AS(plain.hide_from_release(c, {"wa"}, 1), backend::PortRuleBroken);
}

// -- geometry faults (backend hooks) ---------------------------------------------------------------

TEST_CASE("fail_geometry_for: applies fail before the deadline and succeed from it on", "[shaped][geometry]") {
  MemoryBackend b({a100_node("n1")}, opts(backend::kAuthorityManagedMig, 5));
  SequentialCaller c;
  SECTION("an apply inside the window fails, a later write applies") {
    b.fail_geometry_for(c, "n1", 8);  // until 1008
    const auto first = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
    b.advance_clock(c, 5);  // 1005: due, inside the window
    b.apply_pending_geometry(c);
    CHECK(b.observe(c, first.claim_id).value.status == "failed");
    CHECK(b.release(c, first.claim_id, "flowA:release1", first.desired_generation).status == "released");
    const auto second = plan_and_reserve(b, c, {mig_req("s2", 10)}, "flowA:op2");
    b.advance_clock(c, 5);  // 1010: past the deadline
    b.apply_pending_geometry(c);
    CHECK(b.observe(c, second.claim_id).value.status == "prepared");
    CHECK_FALSE(b.state().node("n1")->mig_layout.empty());
  }
  SECTION("an apply exactly at the deadline succeeds") {
    b.fail_geometry_for(c, "n1", 5);  // until 1005
    const auto claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
    b.advance_clock(c, 5);
    b.apply_pending_geometry(c);
    CHECK(b.observe(c, claim.claim_id).value.status == "prepared");
  }
  CHECK_THROWS_AS(b.fail_geometry_for(c, "n1", -1), std::invalid_argument);
}

TEST_CASE("geometry_no_effect: the apply reports success and the layout stays empty (finding F10)",
          "[shaped][geometry]") {
  MemoryBackend b({a100_node("n1")}, opts(backend::kAuthorityManagedMig));
  SequentialCaller c;
  SECTION("control: a real apply carves the sharer's slice") {
    plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
    CHECK(b.state().node("n1")->mig_layout == backend::OrderedMap<std::string, int>{{"1g.10gb", 1}});
  }
  SECTION("hollow: success at the write's generation, nothing carved, and upstream says prepared") {
    b.geometry_without_effect(c, "n1");
    const auto claim = plan_and_reserve(b, c, {mig_req("s1", 10)}, "flowA:op1");
    const auto& n1 = *b.state().node("n1");
    CHECK(n1.mig_state == "success");
    CHECK(n1.mig_state_generation == n1.resource_version);
    CHECK(n1.mig_layout.empty());
    const auto obs = b.observe(c, claim.claim_id).value;
    CHECK(obs.status == "prepared");  // F10: readiness never compares the layout evidence with the grant
    REQUIRE(obs.evidence.size() == 1);
    CHECK(obs.evidence[0].layout.empty());
  }
}

TEST_CASE("geometry_partial: the apply carves one slice and reports failed, and the release clears it",
          "[shaped][geometry]") {
  MemoryBackend b({a100_node("n1")}, opts(backend::kAuthorityManagedMig));
  SequentialCaller c;
  using Layout = backend::OrderedMap<std::string, int>;
  const std::vector<backend::WorkloadRequest> sharers = {mig_req("s1", 10), mig_req("s2", 20), mig_req("s3", 10)};
  SECTION("control: a real apply carves every slice of the geometry") {
    plan_and_reserve(b, c, sharers, "flowA:op1");
    CHECK(b.state().node("n1")->mig_layout == Layout{{"1g.10gb", 2}, {"1g.20gb", 1}});
  }
  SECTION("partial: one instance of the first profile, state failed at the write's generation") {
    b.geometry_partial(c, "n1", 1);
    const auto claim = plan_and_reserve(b, c, sharers, "flowA:op1");
    const auto& n1 = *b.state().node("n1");
    CHECK(n1.mig_layout == Layout{{"1g.10gb", 1}});
    CHECK(n1.mig_state == "failed");
    CHECK(n1.mig_state_generation == n1.resource_version);
    CHECK(b.observe(c, claim.claim_id).value.status == "failed");
    // Upstream's release restores the node from its restore record and empties the whole layout, half-made or not.
    const auto rel = b.release(c, claim.claim_id, "flowA:op2", claim.desired_generation);
    CHECK(rel.status == "released");
    CHECK(b.state().node("n1")->mig_layout.empty());
    CHECK(b.state().node("n1")->mig_state == "success");
    CHECK(b.state().node("n1")->mig_config == "all-disabled");
    // One apply was armed and it is used up: the next reserve's apply carves its whole layout.
    CHECK(b.state().partial_geometry.empty());
    plan_and_reserve(b, c, sharers, "flowA:op3");
    CHECK(b.state().node("n1")->mig_layout == Layout{{"1g.10gb", 2}, {"1g.20gb", 1}});
    CHECK(b.state().node("n1")->mig_state == "success");
  }
  SECTION("an outright failure wins: fail_geometry with geometry_partial carves nothing and uses up nothing") {
    b.geometry_partial(c, "n1", 2);
    b.fail_geometry(c, "n1");
    plan_and_reserve(b, c, sharers, "flowA:op1");
    CHECK(b.state().node("n1")->mig_layout.empty());
    CHECK(b.state().node("n1")->mig_state == "failed");
    CHECK(b.state().partial_geometry == Layout{{"n1", 2}});
  }
  SECTION("armings add up, and applies below 1 are refused") {
    b.geometry_partial(c, "n1", 1);
    b.geometry_partial(c, "n1", 2);
    CHECK(b.state().partial_geometry == Layout{{"n1", 3}});
    CHECK_THROWS_AS(b.geometry_partial(c, "n1", 0), std::invalid_argument);
  }
  SECTION("partial wins over no effect: the apply still reports failed and carves its slice") {
    b.geometry_without_effect(c, "n1");
    b.geometry_partial(c, "n1", 1);
    plan_and_reserve(b, c, sharers, "flowA:op1");
    CHECK(b.state().node("n1")->mig_layout == Layout{{"1g.10gb", 1}});
    CHECK(b.state().node("n1")->mig_state == "failed");
  }
}

TEST_CASE("geometry_partial: the step whose apply it breaks says so, and only that step", "[shaped][geometry]") {
  const ShapedRun r(R"({ "schema": "allocsim/scenario/v1", "name": "partial",
    "backend": { "authority": "managed-mig" },
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80 } ],
    "actors": [ { "name": "mig", "script": [ { "op": "geometry_partial", "node": "n1" } ] },
                { "name": "flowA", "script": [ { "op": "reserve", "requests": [
                  { "workload": "s1", "sharing": "isolated_mig", "minimum_usable_memory_gib": 10 } ] } ] } ] })");
  std::vector<std::string> noted;  // "actor what" of each step whose detail carries the fault's note
  for (const auto& s : r.result.steps)
    if (s.detail.find("fault=geometry_partial:n1") != std::string::npos)
      noted.push_back(fmt::format("{} {}", r.world->actor_name(s.actor), s.what));
  REQUIRE(noted.size() == 1);
  CHECK(noted[0].rfind("flowA ", 0) == 0);
  CHECK(r.world->backend().state().node("n1")->mig_state == "failed");
}

// -- reject_binds (admission_faults.h) ------------------------------------------------------------

TEST_CASE("reject_binds: the node's kubelet refuses the next binds there, which bind nothing, and armings add up",
          "[shaped-faults]") {
  const ShapedRun r(two_nodes(R"({ "name": "kubelet", "script": [ { "op": "reject_binds", "node": "n1" },
        { "op": "reject_binds", "node": "n1", "binds": 2 }, { "op": "reject_binds", "node": "n2" } ] },
      { "name": "pods", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w1" },
        { "op": "bind_workload", "node": "n1", "workload": "w2" },
        { "op": "bind_workload", "node": "n2", "workload": "w3" },
        { "op": "bind_workload", "node": "n1", "workload": "w4" },
        { "op": "bind_workload", "node": "n1", "workload": "w5" },
        { "op": "bind_workload", "node": "n2", "workload": "w6" } ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"done", "done", "done"});
  // n1 refuses three binds (1 + 2), n2 one; the binds after them are bound.
  CHECK(r.outcomes(1) == std::vector<std::string>{"rejected", "rejected", "rejected", "rejected", "done", "done"});
  const auto& s = r.world->backend().state();
  CHECK(s.node("n1")->workloads == allocsim::backend::OrderedMap<std::string, int>{{"w5", 1}});
  CHECK(s.node("n2")->workloads == allocsim::backend::OrderedMap<std::string, int>{{"w6", 1}});
  CHECK(r.world->admission.refused.empty());
  const std::vector<std::string> calls = r.calls("pods");
  REQUIRE(calls.size() == 6);
  CHECK(calls[0] == "bind_workload node=n1 workload=w1 units=1 fault=reject_binds:n1");
  CHECK(calls[2] == "bind_workload node=n2 workload=w3 units=1 fault=reject_binds:n2");
  CHECK(calls[4] == "bind_workload node=n1 workload=w5 units=1");
  CHECK(r.calls("kubelet")[1] == "reject_binds node=n1 binds=2");
}

TEST_CASE("reject_binds: a refused bind reads and writes the armed rejections, and without the op no bind touches them",
          "[shaped-faults]") {
  // The footprint of the k-th Call step of `actor` (the step that runs the op's body), as (read, written).
  const auto touches = [](const ShapedRun& r, const std::string& actor, size_t k) {
    std::pair<bool, bool> out{false, false};
    for (const auto& st : r.result.steps) {
      if (st.kind != sim::PointKind::Call || r.world->actor_name(st.actor) != actor || k-- != 0) continue;
      for (const auto& t : st.footprint)
        if (t.object == admission_faults_id()) (t.write ? out.second : out.first) = true;
      return out;
    }
    FAIL("no such step");
    return out;
  };
  const ShapedRun armed(two_nodes(R"({ "name": "kubelet", "script": [ { "op": "reject_binds", "node": "n1" } ] },
      { "name": "pods", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w1" },
        { "op": "bind_workload", "node": "n1", "workload": "w2" } ] })"),
                        {}, true);
  CHECK(armed.outcomes(1) == std::vector<std::string>{"rejected", "done"});
  CHECK(touches(armed, "kubelet", 0) == std::pair<bool, bool>{false, true});
  CHECK(touches(armed, "pods", 0) == std::pair<bool, bool>{false, true});  // refused: uses one up
  CHECK(touches(armed, "pods", 1) == std::pair<bool, bool>{true, false});  // bound: reads that none is armed
  const ShapedRun plain(two_nodes(R"({ "name": "pods", "script": [ { "op": "bind_workload", "node": "n1",
        "workload": "w1" } ] })"),
                        {}, true);
  CHECK(plain.outcomes(0) == std::vector<std::string>{"done"});
  CHECK(touches(plain, "pods", 0) == std::pair<bool, bool>{false, false});
}

// -- operand labels (admission_faults.h device_plugin_off) ---------------------------------------

TEST_CASE("operands: a node whose labels turn its device plugin off refuses every pod, before any armed refusal",
          "[shaped-faults]") {
  using Labels = std::vector<std::pair<std::string, std::string>>;
  CHECK_FALSE(device_plugin_off(Labels{}));
  CHECK_FALSE(device_plugin_off(Labels{{kDeployDevicePluginLabel, "true"}, {kDeployOperandsLabel, "true"}}));
  CHECK(device_plugin_off(Labels{{kDeployDevicePluginLabel, "paused-for-mig-change"}}));
  CHECK(device_plugin_off(Labels{{kDeployDevicePluginLabel, "false"}}));
  CHECK(device_plugin_off(Labels{{kDeployOperandsLabel, "false"}, {kDeployDevicePluginLabel, "true"}}));
  CHECK_FALSE(device_plugin_off(Labels{{"nvidia.com/gpu.deploy.dcgm", "false"}}));  // another operand
  // The operator pauses n1's device plugin, then restores it; n1 also has one armed refusal, which the pod
  // refused for the paused plugin does not use up (no Allocate was called).
  const ShapedRun r(two_nodes(R"({ "name": "operator", "script": [ { "op": "reject_binds", "node": "n1" },
        { "op": "set_labels", "node": "n1", "set": { "nvidia.com/gpu.deploy.device-plugin": "paused-for-mig-change" } } ] },
      { "name": "pods", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w1" },
        { "op": "bind_workload", "node": "n2", "workload": "w2" } ] },
      { "name": "admin", "script": [ { "op": "set_labels", "node": "n1", "set": { "nvidia.com/gpu.deploy.device-plugin": "true" } } ] },
      { "name": "late", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w3" },
        { "op": "bind_workload", "node": "n1", "workload": "w4" } ] })"));
  CHECK(r.outcomes(1) == std::vector<std::string>{"rejected", "done"});
  CHECK(r.outcomes(3) == std::vector<std::string>{"rejected", "done"});  // the armed refusal, after the restore
  CHECK(r.calls("pods")[0] == "bind_workload node=n1 workload=w1 units=1 refused=device-plugin-off:n1");
  CHECK(r.calls("late")[0] == "bind_workload node=n1 workload=w3 units=1 fault=reject_binds:n1");
  const auto& s = r.world->backend().state();
  CHECK(s.node("n1")->workloads == allocsim::backend::OrderedMap<std::string, int>{{"w4", 1}});
  // A refused bind reads its node (the labels) only in a scenario that names an operand label anywhere: elsewhere
  // its footprint is what it was before the rule.
  const auto reads_node = [](const ShapedRun& run) {
    for (const auto& st : run.result.steps)
      if (st.kind == sim::PointKind::Call && run.world->actor_name(st.actor) == "pods")
        for (const auto& t : st.footprint)
          if (t.object == allocsim::harness::object_id(allocsim::backend::Obj::Node, "n1")) return true;
    return false;
  };
  const auto with = [&](const std::string& op) {
    return two_nodes(R"({ "name": "kubelet", "script": [ { "op": "reject_binds", "node": "n1" }, )" + op + R"( ] },
      { "name": "pods", "script": [ { "op": "bind_workload", "node": "n1", "workload": "w1" } ] })");
  };
  const ShapedRun plain(with(R"({ "op": "set_labels", "node": "n2", "set": { "a": "b" } })"), {}, true);
  const ShapedRun named(
      with(R"({ "op": "set_labels", "node": "n2", "set": { "nvidia.com/gpu.deploy.operands": "true" } })"), {}, true);
  CHECK(plain.outcomes(1) == std::vector<std::string>{"rejected"});
  CHECK(named.outcomes(1) == std::vector<std::string>{"rejected"});
  CHECK_FALSE(reads_node(plain));
  CHECK(reads_node(named));
}

// -- when ------------------------------------------------------------------------------------------

TEST_CASE("when: an op runs only after the outcome it names, otherwise it is skipped with no call", "[shaped][when]") {
  ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] },
      { "op": "observe", "when": { "op": 0, "outcome": "conflict" } },
      { "op": "observe", "when": { "op": 0, "outcome": "claimed" } },
      { "op": "release", "when": { "op": 1, "outcome": "skipped" } },
      { "op": "bind_workload", "node": "n1", "workload": "x", "when": { "op": 3, "outcome": "stale" } } ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"claimed", "skipped", "allocated", "released", "skipped"});
  CHECK(r.calls("flowA") ==
        std::vector<std::string>{"inventory reserve=1", "plan reserve=1", "reserve ", "observe ", "release "});
}

// -- retry -----------------------------------------------------------------------------------------

TEST_CASE("retry: a conflict inventories, plans and reserves again, with a fresh operation id", "[shaped][retry]") {
  const auto text = [](const std::string& retry) {
    return two_nodes(fmt::format(
        R"({}, {{ "name": "cache", "script": [ {{ "op": "stale_reads", "writes": 8 }} ] }},
        {{ "name": "flowB", "script": [ {{ "op": "reserve", "requests": [ {{ "workload": "wb" }} ]{} }} ] }})",
        kFlowA, retry));
  };
  SECTION("retried once: claimed on n2") {
    ShapedRun r(text(R"(, "retry": { "on": "conflict", "max": 1 })"));
    CHECK(r.outcomes(2) == std::vector<std::string>{"claimed"});
    CHECK(r.calls("flowB") == std::vector<std::string>{"inventory reserve=1 fault=stale_reads:8", "plan reserve=1",
                                                       "reserve ", "inventory reserve=1 retry=1",
                                                       "plan reserve=1 retry=1", "reserve retry=1"});
    CHECK(r.world->backend().state().claims.back().op_id == "flowB:op2");
  }
  SECTION("on infeasible only: the conflict ends the op") {
    ShapedRun r(text(R"(, "retry": { "on": "infeasible", "max": 3 })"));
    CHECK(r.outcomes(2) == std::vector<std::string>{"conflict"});
    CHECK(r.calls("flowB").size() == 3);
  }
}

TEST_CASE("retry: never after a dropped response (the claim may exist)", "[shaped][retry]") {
  ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ],
                         "retry": { "on": ["conflict", "infeasible"], "max": 8 } } ] })",
                        R"(, "faults": { "barriers": { "claim.schedule.after": ["drop_response"] } })"),
              {1});
  CHECK(r.outcomes(0) == std::vector<std::string>{"unknown"});
  CHECK(r.calls("flowA").size() == 3);
  CHECK(r.world->backend().state().claims.size() == 1);
}

// -- encoding and shrinking ------------------------------------------------------------------------

TEST_CASE("when and retry survive the scenario encoder, and the shrinker's op removal re-indexes when",
          "[shaped][when][retry]") {
  const Scenario sc = parse_scenario(
      two_nodes(R"({ "name": "flowA", "script": [ { "op": "bind_workload", "node": "n1", "workload": "x" },
          { "op": "reserve", "requests": [ { "workload": "wa" } ], "retry": { "on": "conflict", "max": 2 } },
          { "op": "unbind_workload", "node": "n1", "workload": "x", "when": { "op": 0, "outcome": "done" } },
          { "op": "release", "when": { "op": 2, "outcome": "skipped" } } ] })",
                R"(, "expect": { "actors": { "flowA": { "unbind_workload": ["done", "skipped"] } } })"),
      "round.json");
  const Scenario again = parse_scenario(scenario_to_json(sc).dump(), "again.json");
  REQUIRE(again.actors[0].script[2].when.has_value());
  CHECK(again.actors[0].script[2].when->op == 0);
  CHECK(again.actors[0].script[2].when->outcome == "done");
  REQUIRE(again.actors[0].script[1].retry.has_value());
  CHECK(again.actors[0].script[1].retry->on == std::vector<std::string>{"conflict"});
  CHECK(again.actors[0].script[1].retry->max == 2);

  Scenario dropped = sc;
  dropped.actors[0].script.erase(dropped.actors[0].script.begin());
  reindex_conditions(dropped, 0, 0);
  const auto& script = dropped.actors[0].script;
  CHECK_FALSE(script[1].when.has_value());  // it named the dropped op: now unconditional
  // release waited for unbind's `skipped`, which unbind can no longer record: unconditional too.
  CHECK_FALSE(script[2].when.has_value());
  CHECK(dropped.expect.actors[0].second ==
        backend::OrderedMap<std::string, std::vector<std::string>>{{"unbind_workload", {"done"}}});
  CHECK_NOTHROW(parse_scenario(scenario_to_json(dropped).dump(), "dropped.json"));
}

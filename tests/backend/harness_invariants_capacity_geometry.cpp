// Four invariants on cards and geometry (docs/DESIGN.md §5): capacity-within-cards, bound-workload-covered,
// no-apply-under-later-workload and geometry-converges. Each clause fires on a state built by hand to
// break it and holds on the state just before the break. The world is built from a small scenario; no
// execution runs. Shadow state (BackendWorld::geometry_writes) is advanced with record_geometry_writes(), as
// check_invariants() does after every step.
#include <catch2/catch.hpp>

#include "backend/invariants/capacity.h"
#include "backend/invariants/check.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/invariant_table.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/backend/invariant_test_support.h"

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;
using backend::Claim;
using backend::DeviceIdentity;

namespace {

// flowA requests wa (a flow's workload); "fw" is nobody's (foreign). n1 carries gpu.count 2 as a label.
const char* kGeometryScenario = R"({
  "schema": "allocsim/scenario/v1", "name": "hand-built",
  "backend": { "authority": "managed-mig", "mig_apply_seconds": 5 },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
               "labels": { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2" } },
             { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "actors": [ { "name": "flowA", "script": [ { "op": "reserve", "requests": [ { "workload": "wa" } ] } ] } ],
  "converge_seconds": 10
})";

struct GeometryFixture {
  Scenario sc = parse_scenario(kGeometryScenario, "hand-built.json");
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  CheckContext ctx(bool quiescent = false) { return {world, 0, quiescent}; }
  backend::NodeFixture& n1() { return *s().node("n1"); }

  /// A live claim granting `workload` the GPUs `uuids` of node `node` (or one MIG slice when `mig`).
  Claim& grant(std::string id, std::string workload, std::string node, std::vector<std::string> uuids,
               bool mig = false) {
    Claim c;
    c.claim_id = id;
    c.owner = "flowA";
    c.generation = "gen-" + id;
    c.op_id = "flowA:" + id;
    c.nodes = {node};
    std::vector<DeviceIdentity> devices;
    for (const auto& u : uuids) {
      DeviceIdentity d;
      d.node = node;
      (mig ? d.mig_uuid : d.uuid) = u;
      devices.push_back(d);
    }
    c.plan.assignments.push_back({workload, devices});
    s().claims.push_back(std::move(c));
    return s().claims.back();
  }
  /// A label-geometry write of claim `claim_id` on n1, queued for later (as reserve does with a delay).
  void label_write(const std::string& claim_id) {
    n1().resource_version += 1;
    const int64_t v = n1().resource_version;
    s().claim(claim_id)->label_versions.push_back({"n1", v});
    s().audit.push_back({"flowA:" + claim_id, "label-geometry", "n1", "videoflow-flowA-g"});
    s().pending_geometry.push_back({s().clock.now() + 5, "n1", v});
  }
  /// What check_invariants does after a step that broke nothing.
  void end_step() {
    record_geometry_writes(world);
    record_bound_workloads(world);
    world.audit_seen = s().audit.size();
  }
};

}  // namespace

TEST_CASE("the four card and geometry rows come after every earlier row, in this order", "[invariants]") {
  const auto& cat = invariant_table();
  REQUIRE(cat.size() >= 18);
  CHECK(std::string(cat[13].name) == "actor-exception");
  CHECK(std::string(cat[14].name) == "capacity-within-cards");
  CHECK(std::string(cat[15].name) == "bound-workload-covered");
  CHECK(std::string(cat[16].name) == "no-apply-under-later-workload");
  CHECK(std::string(cat[17].name) == "geometry-converges");
  CHECK(cat[17].quiescent_only);
}

TEST_CASE("node_cards: gpu_count, lowered by a smaller numeric gpu.count label", "[invariants]") {
  GeometryFixture f;
  CHECK(node_cards(f.n1()) == 2);
  backend::put_in(f.n1().labels.edit(), "nvidia.com/gpu.count", std::string("1"));
  CHECK(node_cards(f.n1()) == 1);
  backend::put_in(f.n1().labels.edit(), "nvidia.com/gpu.count", std::string("8"));  // never above the fixture's cards
  CHECK(node_cards(f.n1()) == 2);
  backend::put_in(f.n1().labels.edit(), "nvidia.com/gpu.count", std::string("1x"));  // not a number: ignored
  CHECK(node_cards(f.n1()) == 2);
  CHECK(node_cards(*f.s().node("n2")) == 2);  // no labels at all
}

TEST_CASE("capacity-within-cards: granted cards plus uncovered units above the node's cards", "[invariants]") {
  GeometryFixture f;
  f.grant("c1", "wa", "n1", {"GPU-n1-0", "GPU-n1-1"});
  CHECK_FALSE(check_capacity_within_cards(f.ctx()));  // 2 granted of 2
  SECTION("a workload no live claim covers") {
    f.n1().workloads.push_back({"fw", 1});
    require_fires(check_capacity_within_cards(f.ctx()), "capacity-within-cards",
                  "node n1 has 2 cards, but live claims hold 2 and workloads no live claim covers hold 1 more");
  }
  SECTION("a covered workload counts once, through its claim") {
    f.n1().workloads.push_back({"wa", 2});
    CHECK_FALSE(check_capacity_within_cards(f.ctx()));
  }
  SECTION("the same card granted twice counts once (no-double-grant's business)") {
    f.grant("c2", "wb", "n1", {"GPU-n1-0"});
    CHECK_FALSE(check_capacity_within_cards(f.ctx()));
    f.grant("c3", "wc", "n1", {"GPU-n1-2"});
    require_fires(check_capacity_within_cards(f.ctx()), "capacity-within-cards", "live claims hold 3");
  }
  SECTION("MIG slices on a node count as one card, however many live claims hold them") {
    f.s().claims.clear();
    f.grant("c1", "wm", "n1", {"MIG-n1-1g.10gb-1", "MIG-n1-1g.10gb-2"}, true);
    f.grant("c2", "wn", "n1", {"MIG-n1-2g.20gb-1"}, true);
    f.n1().workloads.push_back({"fw", 1});
    CHECK_FALSE(check_capacity_within_cards(f.ctx()));  // 1 carved card + 1 foreign unit on 2 cards
    f.grant("c3", "wa", "n1", {"GPU-n1-1"});
    require_fires(check_capacity_within_cards(f.ctx()), "capacity-within-cards", "live claims hold 2");
  }
  SECTION("a releasing claim holds nothing; its workload then counts as uncovered") {
    f.s().claims[0].releasing = true;
    f.n1().workloads.push_back({"wa", 2});
    CHECK_FALSE(check_capacity_within_cards(f.ctx()));
    f.n1().workloads.push_back({"fw", 1});
    require_fires(check_capacity_within_cards(f.ctx()), "capacity-within-cards", "live claims hold 0");
  }
  SECTION("a card reported gone (gpu.count label 1)") {
    backend::put_in(f.n1().labels.edit(), "nvidia.com/gpu.count", std::string("1"));
    require_fires(check_capacity_within_cards(f.ctx()), "capacity-within-cards", "node n1 has 1 card, but");
  }
}

TEST_CASE("bound-workload-covered: a flow's workload losing its claim, or bound away from it", "[invariants]") {
  GeometryFixture f;
  f.n1().workloads.push_back({"fw", 1});  // foreign: nobody requests fw, so never judged
  f.n1().workloads.push_back({"wa", 1});  // bound with no claim at all: not judged (chaos binds)
  CHECK_FALSE(check_bound_workload_covered(f.ctx()));
  f.end_step();
  SECTION("covered once, then its claim starts releasing while it is bound") {
    Claim& c1 = f.grant("c1", "wa", "n1", {"GPU-n1-0"});
    CHECK_FALSE(check_bound_workload_covered(f.ctx()));
    f.end_step();
    REQUIRE(f.world.bound_workloads.size() == 1);  // wa only: fw is foreign
    CHECK(f.world.bound_workloads[0].covered);
    c1.releasing = true;
    require_fires(check_bound_workload_covered(f.ctx()), "bound-workload-covered",
                  "workload wa of flowA holds node n1 under a claim that no longer covers it");
  }
  SECTION("covered once, then its claim is gone") {
    f.grant("c1", "wa", "n1", {"GPU-n1-0"});
    f.end_step();
    f.s().claims.clear();
    require_fires(check_bound_workload_covered(f.ctx()), "bound-workload-covered", "no longer covers it");
    SECTION("unbound in the same step: nothing is bound uncovered") {
      backend::erase_in(f.n1().workloads, "wa");
      CHECK_FALSE(check_bound_workload_covered(f.ctx()));
    }
  }
  SECTION("bound in this step on a node its live claim does not grant it") {
    backend::erase_in(f.n1().workloads, "wa");
    f.end_step();  // wa not bound anywhere
    f.grant("c1", "wa", "n2", {"GPU-n2-0"});
    f.end_step();
    f.n1().workloads.push_back({"wa", 1});
    require_fires(check_bound_workload_covered(f.ctx()), "bound-workload-covered",
                  "workload wa of flowA was bound on node n1, but its live claims grant it devices only at c1@n2");
    SECTION("judged only in the step of the bind") {
      f.end_step();
      CHECK_FALSE(check_bound_workload_covered(f.ctx()));
    }
  }
  SECTION("a live claim granting it a device on its node") {
    f.grant("c1", "wa", "n1", {"GPU-n1-0"});
    CHECK_FALSE(check_bound_workload_covered(f.ctx()));
  }
}

TEST_CASE("no-apply-under-later-workload: an apply with a workload bound after the write", "[invariants]") {
  GeometryFixture f;
  f.n1().workloads.push_back({"fw", 1});  // held the node at the write: not this invariant's business
  f.grant("c1", "wm", "n1", {"MIG-n1-1g.10gb-1"}, true);
  f.label_write("c1");
  f.end_step();
  REQUIRE(f.world.geometry_writes.size() == 1);
  CHECK(f.world.geometry_writes[0].workloads == std::vector<std::string>{"fw"});
  f.n1().workloads.push_back({"wb", 1});                      // bound after the write, before the apply
  CHECK_FALSE(check_no_apply_under_later_workload(f.ctx()));  // still queued
  f.end_step();
  f.s().pending_geometry.clear();  // the apply ran during this step
  require_fires(check_no_apply_under_later_workload(f.ctx()), "no-apply-under-later-workload",
                "applied on node n1 while workload wb, bound after that write, holds it");
  SECTION("only workloads bound after the write count") {
    backend::erase_in(f.n1().workloads, "wb");
    CHECK_FALSE(check_no_apply_under_later_workload(f.ctx()));
  }
  SECTION("an apply judged at an earlier step is not judged again") {
    f.end_step();
    CHECK(f.world.geometry_writes[0].applied_at.has_value());
    CHECK_FALSE(check_no_apply_under_later_workload(f.ctx()));
  }
}

TEST_CASE("geometry-converges: a write applied late, or not applied once the bound passed", "[invariants]") {
  GeometryFixture f;  // converge_seconds 10
  f.grant("c1", "wm", "n1", {"MIG-n1-1g.10gb-1"}, true);
  const double t0 = f.s().clock.now();
  f.label_write("c1");
  f.end_step();
  CHECK(f.world.geometry_writes.at(0).written_at == t0);
  SECTION("not applied, the bound not yet passed: cannot be judged") {
    f.s().clock.advance(9.5);
    CHECK_FALSE(check_geometry_converges(f.ctx(true)));
  }
  SECTION("not applied when the bound passed") {
    f.s().clock.advance(10);
    require_fires(check_geometry_converges(f.ctx(true)), "geometry-converges",
                  "is still not applied 10 s after it was written (converge_seconds 10)");
  }
  SECTION("applied within the bound") {
    f.s().clock.advance(10);
    f.s().pending_geometry.clear();
    f.end_step();
    CHECK(f.world.geometry_writes[0].applied_at == t0 + 10);
    f.s().clock.advance(100);  // later time does not matter once applied
    CHECK_FALSE(check_geometry_converges(f.ctx(true)));
  }
  SECTION("applied later than the bound") {
    f.s().clock.advance(12);
    f.s().pending_geometry.clear();
    f.end_step();
    require_fires(check_geometry_converges(f.ctx(true)), "geometry-converges",
                  "applied 12 s after it was written (converge_seconds 10)");
  }
  SECTION("check_invariants judges it only at quiescence") {
    f.n1().owner = "flowA";  // single-ownership holds
    f.n1().owner_epoch = "gen-c1";
    f.world.audit_base = f.s();  // a hand-built stamp: the base audit-explains-state replays from
    f.s().clock.advance(10);
    CHECK_FALSE(check_invariants(f.world, 0, false));
    auto v = check_invariants(f.world, sim::kNoActor, true);
    REQUIRE(v);
    CHECK(v->invariant == "geometry-converges");
  }
}

TEST_CASE("geometry writes are recorded only while one of their two invariants is enabled", "[invariants]") {
  GeometryFixture f;
  f.grant("c1", "wm", "n1", {"MIG-n1-1g.10gb-1"}, true);
  set_invariants(*f.compiled, {0});  // single-ownership only
  f.label_write("c1");
  f.end_step();
  CHECK(f.world.geometry_writes.empty());
}

TEST_CASE("converge_seconds: default 600 s, or the scenario's", "[invariants]") {
  GeometryFixture f;
  CHECK(resolve_converge_seconds(f.sc) == 10);
  Scenario plain;
  CHECK(resolve_converge_seconds(plain) == kDefaultConvergeSeconds);
  CHECK(kDefaultConvergeSeconds == 600);
}

TEST_CASE("bound-workload-covered fires under restore-under-workloads on whole cards, and holds on upstream",
          "[invariants][mutants]") {
  // ALLOC-013 on a device-plugin node: flowA reserves one card, binds its workload and releases. Upstream
  // answers pending_recovery and keeps the claim live; the mutant removes the claim under the bound workload.
  // No geometry is involved, so geometry-stable-under-workloads cannot catch it here.
  const char* text = R"({
    "schema": "allocsim/scenario/v1", "name": "restore-under-workloads-whole-cards",
    "backend": { "authority": "device-plugin", "mutants": ["restore-under-workloads"] },
    "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
                 "labels": { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2" } } ],
    "actors": [ { "name": "flowA", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa", "devices": 1 } ] },
      { "op": "bind_workload", "node": "n1", "workload": "wa", "units": 1 },
      { "op": "release" } ] } ]
  })";
  Scenario sc = parse_scenario(text, "whole-cards.json");
  campaign::ExploreConfig cfg;
  cfg.executions = 10;
  const campaign::RunReport mutated = campaign::run(*subject_of(sc), cfg);
  CHECK(mutated.summary.violating_executions == 10);
  CHECK(mutated.summary.violations_by_invariant.count("bound-workload-covered") == 1);
  CHECK(mutated.summary.violations_by_invariant.size() == 1);
  sc.mutants.clear();
  const campaign::RunReport faithful = campaign::run(*subject_of(sc), cfg);
  CHECK(faithful.summary.violating_executions == 0);
}

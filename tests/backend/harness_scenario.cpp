// The scenario loader (backend/scenario/scenario.h): every field and default of a valid file, every error
// path with its exact pointer, the digest, and a corpus of malformed files (tests/backend/malformed/,
// listed with their expected errors in EXPECTED.tsv).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// Inlined so this test pins the digest's byte order without depending on how the library links xxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "backend/invariants/catalog.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario.h"

using namespace allocsim::harness;
using Catch::Matchers::Contains;
using Json = nlohmann::ordered_json;

namespace {

namespace fs = std::filesystem;

const char* const kFull = R"({
  "schema": "allocsim/scenario/v1",
  "name": "full",
  "description": "every field",
  "backend": { "authority": "managed-mig", "mig_apply_seconds": 2.5,
               "mutants": ["stale-last-out", "client-side-claim"] },
  "nodes": [
    { "name": "zeta", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "labels": { "z.example/last": "1", "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "a": "" },
      "workloads": { "foreign-b": 1, "foreign-a": 1 }, "mig_config": "all-1g.10gb" },
    { "name": "alpha.1_x-y", "product": "P", "gpu_count": 64, "memory_gib": 0.5 }
  ],
  "actors": [
    { "name": "flowB", "script": [
        { "op": "inventory", "nodes": ["alpha.1_x-y", "zeta"] },
        { "op": "inventory" },
        { "op": "plan", "requests": [
            { "workload": "wb", "devices": 2, "sharing": "isolated_mig", "minimum_usable_memory_gib": 10 },
            { "workload": "wa" } ] },
        { "op": "reserve" },
        { "op": "observe" },
        { "op": "await", "status": "prepared", "polls_max": 3 },
        { "op": "await", "status": "ready" },
        { "op": "mark_ready" },
        { "op": "reconcile", "status": "failed" },
        { "op": "release", "keep_workloads": true },
        { "op": "release" } ] },
    { "name": "flow_A-2", "script": [
        { "op": "reserve", "plan_from": "flowB" },
        { "op": "reserve", "requests": [ { "workload": "w", "sharing": "accounting_only",
                                           "minimum_usable_memory_gib": 0 } ] },
        { "op": "bind_workload", "node": "zeta", "workload": "pod-1", "units": 2 },
        { "op": "bind_workload", "node": "zeta", "workload": "pod-2" },
        { "op": "unbind_workload", "node": "zeta", "workload": "pod-1" },
        { "op": "fail_reads", "kind": "pods" },
        { "op": "restore_reads", "kind": "config" },
        { "op": "fail_geometry", "node": "alpha.1_x-y" },
        { "op": "advance_clock", "seconds": 30 } ] },
    { "name": "idle", "script": [] }
  ],
  "invariants": ["single-ownership", "shared-map-never-deleted", "no-double-grant"],
  "expect": { "outcome": "violation", "violation": ["shared-map-never-deleted", "single-ownership"],
              "actors": { "flow_A-2": { "reserve": ["conflict", "claimed"], "advance_clock": ["done"] },
                          "flowB": { "await": ["timeout", "ready"] } },
              "reach": ["delete.before", "owner.read.after"] }
})";

/// The smallest valid scenario; error cases patch it.
Json base() {
  return Json::parse(R"({
    "schema": "allocsim/scenario/v1",
    "name": "t",
    "nodes": [ { "name": "n1", "product": "P", "gpu_count": 2, "memory_gib": 80 },
               { "name": "n2", "product": "P", "gpu_count": 2, "memory_gib": 80 } ],
    "actors": [
      { "name": "a", "script": [ { "op": "inventory" }, { "op": "plan", "requests": [ { "workload": "w" } ] },
                                 { "op": "reserve" }, { "op": "release" } ] },
      { "name": "b", "script": [ { "op": "reserve", "plan_from": "a" } ] } ]
  })");
}

/// What parse_scenario threw for `text`, or a ScenarioError with pointer "<none>" when it did not throw.
ScenarioError error_of(const std::string& text, const std::string& file = "mem.json") {
  try {
    parse_scenario(text, file);
  } catch (const ScenarioError& e) {
    return e;
  }
  return ScenarioError(file, "<none>", "parsed without error");
}

struct Case {
  const char* what;
  std::vector<std::pair<std::string, Json>> set;  // JSON pointer -> value, applied in order
  std::vector<std::string> erase;                 // object members to remove
  std::string pointer;
  std::string message;  // a substring of the expected message
};

Json patched(const Case& c) {
  Json doc = base();
  for (const auto& [ptr, value] : c.set) doc[Json::json_pointer(ptr)] = value;
  for (const auto& ptr : c.erase) {
    const Json::json_pointer p(ptr);
    doc[p.parent_pointer()].erase(p.back());
  }
  return doc;
}

void check_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.what) {
      const ScenarioError e = error_of(patched(c).dump(2));
      INFO(e.what());
      CHECK(e.file() == "mem.json");
      CHECK(e.pointer() == c.pointer);
      CHECK_THAT(e.message(), Contains(c.message));
    }
  }
}

Json op(const char* text) { return Json::parse(text); }

/// Every invariant name, as the table has them now (an `all_except` that leaves nothing).
Json every_invariant() {
  Json all = Json::array();
  for (const char* name : invariant_names()) all.push_back(name);
  return all;
}

/// A scratch directory unique to this process (ctest may run test cases in parallel).
fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("allocsim-harness-scenario-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("op vocabulary: names in enum order, outcomes per op", "[scenario]") {
  const auto& names = op_names();
  REQUIRE(names.size() == 23);
  CHECK(std::string(op_name(OpKind::Recover)) == "recover");
  CHECK(std::string(op_name(OpKind::Inventory)) == "inventory");
  CHECK(std::string(op_name(OpKind::MarkReady)) == "mark_ready");
  CHECK(std::string(op_name(OpKind::AdvanceClock)) == "advance_clock");
  CHECK(std::string(op_name(OpKind::GeometryNoEffect)) == "geometry_no_effect");
  CHECK(std::string(op_name(OpKind::SetPointer)) == "set_pointer");
  for (std::size_t i = 0; i < names.size(); ++i) CHECK(op_name(static_cast<OpKind>(i)) == names[i]);
  const auto words = [](OpKind k) { return std::vector<std::string>(op_outcomes(k).begin(), op_outcomes(k).end()); };
  using V = std::vector<std::string>;
  CHECK(words(OpKind::Inventory) == V{"complete", "partial", "unknown"});
  CHECK(words(OpKind::Plan) == V{"feasible", "infeasible", "skipped"});
  CHECK(words(OpKind::Reserve) == V{"claimed", "conflict", "infeasible", "unknown", "skipped", "error", "crashed"});
  CHECK(words(OpKind::Observe) == V{"pending", "allocated", "prepared", "ready", "failed", "unknown", "skipped"});
  CHECK(words(OpKind::Await) == V{"pending", "allocated", "prepared", "ready", "failed", "timeout", "skipped"});
  CHECK(words(OpKind::MarkReady) == V{"done", "skipped", "error", "unknown", "crashed"});
  CHECK(words(OpKind::Reconcile) == V{"pending", "allocated", "prepared", "ready", "failed", "conflict", "skipped"});
  CHECK(words(OpKind::Release) == V{"released", "pending_recovery", "stale", "skipped", "error", "unknown", "crashed"});
  CHECK(words(OpKind::Recover) == V{"released", "none", "pending_recovery", "stale", "error", "unknown", "crashed"});
  for (OpKind k :
       {OpKind::BindWorkload, OpKind::UnbindWorkload, OpKind::FailReads, OpKind::RestoreReads, OpKind::FailGeometry,
        OpKind::AdvanceClock, OpKind::SetLabels, OpKind::SetMigState, OpKind::WriteSharedMap, OpKind::SetPointer,
        OpKind::StaleReads, OpKind::PartialReads, OpKind::FailGeometryFor, OpKind::GeometryNoEffect})
    CHECK(words(k) == V{"done"});
}

TEST_CASE("ScenarioError::what is FILE: POINTER: MESSAGE, the root as (document root), none for the file",
          "[scenario]") {
  CHECK(std::string(ScenarioError("f.json", "/nodes/0", "bad").what()) == "f.json: /nodes/0: bad");
  CHECK(std::string(ScenarioError("f.json", "", "bad").what()) == "f.json: (document root): bad");
  CHECK(std::string(ScenarioError(allocsim::support::InputError::about_file("f.json", "file is empty")).what()) ==
        "f.json: file is empty");
  CHECK_THROWS_WITH(parse_scenario("[]", "f.json"),
                    "f.json: (document root): expected an object at the top level, got array");
  CHECK_THROWS_WITH(parse_scenario(" ", "f.json"), "f.json: file is empty");
  const ScenarioError e("f", "/p", "m");
  CHECK(e.file() == "f");
  CHECK(e.pointer() == "/p");
  CHECK(e.message() == "m");
}

TEST_CASE("a full scenario parses with every field, in file order", "[scenario]") {
  const Scenario s = parse_scenario(kFull, "dir/full.json");
  CHECK(s.path == "dir/full.json");
  CHECK(s.name == "full");
  CHECK(s.description == "every field");
  CHECK(s.authority == "managed-mig");
  CHECK(s.mig_apply_seconds == 2.5);
  CHECK(s.mutants == std::vector<std::string>{"stale-last-out", "client-side-claim"});

  REQUIRE(s.nodes.size() == 2);
  const NodeSpec& zeta = s.nodes[0];
  CHECK(zeta.name == "zeta");
  CHECK(zeta.product == "NVIDIA-A100-SXM4-80GB");
  CHECK(zeta.gpu_count == 2);
  CHECK(zeta.memory_gib == 80);
  using Labels = OrderedMap<std::string, std::string>;
  CHECK(zeta.labels == Labels{{"z.example/last", "1"}, {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"a", ""}});
  CHECK(zeta.workloads == OrderedMap<std::string, int>{{"foreign-b", 1}, {"foreign-a", 1}});
  CHECK(zeta.mig_config == "all-1g.10gb");
  const NodeSpec& alpha = s.nodes[1];
  CHECK(alpha.name == "alpha.1_x-y");
  CHECK(alpha.gpu_count == 64);
  CHECK(alpha.memory_gib == 0.5);
  // No "labels" key: the plain-GPU-node default.
  CHECK(alpha.labels == Labels{{"nvidia.com/gpu.product", alpha.product}, {"nvidia.com/gpu.count", "64"}});
  CHECK(alpha.workloads.empty());
  CHECK(alpha.mig_config == "all-disabled");

  REQUIRE(s.actors.size() == 3);
  CHECK(s.actors[0].name == "flowB");
  CHECK(s.actors[1].name == "flow_A-2");
  CHECK(s.actors[2].name == "idle");
  CHECK(s.actors[2].script.empty());

  const auto& b = s.actors[0].script;
  REQUIRE(b.size() == 11);
  for (std::size_t i = 0; i < b.size(); ++i) CHECK(b[i].pointer == "/actors/0/script/" + std::to_string(i));
  CHECK(b[0].kind == OpKind::Inventory);
  CHECK(b[0].nodes == std::vector<std::string>{"alpha.1_x-y", "zeta"});
  CHECK_FALSE(b[1].nodes.has_value());
  CHECK(b[2].kind == OpKind::Plan);
  CHECK(b[2].has_requests);
  REQUIRE(b[2].requests.size() == 2);
  CHECK(b[2].requests[0].workload == "wb");
  CHECK(b[2].requests[0].devices == 2);
  CHECK(b[2].requests[0].sharing == "isolated_mig");
  CHECK(b[2].requests[0].minimum_usable_memory_gib == 10.0);
  CHECK(b[2].requests[1].workload == "wa");
  CHECK(b[2].requests[1].devices == 1);
  CHECK(b[2].requests[1].sharing == "exclusive");
  CHECK_FALSE(b[2].requests[1].minimum_usable_memory_gib.has_value());
  CHECK(b[3].kind == OpKind::Reserve);
  CHECK_FALSE(b[3].has_requests);
  CHECK(b[3].requests.empty());
  CHECK_FALSE(b[3].plan_from.has_value());
  CHECK(b[4].kind == OpKind::Observe);
  CHECK(b[5].kind == OpKind::Await);
  CHECK(b[5].status == "prepared");
  CHECK(b[5].polls_max == 3);
  CHECK(b[6].status == "ready");
  CHECK(b[6].polls_max == 1);
  CHECK(b[7].kind == OpKind::MarkReady);
  CHECK(b[8].kind == OpKind::Reconcile);
  CHECK(b[8].status == "failed");
  CHECK(b[9].kind == OpKind::Release);
  CHECK(b[9].keep_workloads);
  CHECK_FALSE(b[10].keep_workloads);

  const auto& a = s.actors[1].script;
  REQUIRE(a.size() == 9);
  CHECK(a[0].pointer == "/actors/1/script/0");
  CHECK(a[0].plan_from == std::optional<std::string>("flowB"));
  CHECK_FALSE(a[0].has_requests);
  CHECK(a[1].has_requests);
  REQUIRE(a[1].requests.size() == 1);
  CHECK(a[1].requests[0].sharing == "accounting_only");
  CHECK(a[1].requests[0].minimum_usable_memory_gib == 0.0);
  CHECK_FALSE(a[1].plan_from.has_value());
  CHECK(a[2].kind == OpKind::BindWorkload);
  CHECK(a[2].node == "zeta");
  CHECK(a[2].workload == "pod-1");
  CHECK(a[2].units == 2);
  CHECK(a[3].units == 1);
  CHECK(a[4].kind == OpKind::UnbindWorkload);
  CHECK(a[4].workload == "pod-1");
  CHECK(a[5].kind == OpKind::FailReads);
  CHECK(a[5].read_kind == "pods");
  CHECK(a[6].kind == OpKind::RestoreReads);
  CHECK(a[6].read_kind == "config");
  CHECK(a[7].kind == OpKind::FailGeometry);
  CHECK(a[7].node == "alpha.1_x-y");
  CHECK(a[8].kind == OpKind::AdvanceClock);
  CHECK(a[8].seconds == 30);

  CHECK(s.invariants == std::vector<std::string>{"single-ownership", "shared-map-never-deleted", "no-double-grant"});
  CHECK_FALSE(s.expect.pass);
  CHECK(s.expect.violations == std::vector<std::string>{"shared-map-never-deleted", "single-ownership"});
  using Ops = OrderedMap<std::string, std::vector<std::string>>;
  REQUIRE(s.expect.actors.size() == 2);
  CHECK(s.expect.actors[0].first == "flow_A-2");
  CHECK(s.expect.actors[0].second == Ops{{"reserve", {"conflict", "claimed"}}, {"advance_clock", {"done"}}});
  CHECK(s.expect.actors[1].first == "flowB");
  CHECK(s.expect.actors[1].second == Ops{{"await", {"timeout", "ready"}}});
  CHECK(s.expect.reach == std::vector<std::string>{"delete.before", "owner.read.after"});
}

TEST_CASE("a minimal scenario gets every default", "[scenario]") {
  const Scenario s = parse_scenario(base().dump(), "min.json");
  CHECK(s.description.empty());
  CHECK(s.authority == "device-plugin");
  CHECK(s.mig_apply_seconds == 0);
  CHECK(s.mutants.empty());
  CHECK(s.invariants.empty());
  CHECK(s.expect.pass);
  CHECK(s.expect.violations.empty());
  CHECK(s.expect.actors.empty());
  CHECK(s.expect.reach.empty());
  CHECK(s.nodes[0].mig_config == "all-disabled");
  REQUIRE(s.actors[1].script.size() == 1);
  CHECK(s.actors[1].script[0].plan_from == std::optional<std::string>("a"));
}

TEST_CASE("expect: the accepted spellings of pass and violation", "[scenario]") {
  const auto with_expect = [](const char* expect, const char* invariants = nullptr) {
    Json doc = base();
    doc["expect"] = Json::parse(expect);
    if (invariants != nullptr) doc["invariants"] = Json::parse(invariants);
    return parse_scenario(doc.dump(), "e.json");
  };
  CHECK(with_expect("{}").expect.pass);
  CHECK(with_expect(R"({"outcome": "pass"})").expect.pass);
  const Scenario one = with_expect(R"({"violation": "no-double-grant"})");
  CHECK_FALSE(one.expect.pass);
  CHECK(one.expect.violations == std::vector<std::string>{"no-double-grant"});
  const Scenario both =
      with_expect(R"({"outcome": "violation", "violation": ["steps-bounded"]})", R"(["steps-bounded"])");
  CHECK_FALSE(both.expect.pass);
  CHECK(both.expect.violations == std::vector<std::string>{"steps-bounded"});
  CHECK(with_expect("{}", R"("all")").invariants.empty());
  CHECK(with_expect(R"({"reach": []})").expect.reach.empty());
}

TEST_CASE("plan_from may name an actor defined later in the file", "[scenario]") {
  Json doc = base();
  doc["actors"][0]["script"].push_back(op(R"({"op": "reserve", "plan_from": "b"})"));
  const Scenario s = parse_scenario(doc.dump(), "fwd.json");
  CHECK(s.actors[0].script.back().plan_from == std::optional<std::string>("b"));
}

TEST_CASE("errors: top level and backend", "[scenario][errors]") {
  check_cases({
      {"schema missing", {}, {"/schema"}, "", "missing required key \"schema\""},
      {"schema wrong",
       {{"/schema", "allocsim/scenario/v2"}},
       {},
       "/schema",
       "expected \"allocsim/scenario/v1\", got \"allocsim/scenario/v2\""},
      {"schema not a string", {{"/schema", 1}}, {}, "/schema", "expected \"allocsim/scenario/v1\", got number"},
      {"typo key",
       {{"/decription", "x"}},
       {},
       "/decription",
       "unknown key \"decription\" (did you mean \"description\"?)"},
      {"faults not an object", {{"/faults", Json::array()}}, {}, "/faults", "expected an object, got array"},
      {"unknown key lists the keys", {{"/zzz", 1}}, {}, "/zzz", "(expected one of \"schema\", \"name\""},
      {"name missing", {}, {"/name"}, "", "missing required key \"name\""},
      {"name empty", {{"/name", ""}}, {}, "/name", "expected a non-empty string, got \"\""},
      {"name number", {{"/name", 3}}, {}, "/name", "expected a string, got number"},
      {"description not a string",
       {{"/description", Json::array()}},
       {},
       "/description",
       "expected a string, got array"},
      {"backend not an object", {{"/backend", Json::array()}}, {}, "/backend", "expected an object, got array"},
      {"backend typo",
       {{"/backend/mutant", Json::array()}},
       {},
       "/backend/mutant",
       "unknown key \"mutant\" (did you mean \"mutants\"?)"},
      {"authority typo",
       {{"/backend/authority", "managed_mig"}},
       {},
       "/backend/authority",
       "expected one of \"device-plugin\", \"managed-mig\", \"local\", \"dra\", got \"managed_mig\" (did you mean "
       "\"managed-mig\"?)"},
      {"authority not a string", {{"/backend/authority", nullptr}}, {}, "/backend/authority", "got null"},
      {"mig_apply_seconds negative",
       {{"/backend/mig_apply_seconds", -1}},
       {},
       "/backend/mig_apply_seconds",
       "expected a number from 0 to 86400, got -1"},
      {"mig_apply_seconds absurd",
       {{"/backend/mig_apply_seconds", 1e9}},
       {},
       "/backend/mig_apply_seconds",
       "expected a number from 0 to 86400, got 1000000000.0"},
      {"mig_apply_seconds string",
       {{"/backend/mig_apply_seconds", "5"}},
       {},
       "/backend/mig_apply_seconds",
       "expected a number from 0 to 86400, got string"},
      {"mutants not an array",
       {{"/backend/mutants", "stale-last-out"}},
       {},
       "/backend/mutants",
       "expected an array, got string"},
      {"mutant unknown",
       {{"/backend/mutants", {"client-side-claims"}}},
       {},
       "/backend/mutants/0",
       "unknown mutant \"client-side-claims\" (did you mean \"client-side-claim\"?)"},
      {"mutant duplicate",
       {{"/backend/mutants", {"stale-last-out", "stale-last-out"}}},
       {},
       "/backend/mutants/1",
       "duplicate mutant \"stale-last-out\" (first at /backend/mutants/0)"},
      {"mutant not a string", {{"/backend/mutants", {1}}}, {}, "/backend/mutants/0", "expected a string, got number"},
  });
}

TEST_CASE("errors: nodes", "[scenario][errors]") {
  Json many = Json::array();
  for (int i = 0; i < 65; ++i)
    many.push_back({{"name", "n" + std::to_string(i)}, {"product", "P"}, {"gpu_count", 1}, {"memory_gib", 1}});
  check_cases({
      {"nodes missing", {}, {"/nodes"}, "", "missing required key \"nodes\""},
      {"nodes empty", {{"/nodes", Json::array()}}, {}, "/nodes", "expected 1 to 64 nodes, got 0"},
      {"nodes too many", {{"/nodes", many}}, {}, "/nodes", "expected 1 to 64 nodes, got 65"},
      {"nodes object", {{"/nodes", Json::object()}}, {}, "/nodes", "expected an array, got object"},
      {"node not an object", {{"/nodes/1", "n2"}}, {}, "/nodes/1", "expected an object, got string"},
      {"gpu_count missing", {}, {"/nodes/1/gpu_count"}, "/nodes/1", "missing required key \"gpu_count\""},
      {"gpu_count zero",
       {{"/nodes/0/gpu_count", 0}},
       {},
       "/nodes/0/gpu_count",
       "expected an integer from 1 to 64, got 0"},
      {"gpu_count negative", {{"/nodes/0/gpu_count", -3}}, {}, "/nodes/0/gpu_count", "got -3"},
      {"gpu_count float",
       {{"/nodes/0/gpu_count", 1.5}},
       {},
       "/nodes/0/gpu_count",
       "expected an integer from 1 to 64, got 1.5"},
      {"gpu_count integral float", {{"/nodes/0/gpu_count", 2.0}}, {}, "/nodes/0/gpu_count", "got 2.0"},
      {"gpu_count boolean", {{"/nodes/0/gpu_count", true}}, {}, "/nodes/0/gpu_count", "got boolean"},
      {"gpu_count string", {{"/nodes/0/gpu_count", "2"}}, {}, "/nodes/0/gpu_count", "got string"},
      {"gpu_count huge",
       {{"/nodes/0/gpu_count", 18446744073709551615ull}},
       {},
       "/nodes/0/gpu_count",
       "got 18446744073709551615"},
      {"gpu_count 65", {{"/nodes/0/gpu_count", 65}}, {}, "/nodes/0/gpu_count", "got 65"},
      {"memory_gib zero",
       {{"/nodes/0/memory_gib", 0}},
       {},
       "/nodes/0/memory_gib",
       "expected a number greater than 0 and at most 4096, got 0"},
      {"memory_gib absurd", {{"/nodes/0/memory_gib", 4097}}, {}, "/nodes/0/memory_gib", "got 4097"},
      {"memory_gib null", {{"/nodes/0/memory_gib", nullptr}}, {}, "/nodes/0/memory_gib", "got null"},
      {"product empty", {{"/nodes/0/product", ""}}, {}, "/nodes/0/product", "expected a non-empty string"},
      {"node name charset",
       {{"/nodes/0/name", "n 1"}},
       {},
       "/nodes/0/name",
       "invalid node name \"n 1\": use only letters, digits, '.', '_' and '-'"},
      {"node name slash", {{"/nodes/0/name", "a/b"}}, {}, "/nodes/0/name", "invalid node name \"a/b\""},
      {"node name duplicate",
       {{"/nodes/1/name", "n1"}},
       {},
       "/nodes/1/name",
       "duplicate node name \"n1\" (first at /nodes/0)"},
      {"node key typo",
       {{"/nodes/0/gpu_cont", 1}},
       {},
       "/nodes/0/gpu_cont",
       "unknown key \"gpu_cont\" (did you mean \"gpu_count\"?)"},
      {"label value not a string, pointer escaped",
       {{"/nodes/0/labels", {{"nvidia.com/gpu.count", 2}}}},
       {},
       "/nodes/0/labels/nvidia.com~1gpu.count",
       "expected a string, got number"},
      {"label key with tilde", {{"/nodes/0/labels", {{"a~b", false}}}}, {}, "/nodes/0/labels/a~0b", "got boolean"},
      {"labels not an object",
       {{"/nodes/0/labels", Json::array()}},
       {},
       "/nodes/0/labels",
       "expected an object, got array"},
      {"workload units above gpu_count",
       {{"/nodes/0/workloads", {{"pod", 3}}}},
       {},
       "/nodes/0/workloads/pod",
       "expected an integer from 1 to 2 (the node's gpu_count), got 3"},
      {"workload units zero", {{"/nodes/0/workloads", {{"pod", 0}}}}, {}, "/nodes/0/workloads/pod", "got 0"},
      {"workload id empty",
       {{"/nodes/0/workloads", {{"", 1}}}},
       {},
       "/nodes/0/workloads/",
       "workload ids must be non-empty"},
      {"mig_config empty", {{"/nodes/0/mig_config", ""}}, {}, "/nodes/0/mig_config", "expected a non-empty string"},
  });
}

TEST_CASE("errors: actors and ops", "[scenario][errors]") {
  Json many_actors = Json::array();
  for (int i = 0; i < 17; ++i) many_actors.push_back({{"name", "x" + std::to_string(i)}, {"script", Json::array()}});
  Json long_script = Json::array();
  for (int i = 0; i < 257; ++i) long_script.push_back(op(R"({"op": "observe"})"));
  check_cases({
      {"actors missing", {}, {"/actors"}, "", "missing required key \"actors\""},
      {"actors empty", {{"/actors", Json::array()}}, {}, "/actors", "expected 1 to 16 actors, got 0"},
      {"actors too many", {{"/actors", many_actors}}, {}, "/actors", "expected 1 to 16 actors, got 17"},
      {"actor key typo",
       {{"/actors/0/scrpt", Json::array()}},
       {},
       "/actors/0/scrpt",
       "unknown key \"scrpt\" (did you mean \"script\"?)"},
      {"actor name with colon", {{"/actors/0/name", "a:b"}}, {}, "/actors/0/name", "invalid actor name \"a:b\": ':'"},
      {"actor name with dot",
       {{"/actors/0/name", "a.b"}},
       {},
       "/actors/0/name",
       "invalid actor name \"a.b\": use only letters, digits, '_' and '-'"},
      {"actor name duplicate",
       {{"/actors/1/name", "a"}},
       {},
       "/actors/1/name",
       "duplicate actor name \"a\" (first at /actors/0)"},
      {"script missing", {}, {"/actors/1/script"}, "/actors/1", "missing required key \"script\""},
      {"script too long",
       {{"/actors/0/script", long_script}},
       {},
       "/actors/0/script",
       "expected 0 to 256 ops, got 257"},
      {"op not an object",
       {{"/actors/0/script/1", "plan"}},
       {},
       "/actors/0/script/1",
       "expected an object, got string"},
      {"op missing", {{"/actors/0/script/1", Json::object()}}, {}, "/actors/0/script/1", "missing required key \"op\""},
      {"op typo",
       {{"/actors/0/script/2/op", "reserv"}},
       {},
       "/actors/0/script/2/op",
       "unknown op \"reserv\" (did you mean \"reserve\"?)"},
      {"op transposition",
       {{"/actors/0/script/0/op", "inevntory"}},
       {},
       "/actors/0/script/0/op",
       "(did you mean \"inventory\"?)"},
      {"op unknown",
       {{"/actors/0/script/0/op", "frobnicate"}},
       {},
       "/actors/0/script/0/op",
       "unknown op \"frobnicate\" (expected one of \"inventory\", \"plan\""},
      {"op name not a string",
       {{"/actors/0/script/0/op", 7}},
       {},
       "/actors/0/script/0/op",
       "expected a string, got number"},
      {"key of another op",
       {{"/actors/0/script/3", op(R"({"op": "release", "status": "ready"})")}},
       {},
       "/actors/0/script/3/status",
       "unknown key \"status\" for op \"release\""},
      {"op key typo",
       {{"/actors/0/script/3", op(R"({"op": "release", "keep_workload": true})")}},
       {},
       "/actors/0/script/3/keep_workload",
       "unknown key \"keep_workload\" for op \"release\" (did you mean \"keep_workloads\"?)"},
      {"observe takes nothing",
       {{"/actors/0/script/3", op(R"({"op": "observe", "x": 1})")}},
       {},
       "/actors/0/script/3/x",
       "unknown key \"x\" for op \"observe\""},
      {"keep_workloads not a bool",
       {{"/actors/0/script/3", op(R"({"op": "release", "keep_workloads": "yes"})")}},
       {},
       "/actors/0/script/3/keep_workloads",
       "expected a boolean, got string"},
      {"inventory scope empty",
       {{"/actors/0/script/0/nodes", Json::array()}},
       {},
       "/actors/0/script/0/nodes",
       "expected a non-empty array of node names"},
      {"inventory scope unknown node",
       {{"/actors/0/script/0/nodes", {"n1", "n9"}}},
       {},
       "/actors/0/script/0/nodes/1",
       "node \"n9\" is not in /nodes"},
      {"inventory scope duplicate",
       {{"/actors/0/script/0/nodes", {"n2", "n2"}}},
       {},
       "/actors/0/script/0/nodes/1",
       "duplicate node \"n2\" (first at /actors/0/script/0/nodes/0)"},
      {"plan without requests",
       {},
       {"/actors/0/script/1/requests"},
       "/actors/0/script/1",
       "missing required key \"requests\""},
      {"plan requests empty",
       {{"/actors/0/script/1/requests", Json::array()}},
       {},
       "/actors/0/script/1/requests",
       "expected 1 to 16 requests, got 0"},
      {"request not an object",
       {{"/actors/0/script/1/requests/0", "w"}},
       {},
       "/actors/0/script/1/requests/0",
       "expected an object, got string"},
      {"request workload missing",
       {{"/actors/0/script/1/requests/0", Json::object()}},
       {},
       "/actors/0/script/1/requests/0",
       "missing required key \"workload\""},
      {"request duplicate workload",
       {{"/actors/0/script/1/requests/1", {{"workload", "w"}}}},
       {},
       "/actors/0/script/1/requests/1/workload",
       "duplicate workload \"w\" (first at /actors/0/script/1/requests/0)"},
      {"request devices zero",
       {{"/actors/0/script/1/requests/0/devices", 0}},
       {},
       "/actors/0/script/1/requests/0/devices",
       "expected an integer from 1 to 64, got 0"},
      {"request sharing typo",
       {{"/actors/0/script/1/requests/0/sharing", "exclusiv"}},
       {},
       "/actors/0/script/1/requests/0/sharing",
       "got \"exclusiv\" (did you mean \"exclusive\"?)"},
      {"request memory negative",
       {{"/actors/0/script/1/requests/0/minimum_usable_memory_gib", -1}},
       {},
       "/actors/0/script/1/requests/0/minimum_usable_memory_gib",
       "expected a number from 0 to 4096, got -1"},
      {"request key typo",
       {{"/actors/0/script/1/requests/0/device", 1}},
       {},
       "/actors/0/script/1/requests/0/device",
       "unknown key \"device\" (did you mean \"devices\"?)"},
      {"reserve with both",
       {{"/actors/1/script/0/requests", {{{"workload", "w"}}}}},
       {},
       "/actors/1/script/0",
       "reserve takes \"requests\" or \"plan_from\", not both"},
      {"plan_from unknown",
       {{"/actors/1/script/0/plan_from", "zed"}},
       {},
       "/actors/1/script/0/plan_from",
       "actor \"zed\" is not in /actors"},
      {"plan_from self",
       {{"/actors/1/script/0/plan_from", "b"}},
       {},
       "/actors/1/script/0/plan_from",
       "plan_from names the actor itself (\"b\")"},
      {"plan_from empty",
       {{"/actors/1/script/0/plan_from", ""}},
       {},
       "/actors/1/script/0/plan_from",
       "expected a non-empty string"},
      {"await without status",
       {{"/actors/1/script/0", op(R"({"op": "await"})")}},
       {},
       "/actors/1/script/0",
       "missing required key \"status\""},
      {"await status typo",
       {{"/actors/1/script/0", op(R"({"op": "await", "status": "prepard"})")}},
       {},
       "/actors/1/script/0/status",
       "got \"prepard\" (did you mean \"prepared\"?)"},
      {"await status releasing",
       {{"/actors/1/script/0", op(R"({"op": "await", "status": "releasing"})")}},
       {},
       "/actors/1/script/0/status",
       "expected one of \"pending\", \"allocated\", \"prepared\", \"ready\", \"failed\""},
      {"await polls_max zero",
       {{"/actors/1/script/0", op(R"({"op": "await", "status": "ready", "polls_max": 0})")}},
       {},
       "/actors/1/script/0/polls_max",
       "expected an integer from 1 to 1000, got 0"},
      {"reconcile status",
       {{"/actors/1/script/0", op(R"({"op": "reconcile", "status": 1})")}},
       {},
       "/actors/1/script/0/status",
       "got number"},
      {"bind unknown node",
       {{"/actors/1/script/0", op(R"({"op": "bind_workload", "node": "n9", "workload": "p"})")}},
       {},
       "/actors/1/script/0/node",
       "node \"n9\" is not in /nodes"},
      {"bind without workload",
       {{"/actors/1/script/0", op(R"({"op": "bind_workload", "node": "n1"})")}},
       {},
       "/actors/1/script/0",
       "missing required key \"workload\""},
      {"bind units absurd",
       {{"/actors/1/script/0", op(R"({"op": "bind_workload", "node": "n1", "workload": "p", "units": 1000})")}},
       {},
       "/actors/1/script/0/units",
       "expected an integer from 1 to 64, got 1000"},
      {"unbind takes no units",
       {{"/actors/1/script/0", op(R"({"op": "unbind_workload", "node": "n1", "workload": "p", "units": 1})")}},
       {},
       "/actors/1/script/0/units",
       "unknown key \"units\" for op \"unbind_workload\""},
      {"fail_reads kind typo",
       {{"/actors/1/script/0", op(R"({"op": "fail_reads", "kind": "pod"})")}},
       {},
       "/actors/1/script/0/kind",
       "got \"pod\" (did you mean \"pods\"?)"},
      {"restore_reads without kind",
       {{"/actors/1/script/0", op(R"({"op": "restore_reads"})")}},
       {},
       "/actors/1/script/0",
       "missing required key \"kind\""},
      {"fail_geometry unknown node",
       {{"/actors/1/script/0", op(R"({"op": "fail_geometry", "node": "m1"})")}},
       {},
       "/actors/1/script/0/node",
       "node \"m1\" is not in /nodes (did you mean \"n1\"?)"},
      {"advance_clock negative",
       {{"/actors/1/script/0", op(R"({"op": "advance_clock", "seconds": -0.5})")}},
       {},
       "/actors/1/script/0/seconds",
       "expected a number from 0 to 86400, got -0.5"},
      {"advance_clock string",
       {{"/actors/1/script/0", op(R"({"op": "advance_clock", "seconds": "10"})")}},
       {},
       "/actors/1/script/0/seconds",
       "got string"},
  });
}

TEST_CASE("errors: invariants and expect", "[scenario][errors]") {
  check_cases({
      {"invariants word",
       {{"/invariants", "some"}},
       {},
       "/invariants",
       "expected \"all\", an array of invariant names or {\"all_except\": [...]}, got \"some\""},
      {"invariants number", {{"/invariants", 1}}, {}, "/invariants", "got number"},
      {"all_except empty",
       {{"/invariants", {{"all_except", Json::array()}}}},
       {},
       "/invariants/all_except",
       "expected a non-empty array of invariant names"},
      {"all_except a word", {{"/invariants", {{"all_except", "x"}}}}, {}, "/invariants/all_except", "got string"},
      {"all_except twice",
       {{"/invariants", {{"all_except", {"no-lost-update", "no-lost-update"}}}}},
       {},
       "/invariants/all_except/1",
       "no-lost-update"},
      {"all_except every invariant",
       {{"/invariants", {{"all_except", every_invariant()}}}},
       {},
       "/invariants/all_except",
       "leaves no invariant to check"},
      {"invariants empty",
       {{"/invariants", Json::array()}},
       {},
       "/invariants",
       "expected a non-empty array of invariant names"},
      {"invariant typo",
       {{"/invariants", {"single-ownership", "no-double-grants"}}},
       {},
       "/invariants/1",
       "unknown invariant \"no-double-grants\" (did you mean \"no-double-grant\"?)"},
      {"invariant duplicate",
       {{"/invariants", {"no-deadlock", "no-deadlock"}}},
       {},
       "/invariants/1",
       "duplicate invariant \"no-deadlock\" (first at /invariants/0)"},
      {"expect not an object", {{"/expect", "pass"}}, {}, "/expect", "expected an object, got string"},
      {"expect typo",
       {{"/expect/outcomes", "pass"}},
       {},
       "/expect/outcomes",
       "unknown key \"outcomes\" (did you mean \"outcome\"?)"},
      {"outcome word",
       {{"/expect/outcome", "fail"}},
       {},
       "/expect/outcome",
       "expected one of \"pass\", \"violation\", got \"fail\""},
      {"outcome violation without names",
       {{"/expect/outcome", "violation"}},
       {},
       "/expect",
       "missing required key \"violation\""},
      {"outcome pass with a violation",
       {{"/expect/outcome", "pass"}, {"/expect/violation", "no-deadlock"}},
       {},
       "/expect/violation",
       "\"violation\" contradicts outcome \"pass\""},
      {"violation unknown",
       {{"/expect/violation", "no-deadlocks"}},
       {},
       "/expect/violation",
       "unknown invariant \"no-deadlocks\" (did you mean \"no-deadlock\"?)"},
      {"violation list unknown",
       {{"/expect/violation", {"no-deadlock", "nope-nope-nope"}}},
       {},
       "/expect/violation/1",
       "unknown invariant \"nope-nope-nope\""},
      {"violation empty list",
       {{"/expect/violation", Json::array()}},
       {},
       "/expect/violation",
       "expected a non-empty array of invariant names"},
      {"violation number",
       {{"/expect/violation", 3}},
       {},
       "/expect/violation",
       "expected an invariant name or an array of them, got number"},
      {"violation not checked",
       {{"/invariants", {"no-deadlock"}}, {"/expect/violation", "single-ownership"}},
       {},
       "/expect/violation",
       "invariant \"single-ownership\" is not in /invariants, so the expected violation could never fire"},
      {"violation list not checked",
       {{"/invariants", {"no-deadlock"}}, {"/expect/violation", {"no-deadlock", "steps-bounded"}}},
       {},
       "/expect/violation/1",
       "invariant \"steps-bounded\" is not in /invariants"},
      {"expect.actors unknown actor",
       {{"/expect/actors", {{"c", {{"reserve", {"claimed"}}}}}}},
       {},
       "/expect/actors/c",
       "actor \"c\" is not in /actors"},
      {"expect.actors op the actor lacks",
       {{"/expect/actors", {{"b", {{"release", {"released"}}}}}}},
       {},
       "/expect/actors/b/release",
       "actor \"b\" has no \"release\" op in its script"},
      {"expect.actors op typo",
       {{"/expect/actors", {{"a", {{"reserv", {"claimed"}}}}}}},
       {},
       "/expect/actors/a/reserv",
       "unknown op \"reserv\" (did you mean \"reserve\"?)"},
      {"expect.actors bad outcome",
       {{"/expect/actors", {{"a", {{"reserve", {"claimed", "claimd"}}}}}}},
       {},
       "/expect/actors/a/reserve/1",
       "unknown outcome \"claimd\" for op \"reserve\" (did you mean \"claimed\"?)"},
      {"expect.actors outcome of another op",
       {{"/expect/actors", {{"a", {{"release", {"claimed"}}}}}}},
       {},
       "/expect/actors/a/release/0",
       "unknown outcome \"claimed\" for op \"release\" (expected one of \"released\""},
      {"expect.actors empty outcomes",
       {{"/expect/actors", {{"a", {{"reserve", Json::array()}}}}}},
       {},
       "/expect/actors/a/reserve",
       "expected a non-empty array of \"reserve\" outcomes"},
      {"expect.actors duplicate outcome",
       {{"/expect/actors", {{"a", {{"plan", {"feasible", "feasible"}}}}}}},
       {},
       "/expect/actors/a/plan/1",
       "duplicate outcome \"feasible\" (first at /expect/actors/a/plan/0)"},
      {"expect.actors not an object",
       {{"/expect/actors", {"a"}}},
       {},
       "/expect/actors",
       "expected an object, got array"},
      {"expect.actors ops not an object",
       {{"/expect/actors", {{"a", "reserve"}}}},
       {},
       "/expect/actors/a",
       "expected an object, got string"},
      {"reach typo",
       {{"/expect/reach", {"delete.befor"}}},
       {},
       "/expect/reach/0",
       "unknown barrier \"delete.befor\" (did you mean \"delete.before\"?)"},
      {"reach duplicate",
       {{"/expect/reach", {"restore.after", "restore.after"}}},
       {},
       "/expect/reach/1",
       "duplicate barrier \"restore.after\" (first at /expect/reach/0)"},
      {"reach not an array",
       {{"/expect/reach", "restore.after"}},
       {},
       "/expect/reach",
       "expected an array, got string"},
  });
}

TEST_CASE("errors: bytes and JSON syntax", "[scenario][errors]") {
  const auto check = [](const std::string& text, const std::string& pointer, const std::string& message) {
    const ScenarioError e = error_of(text);
    INFO(e.what());
    CHECK(e.pointer() == pointer);
    CHECK_THAT(e.message(), Contains(message));
  };
  check("", "", "file is empty");
  check(" \n\t\r\n", "", "file is empty");
  check(std::string("{\"a\": \"\0\"}", 10), "", "not a text file: unexpected byte 0x00 at line 1 column 8");
  check("{\n \"n\": \"\xff\"}", "", "not a text file: unexpected byte 0xff at line 2 column 8");
  check("{\"n\": \"\xc0\xaf\"}", "", "byte 0xc0");      // overlong encoding of '/'
  check("{\"n\": \"\xed\xa0\x80\"}", "", "byte 0xed");  // a UTF-16 surrogate
  CHECK_NOTHROW(
      parse_scenario(base().dump().insert(1, "\"description\": \"caf\xc3\xa9 \xf0\x9f\x98\x80\",\n"), "u.json"));
  check("{\n  \"schema\": \"allocsim/scenario/v1\",\n  \"name\": \"x\"", "", "invalid JSON at line 3 column 14:");
  check("{\n  \"schema\": tru }", "",
        "invalid JSON at line 2 column 16: syntax error while parsing value - invalid literal");
  check("{\"a\": 1} x", "", "invalid JSON at line 1 column 10");
  check("{\"a\": 1e400}", "", "number overflow");
  check("{\"a\": NaN}", "", "invalid JSON at line 1 column 7");
  check("{\"a\": -Infinity}", "", "invalid JSON at line 1 column 8: syntax error while parsing value - invalid number");
  check("{\r\n\"a\": tru\r\n}", "", "invalid JSON at line 2 column 9");           // CRLF counts as one line break
  CHECK(parse_scenario("\xef\xbb\xbf" + base().dump(), "bom.json").name == "t");  // a UTF-8 byte order mark is fine
  check("{\"a\": 1, \"a\": 2}", "/a", "duplicate key \"a\"");
  check("{\"nodes\": [{\"name\": \"n1\", \"name\": \"n1\"}]}", "/nodes/0/name", "duplicate key \"name\"");
  check("[1]", "", "expected an object at the top level, got array");
  check("\"allocsim/scenario/v1\"", "", "expected an object at the top level, got string");
  check("null", "", "got null");
  check(std::string(100000, '[') + std::string(100000, ']'), "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0",
        "JSON nested deeper than 16 levels");
  std::string big = base().dump();
  big.insert(1, "\"description\": \"" + std::string((4u << 20) - big.size() - 18, 'x') + "\",");
  REQUIRE(big.size() == (4u << 20));
  CHECK_NOTHROW(parse_scenario(big, "big.json"));
  check(big + " ", "", "file is 4194305 bytes; scenario files are limited to 4 MiB");
}

TEST_CASE("errors never escape as anything but ScenarioError", "[scenario][errors]") {
  // Every single-byte truncation of a valid file, and every type substitution at every pointer.
  const std::string full = kFull;
  for (std::size_t n = 0; n < full.size(); n += 7)
    CHECK_THROWS_AS(parse_scenario(full.substr(0, n), "cut.json"), ScenarioError);
  const Json doc = Json::parse(kFull);
  const Json flat = doc.flatten();
  const std::vector<Json> substitutes = {nullptr, true, -1, 1.5, "", Json::array(), Json::object()};
  std::size_t errors = 0;
  for (auto it = flat.begin(); it != flat.end(); ++it) {
    for (const Json& sub : substitutes) {
      Json mutated = doc;
      mutated[Json::json_pointer(it.key())] = sub;
      try {
        parse_scenario(mutated.dump(), "sub.json");
      } catch (const ScenarioError&) {
        ++errors;
      }
    }
  }
  CHECK(errors > flat.size() * 4);  // most substitutions are wrong; none may crash or throw anything else
}

TEST_CASE("the digest is xxh3-128 of the bytes, high half first, and tracks every byte", "[scenario][digest]") {
  const std::string text = base().dump(2);
  const Scenario s = parse_scenario(text, "d.json");
  REQUIRE(s.digest.size() == 9 + 32);
  CHECK(s.digest.substr(0, 9) == "xxh3-128:");
  CHECK(s.digest.find_first_not_of("0123456789abcdef", 9) == std::string::npos);

  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(text.data(), text.size()));
  std::string hex;
  for (unsigned char byte : canonical.digest) hex += fmt::format("{:02x}", byte);
  CHECK(s.digest == "xxh3-128:" + hex);

  CHECK(parse_scenario(text, "elsewhere.json").digest == s.digest);  // the path is not hashed
  std::string changed = text;
  changed[changed.find("\"t\"") + 1] = 'u';  // the name "t" -> "u"
  CHECK(parse_scenario(changed, "d.json").digest != s.digest);
  CHECK(parse_scenario(text + "\n", "d.json").digest != s.digest);  // even insignificant whitespace
}

TEST_CASE("load_scenario reads files and reports the OS error", "[scenario][files]") {
  const fs::path dir = scratch_dir();
  const std::string good = (dir / "good.json").string();
  std::ofstream(good, std::ios::binary) << kFull;
  const Scenario s = load_scenario(good);
  CHECK(s.path == good);
  CHECK(s.name == "full");
  CHECK(s.digest == parse_scenario(kFull, "x").digest);

  const std::string missing = (dir / "missing.json").string();
  ScenarioError e("", "", "");
  try {
    load_scenario(missing);
  } catch (const ScenarioError& caught) {
    e = caught;
  }
  CHECK(e.file() == missing);
  CHECK(e.pointer().empty());
  CHECK(e.message() == "cannot open: No such file or directory");
  CHECK_THROWS_WITH(load_scenario(dir.string()), dir.string() + ": cannot read: Is a directory");

  const std::string huge = (dir / "huge.json").string();
  std::ofstream(huge, std::ios::binary) << std::string((4u << 20) + 10, ' ');
  CHECK_THROWS_WITH(load_scenario(huge), huge + ": file is 4194314 bytes; scenario files are limited to 4 MiB");
  fs::remove_all(dir);
}

TEST_CASE("the malformed corpus: every file fails with its listed pointer and message", "[scenario][corpus]") {
  const fs::path dir = fs::path(ALLOCSIM_SOURCE_DIR) / "tests" / "backend" / "malformed";
  std::ifstream tsv(dir / "EXPECTED.tsv");
  REQUIRE(tsv.good());
  std::vector<std::string> listed;
  std::string line;
  while (std::getline(tsv, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t tab1 = line.find('\t');
    const std::size_t tab2 = line.find('\t', tab1 + 1);
    REQUIRE(tab1 != std::string::npos);
    REQUIRE(tab2 != std::string::npos);
    const std::string file = line.substr(0, tab1);
    const std::string pointer = line.substr(tab1 + 1, tab2 - tab1 - 1);
    const std::string message = line.substr(tab2 + 1);
    listed.push_back(file);
    DYNAMIC_SECTION(file) {
      const std::string path = (dir / file).string();
      ScenarioError e("", "<none>", "loaded without error");
      try {
        load_scenario(path);
      } catch (const ScenarioError& caught) {
        e = caught;
      }
      INFO(e.what());
      CHECK(e.file() == path);
      CHECK(e.pointer() == pointer);
      CHECK_THAT(e.message(), Contains(message));
    }
  }
  // The listing and the folder agree, so a new file cannot go unchecked.
  std::vector<std::string> present;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") present.push_back(entry.path().filename().string());
  std::sort(present.begin(), present.end());
  std::vector<std::string> sorted = listed;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == present);
  CHECK(listed.size() >= 30);
}

TEST_CASE("explicit empty labels stay empty (the node classifies unknown)", "[scenario]") {
  const Scenario s = parse_scenario(R"({"schema": "allocsim/scenario/v1", "name": "x",
    "nodes": [ { "name": "n1", "product": "P", "gpu_count": 1, "memory_gib": 1, "labels": {} } ],
    "actors": [ { "name": "a", "script": [] } ] })",
                                    "x.json");
  CHECK(s.nodes[0].labels.empty());
}

TEST_CASE("faults: every field, defaults, and the recover op", "[scenario][faults]") {
  Json doc = base();
  doc["actors"][1]["script"].push_back(op(R"({ "op": "recover", "flow": "a" })"));
  SECTION("absent: no fault is enabled") {
    const Scenario s = parse_scenario(doc.dump(), "f.json");
    CHECK_FALSE(s.faults.enabled);
    CHECK_FALSE(s.faults.eligible("a"));
    CHECK(s.actors[1].script[1].kind == OpKind::Recover);
    CHECK(s.actors[1].script[1].flow == "a");
  }
  SECTION("every field, in file order") {
    doc["faults"] = Json::parse(R"({ "max": 3, "actors": ["b"],
      "barriers": { "delete.after": ["drop_response", "crash"], "owner.update.after": ["raise"] },
      "fail_reads": ["config", "pods"], "fail_geometry": ["n2"] })");
    const Scenario s = parse_scenario(doc.dump(), "f.json");
    CHECK(s.faults.enabled);
    CHECK(s.faults.max == 3);
    CHECK(s.faults.actors == std::vector<std::string>{"b"});
    CHECK(s.faults.eligible("b"));
    CHECK_FALSE(s.faults.eligible("a"));
    REQUIRE(s.faults.barriers.size() == 2);
    CHECK(s.faults.barriers[0].first == "delete.after");
    CHECK(s.faults.barriers[0].second == std::vector<FaultAction>{FaultAction::DropResponse, FaultAction::Crash});
    CHECK(s.faults.barriers[1].second == std::vector<FaultAction>{FaultAction::Raise});
    CHECK(s.faults.fail_reads == std::vector<std::string>{"config", "pods"});
    CHECK(s.faults.fail_geometry == std::vector<std::string>{"n2"});
  }
  SECTION("defaults: max 1, every actor") {
    doc["faults"] = Json::parse(R"({ "barriers": { "restore.before": ["crash"] } })");
    const Scenario s = parse_scenario(doc.dump(), "f.json");
    CHECK(s.faults.max == 1);
    CHECK(s.faults.eligible("a"));
    CHECK(s.faults.eligible("b"));
  }
}

TEST_CASE("errors: faults and recover", "[scenario][errors][faults]") {
  const Json crash = Json::parse(R"({ "delete.after": ["crash"] })");
  check_cases({
      {"faults typo key",
       {{"/faults", {{"barrier", crash}}}},
       {},
       "/faults/barrier",
       "unknown key \"barrier\" (did you mean \"barriers\"?)"},
      {"faults enable nothing", {{"/faults", {{"max", 1}}}}, {}, "/faults", "faults enables no fault"},
      {"max zero",
       {{"/faults", {{"max", 0}, {"barriers", crash}}}},
       {},
       "/faults/max",
       "expected an integer from 1 to 16, got 0"},
      {"max absurd",
       {{"/faults", {{"max", 1000}, {"barriers", crash}}}},
       {},
       "/faults/max",
       "expected an integer from 1 to 16, got 1000"},
      {"max float", {{"/faults", {{"max", 1.5}, {"barriers", crash}}}}, {}, "/faults/max", "got 1.5"},
      {"actors empty",
       {{"/faults", {{"actors", Json::array()}, {"barriers", crash}}}},
       {},
       "/faults/actors",
       "expected a non-empty array of actor names"},
      {"actor unknown",
       {{"/faults", {{"actors", {"A"}}, {"barriers", crash}}}},
       {},
       "/faults/actors/0",
       "actor \"A\" is not in /actors (did you mean \"a\"?)"},
      {"actor duplicate",
       {{"/faults", {{"actors", {"a", "a"}}, {"barriers", crash}}}},
       {},
       "/faults/actors/1",
       "duplicate actor \"a\" (first at /faults/actors/0)"},
      {"barriers empty",
       {{"/faults", {{"barriers", Json::object()}}}},
       {},
       "/faults/barriers",
       "expected an object of barrier -> actions"},
      {"barrier typo",
       {{"/faults", {{"barriers", {{"delete.afte", {"crash"}}}}}}},
       {},
       "/faults/barriers/delete.afte",
       "unknown barrier \"delete.afte\" (did you mean \"delete.after\"?)"},
      {"barrier not fired by the memory backend",
       {{"/faults", {{"barriers", {{"claim.prepare.after", {"crash"}}}}}}},
       {},
       "/faults/barriers/claim.prepare.after",
       "unknown barrier \"claim.prepare.after\""},
      {"actions not an array",
       {{"/faults", {{"barriers", {{"delete.after", "crash"}}}}}},
       {},
       "/faults/barriers/delete.after",
       "expected an array, got string"},
      {"actions empty",
       {{"/faults", {{"barriers", {{"delete.after", Json::array()}}}}}},
       {},
       "/faults/barriers/delete.after",
       "expected 1 to 3 actions, got 0"},
      {"action typo",
       {{"/faults", {{"barriers", {{"delete.after", {"drop"}}}}}}},
       {},
       "/faults/barriers/delete.after/0",
       "unknown fault action \"drop\""},
      {"action duplicate",
       {{"/faults", {{"barriers", {{"delete.after", {"raise", "raise"}}}}}}},
       {},
       "/faults/barriers/delete.after/1",
       "duplicate fault action \"raise\""},
      {"fail_reads typo",
       {{"/faults", {{"fail_reads", {"config", "node"}}}}},
       {},
       "/faults/fail_reads/1",
       "got \"node\" (did you mean \"nodes\"?)"},
      {"fail_reads duplicate",
       {{"/faults", {{"fail_reads", {"pods", "pods"}}}}},
       {},
       "/faults/fail_reads/1",
       "duplicate read kind \"pods\""},
      {"fail_geometry unknown node",
       {{"/faults", {{"fail_geometry", {"n3"}}}}},
       {},
       "/faults/fail_geometry/0",
       "node \"n3\" is not in /nodes"},
      {"recover without flow",
       {{"/actors/1/script/1", op(R"({ "op": "recover" })")}},
       {},
       "/actors/1/script/1",
       "missing required key \"flow\""},
      {"recover unknown flow",
       {{"/actors/1/script/1", op(R"({ "op": "recover", "flow": "A" })")}},
       {},
       "/actors/1/script/1/flow",
       "actor \"A\" is not in /actors (did you mean \"a\"?)"},
      {"recover self",
       {{"/actors/1/script/1", op(R"({ "op": "recover", "flow": "b" })")}},
       {},
       "/actors/1/script/1/flow",
       "recover names the actor itself (\"b\")"},
      {"recover takes no node",
       {{"/actors/1/script/1", op(R"({ "op": "recover", "flow": "a", "node": "n1" })")}},
       {},
       "/actors/1/script/1/node",
       "unknown key \"node\" for op \"recover\""},
  });
}

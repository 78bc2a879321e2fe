// The scenario loader (backend/scenario/scenario.h): every field and default of a valid file, the digest, files
// and OS errors, and a corpus of malformed files (tests/backend/malformed/, listed with their expected errors in
// EXPECTED.tsv). Every error path with its exact pointer: harness_scenario_errors.cpp and
// harness_scenario_op_errors.cpp.
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

#include "backend/invariants/invariant_table.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario.h"
#include "tests/backend/scenario_loader_cases.h"

using namespace allocsim::harness;
using Catch::Matchers::Contains;
using namespace allocsim::harness::loader_test;

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

/// A scratch directory unique to this process (ctest may run test cases in parallel).
fs::path scratch_dir() {
  fs::path dir = fs::temp_directory_path() / ("allocsim-harness-scenario-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("op vocabulary: names in enum order, outcomes per op", "[scenario]") {
  const auto& names = op_names();
  REQUIRE(names.size() == 25);
  CHECK(std::string(op_name(OpKind::Recover)) == "recover");
  CHECK(std::string(op_name(OpKind::Inventory)) == "inventory");
  CHECK(std::string(op_name(OpKind::MarkReady)) == "mark_ready");
  CHECK(std::string(op_name(OpKind::AdvanceClock)) == "advance_clock");
  CHECK(std::string(op_name(OpKind::GeometryNoEffect)) == "geometry_no_effect");
  CHECK(std::string(op_name(OpKind::GeometryPartial)) == "geometry_partial");
  CHECK(std::string(op_name(OpKind::SetPointer)) == "set_pointer");
  CHECK(std::string(op_name(OpKind::RejectBinds)) == "reject_binds");
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
  CHECK(words(OpKind::Recover) ==
        V{"released", "none", "unexpired", "pending_recovery", "stale", "error", "unknown", "crashed"});
  CHECK(words(OpKind::BindWorkload) == V{"done", "rejected"});
  for (OpKind k : {OpKind::UnbindWorkload, OpKind::FailReads, OpKind::RestoreReads, OpKind::FailGeometry,
                   OpKind::AdvanceClock, OpKind::SetLabels, OpKind::SetMigState, OpKind::WriteSharedMap,
                   OpKind::SetPointer, OpKind::StaleReads, OpKind::PartialReads, OpKind::FailGeometryFor,
                   OpKind::GeometryNoEffect, OpKind::GeometryPartial, OpKind::RejectBinds})
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

// Incremental invariants (backend/world/dirty.h): the dirty set is what decides which nodes a check after a
// step visits. A node the steps wrote, or one a written claim references, or one a new audit entry targets, is
// re-checked; a node nobody marked is not (so a writer that failed to mark would miss a violation, which the
// both-ways comparison in tests/scenarios/incremental_invariants.cpp would then show).
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "backend/invariants/check.h"
#include "backend/model/name_head.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/world/dirty.h"

using namespace allocsim;
using namespace allocsim::harness;
using backend::Obj;

namespace {

/// Three nodes; the invariants under test only (a hand-built state has no audit entries to explain it).
std::string three_nodes(const char* invariants) {
  return std::string(R"({
  "schema": "allocsim/scenario/v1", "name": "incremental",
  "backend": { "authority": "managed-mig" },
  "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
             { "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 },
             { "name": "n3", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
  "invariants": )") +
         invariants + R"(,
  "actors": [ { "name": "flowA", "script": [] }, { "name": "flowB", "script": [] } ]
})";
}

struct DirtyFixture {
  explicit DirtyFixture(const char* invariants) : sc(parse_scenario(three_nodes(invariants), "incremental.json")) {}
  Scenario sc;
  std::unique_ptr<CompiledScenario> compiled = compile(sc, {});
  BackendWorld world{*compiled};
  backend::BackendState& s() { return world.mutable_backend().mutable_state(); }
  /// What ActorCaller::touch records for a write.
  void wrote(Obj what, const std::string& name) { world.memo.dirty.write(what, name, compiled->node_index); }
  std::optional<sim::Violation> check() { return check_invariants(world, 0, false); }
  void add_claim(const std::string& id, const std::string& owner, const std::string& node) {
    backend::Claim c;
    c.claim_id = id;
    c.owner = owner;
    c.generation = "gen-" + id;
    c.nodes = {node};
    s().claims.push_back(std::move(c));
    wrote(Obj::Claim, id);
  }
  /// A node field edited by hand, marked as a step's write of it would be.
  backend::NodeFixture& node(const std::string& name) {
    wrote(Obj::Node, name);
    return *s().node(name);
  }
};

/// Sets the mode for one test and restores the default after it.
struct Mode {
  explicit Mode(CheckMode m) { set_check_mode(m); }
  ~Mode() { set_check_mode(CheckMode::Incremental); }
};

}  // namespace

TEST_CASE("NodeIndex finds a node by name, the last of two of one name, and nothing for an unknown name",
          "[invariants]") {
  std::vector<backend::NodeFixture> nodes(4);
  nodes[0].name = "n1", nodes[1].name = "n10", nodes[2].name = "n2", nodes[3].name = "n1";
  const NodeIndex index(nodes);
  CHECK(index.find("n10") == 1u);
  CHECK(index.find("n2") == 2u);
  CHECK(index.find("n1") == 3u);  // as a front-to-back scan that keeps its last match
  CHECK_FALSE(index.find("n3").has_value());
  CHECK_FALSE(index.find("").has_value());
}

TEST_CASE("NodeIndex: names that tie on their first 8 bytes, and bytes past ASCII or NUL, compare in full",
          "[invariants]") {
  using namespace std::string_literals;
  // The index orders by a number made of the first 8 bytes (backend/model/name_head.h); these share it in pairs.
  const std::vector<std::string> names = {"gpu-node-02",
                                          "gpu-node-01",
                                          "gpu-node-0",
                                          "gpu-node-01",
                                          "\xff-node"s,
                                          "\x80"
                                          "a"s,
                                          "a\0b"s,
                                          "a"};
  std::vector<backend::NodeFixture> nodes(names.size());
  for (size_t i = 0; i < names.size(); ++i) nodes[i].name = names[i];
  const NodeIndex index(nodes);
  CHECK(index.find("gpu-node-02") == 0u);
  CHECK(index.find("gpu-node-01") == 3u);  // the last of the two
  CHECK(index.find("gpu-node-0") == 2u);
  CHECK(index.find("\xff-node"s) == 4u);
  CHECK(index.find("\x80"
                   "a"s) == 5u);
  CHECK(index.find("a\0b"s) == 6u);
  CHECK(index.find("a") == 7u);
  CHECK_FALSE(index.find("gpu-node-03").has_value());  // the head of three names, the name of none
  CHECK_FALSE(index.find("gpu-node-").has_value());
  CHECK_FALSE(index.find("a\0"s).has_value());
  CHECK_FALSE(index.find("\x80"s).has_value());
}

TEST_CASE("name_head: the first 8 bytes, big-endian and zero-padded, so that its order is the names' byte order",
          "[invariants]") {
  using namespace std::string_literals;
  using backend::name_head;
  CHECK(name_head("") == 0u);
  CHECK(name_head("n1") == 0x6e31000000000000u);
  CHECK(name_head("gpu-a") == 0x6770752d61000000u);
  CHECK(name_head("abcdefg") == 0x6162636465666700u);
  CHECK(name_head("abcdefgh") == 0x6162636465666768u);
  CHECK(name_head("abcdefghij") == 0x6162636465666768u);  // the 9th byte on is not in the head
  CHECK(name_head("\xff"s) == 0xff00000000000000u);
  CHECK(name_head("a\0b"s) == 0x6100620000000000u);
  // Every pair of names whose heads differ is ordered by its heads as by its bytes (the contract).
  const std::vector<std::string> names = {"",         "a",         "a\0"s,     "a\0b"s,       "ab",         "abcdefg",
                                          "abcdefgh", "abcdefghi", "abcdefgz", "\x7f"s,       "\x80"s,      "\xff\xff"s,
                                          "n1",       "n10",       "n2",       "gpu-node-01", "gpu-node-02"};
  for (const std::string& a : names)
    for (const std::string& b : names)
      if (name_head(a) != name_head(b)) CHECK((name_head(a) < name_head(b)) == (std::string_view(a) < b));
}

TEST_CASE("DirtySet records node writes by index and the kinds of other writes, not reads of the clock",
          "[invariants]") {
  DirtyFixture f(R"(["single-ownership"])");
  DirtySet& d = f.world.memo.dirty;
  f.wrote(Obj::Node, "n3");
  f.wrote(Obj::Clock, "clock");
  f.wrote(Obj::FailedReads, "pods");
  std::vector<uint32_t> listed;
  d.nodes().list(listed);
  CHECK(listed == std::vector<uint32_t>{2});
  CHECK(d.kinds() == kReadsNodes);
  f.wrote(Obj::Claim, "c1");
  f.wrote(Obj::SharedMap, "map");
  f.wrote(Obj::Pointer, "policy");
  CHECK(d.kinds() == (kReadsNodes | kReadsClaims | kReadsMap | kReadsPointer));
  CHECK_FALSE(d.unresolved());
  f.wrote(Obj::Node, "nx");
  CHECK(d.unresolved());
  d.clear();
  d.nodes().list(listed);
  CHECK(listed.empty());
  CHECK(d.kinds() == 0);
  CHECK_FALSE(d.unresolved());
}

TEST_CASE("a step that writes node n2 re-checks n2's per-node invariants, and an unmarked write is not seen",
          "[invariants]") {
  const Mode mode(CheckMode::Incremental);
  DirtyFixture f(R"(["single-ownership"])");
  f.add_claim("c1", "flowA", "n2");
  f.node("n2").owner = "flowA";
  f.node("n2").owner_epoch = "gen-1";  // a whole stamp, as a reserve writes it
  REQUIRE_FALSE(f.check());            // the first check of an execution, from the start state: it holds
  f.s().node("n2")->owner = "flowB";   // not marked: each section marks (or not) a write

  SECTION("marked: found on n2") {
    f.wrote(Obj::Node, "n2");
    const auto v = f.check();
    REQUIRE(v.has_value());
    CHECK(v->invariant == "single-ownership");
    CHECK(v->message == "node n2 is covered by live claim c1 of flowA but its owner is flowB");
  }
  SECTION("another node marked: n2 is not visited, so a writer that failed to mark would hide it") {
    f.wrote(Obj::Node, "n3");
    CHECK_FALSE(f.check());
  }
  SECTION("a node name no index places: the check is full and finds it") {
    f.wrote(Obj::Node, "n9");
    const auto v = f.check();
    REQUIRE(v.has_value());
    CHECK_THAT(v->message, Catch::Contains("node n2"));
  }
  SECTION("in full mode every node is visited whatever was marked") {
    set_check_mode(CheckMode::Full);
    CHECK(f.check().has_value());
  }
}

TEST_CASE("a claim write re-checks the nodes the claim references, though no node was written", "[invariants]") {
  const Mode mode(CheckMode::Incremental);
  DirtyFixture f(R"(["single-ownership"])");
  f.node("n3").owner = "flowB";
  f.node("n3").owner_epoch = "gen-1";
  REQUIRE_FALSE(f.check());
  f.add_claim("c1", "flowA", "n3");  // flowA's live claim on flowB's node: a claim write only
  const auto v = f.check();
  REQUIRE(v.has_value());
  CHECK(v->message == "node n3 is covered by live claim c1 of flowA but its owner is flowB");
}

TEST_CASE("a claim's removal re-checks the nodes it referenced at the previous check", "[invariants]") {
  const Mode mode(CheckMode::Incremental);
  DirtyFixture f(R"(["no-orphaned-geometry"])");
  f.add_claim("c1", "flowA", "n2");
  f.node("n2").mig_config = "all-1g.10gb";  // not its recorded config: fine while a claim covers it
  REQUIRE_FALSE(f.check());
  f.s().claims.clear();
  f.wrote(Obj::Claim, "c1");
  const auto v = f.check();
  REQUIRE(v.has_value());
  CHECK(v->message == "node n2 has no claim but is on all-1g.10gb, not its recorded config all-disabled");
}

TEST_CASE("a row whose kinds no step wrote is skipped, and one whose kinds were written re-runs", "[invariants]") {
  const Mode mode(CheckMode::Incremental);
  DirtyFixture f(R"(["shared-map-never-deleted"])");
  REQUIRE_FALSE(f.check());
  f.s().shared_map_deleted = true;
  f.wrote(Obj::Node, "n1");  // a node write: the map's invariant reads no node
  CHECK_FALSE(f.check());
  f.wrote(Obj::SharedMap, "map");
  const auto v = f.check();
  REQUIRE(v.has_value());
  CHECK(v->invariant == "shared-map-never-deleted");
}

TEST_CASE("audit-explains-state: a new log entry re-checks the node it targets, though no node was written",
          "[invariants]") {
  const Mode mode(CheckMode::Incremental);
  DirtyFixture f(R"(["audit-explains-state"])");
  REQUIRE_FALSE(f.check());
  f.wrote(Obj::Node, "n1");  // an earlier step: replay primed, n1 matches
  REQUIRE_FALSE(f.check());
  f.s().audit.push_back({"flowA:op1", "stamp-owner", "n3", "flowA"});  // logged, never applied
  const auto v = f.check();
  REQUIRE(v.has_value());
  CHECK(v->invariant == "audit-explains-state");
  CHECK(v->message == "node n3 has owner=-, but the audit log leaves it at flowA");
}

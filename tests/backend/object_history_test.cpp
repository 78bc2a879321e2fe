// Object histories (backend/world/object_history.h): versions, principals and the lost-update rule, on states and
// audit logs built by hand, one step at a time, with the exact versions each case must give.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/scenario/expect_audit.h"
#include "backend/world/actor_state.h"
#include "backend/world/object_history.h"

// In the harness's namespace, not under a using-directive: the test binaries are unity builds.
namespace allocsim::harness {
namespace {

using backend::BackendState;
using backend::Mutation;
using backend::NodeFixture;

/// Two nodes (n1, n2) and the actors flowA (0), flowB (1), admin (2), R (3); steps are fed one by one.
struct History {
  BackendState s;
  std::vector<ActorState> actors;
  NodeIndex index;
  ObjectHistories h;
  uint64_t step = 0;
  History() {
    for (const char* n : {"n1", "n2"}) {
      NodeFixture f;
      f.name = n;
      f.mig_config = "all-disabled";
      s.nodes.push_back(f);
    }
    for (const char* a : {"flowA", "flowB", "admin", "R"}) {
      ActorState st;
      st.name = a;
      actors.push_back(st);
    }
    index = NodeIndex(s.nodes);
    h.reset(true, s, actors);
  }
  /// One step of the backend that appends these audit entries.
  void backend_step(std::vector<Mutation> entries) {
    for (Mutation& m : entries) s.audit.push_back(std::move(m));
    h.after_step(s, index, actors, step++);
  }
  /// One step of a foreign actor's write.
  void foreign_step(Field f, uint32_t node, int actor, const char* value, bool changed = true) {
    h.foreign(f, node, actor, "set_labels", value, changed);
    h.after_step(s, index, actors, step++);
  }
  uint32_t config(uint32_t node) const { return h.object(Field::Config, node); }
};

Mutation entry(const char* op, const char* kind, const char* target, const char* detail) {
  return Mutation{op, kind, target, detail};
}

/// flowA's reserve on n1: the restore record taken, the label written (one step, as under the lock).
void label_n1(History& t, const char* op = "flowA:op1") {
  t.backend_step({entry(op, "record-restore", "n1", "all-disabled"), entry(op, "label-geometry", "n1", "e-A")});
}

}  // namespace

TEST_CASE("object histories: a restore over another writer's config is a lost update, named exactly", "[histories]") {
  History t;
  label_n1(t);                                         // step 0: v1 of n1's config, flowA's
  t.foreign_step(Field::Config, 0, 2, "all-1g.10gb");  // step 1: v2, admin's
  REQUIRE_FALSE(t.h.lost.has_value());
  t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});  // step 2
  REQUIRE(t.h.lost.has_value());
  const LostUpdate& l = *t.h.lost;
  CHECK(l.object == t.config(0));
  CHECK(l.replaced.number == 2);
  CHECK(l.replaced.by.principal == 2);
  CHECK(l.replaced.by.step == 1);
  CHECK(l.written.number == 3);
  CHECK(l.written.by.principal == 0);
  CHECK(l.written.by.audit == 2);
  CHECK(l.written.by.step == 2);
  REQUIRE(l.last_seen.has_value());
  CHECK(l.last_seen->number == 1);
  CHECK(l.last_seen->at.what == "label-geometry");
  CHECK(l.last_seen->version.by.step == 0);
  // n1's config went v1 (flowA), v2 (admin), v3 (flowA); n1's restore record v1, then cleared (v2).
  std::vector<uint32_t> config_versions;
  for (const auto& [o, v] : t.h.versions)
    if (o == t.config(0)) config_versions.push_back(v.number);
  CHECK(config_versions == std::vector<uint32_t>{1, 2, 3});
}

TEST_CASE("object histories: what is not a lost update", "[histories]") {
  SECTION("the writer replaces its own version") {
    History t;
    label_n1(t);
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("the foreign write came before the writer's last sight (the record copies it)") {
    History t;
    t.foreign_step(Field::Config, 0, 2, "all-1g.10gb");
    label_n1(t);
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-1g.10gb")});
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("a foreign write that leaves the value as it was makes no version") {
    History t;
    label_n1(t);
    t.foreign_step(Field::Config, 0, 2, "e-A", false);
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});
    CHECK_FALSE(t.h.lost.has_value());
    CHECK(t.h.versions.size() == 4);  // record v1, config v1, config v2 (restore), record cleared v2
  }
  SECTION("a restore that writes back the very value another writer set loses nothing, and makes no version") {
    History t;
    label_n1(t);
    t.foreign_step(Field::Config, 0, 2, "all-disabled");
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});
    CHECK_FALSE(t.h.lost.has_value());
    std::vector<uint32_t> config_versions;
    for (const auto& [o, v] : t.h.versions)
      if (o == t.config(0)) config_versions.push_back(v.number);
    CHECK(config_versions == std::vector<uint32_t>{1, 2});
    CHECK(t.h.value_of(t.config(0), t.h.versions.back().second, t.s).empty());  // the record, cleared
  }
  SECTION("another writer's round trip back to the value the writer last saw loses nothing") {
    History t;
    label_n1(t);                                         // v1 e-A, flowA's
    t.foreign_step(Field::Config, 0, 2, "all-1g.10gb");  // v2
    t.foreign_step(Field::Config, 0, 2, "e-A");          // v3: flowA's value again
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("a recover's writes are the recovered flow's") {
    History t;
    label_n1(t);
    t.h.recovering("R:recover1", 0);
    t.backend_step({entry("R:recover1", "restore-geometry", "n1", "all-disabled")});
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("a write decided from the object as it is (an owner stamp's compare-and-swap) is never judged") {
    History t;
    t.backend_step({entry("flowA:op1", "stamp-owner", "n1", "flowA")});
    t.backend_step({entry("flowA:op1", "release-owner", "n1", "rollback")});
    t.backend_step({entry("flowB:op1", "stamp-owner", "n1", "flowB")});
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("the pointer is every flow's: one flow's restore replaces another's switch") {
    History t;
    t.backend_step({entry("flowB:op1", "publish-entry", "e-B", "{}"),
                    entry("flowB:op1", "point-policy", "clusterpolicy", "videoflow-map")});
    t.backend_step({entry("flowA:op1", "publish-entry", "e-A", "{}")});
    t.backend_step({entry("flowB:release1", "strip-entry", "e-B", "")});
    t.backend_step({entry("flowA:release1", "strip-entry", "e-A", ""),
                    entry("flowA:release1", "restore-policy", "clusterpolicy", "default")});
    CHECK_FALSE(t.h.lost.has_value());
  }
}

TEST_CASE("object histories: a record over another flow's record, and a restore over a foreign pointer",
          "[histories]") {
  SECTION("record-restore replaces a record flowA made (the restore-record-overwritten mutant's write)") {
    History t;
    label_n1(t);
    t.backend_step({entry("flowB:op1", "record-restore", "n1", "e-A")});
    REQUIRE(t.h.lost.has_value());
    CHECK(t.h.lost->object == t.h.object(Field::Restore, 0));
    CHECK(t.h.lost->replaced.by.principal == 0);
    CHECK(t.h.lost->written.by.principal == 1);
    CHECK_FALSE(t.h.lost->last_seen.has_value());
  }
  SECTION("record-restore replaces the same flow's record: a write meant to create, so lost whoever wrote it") {
    History t;
    label_n1(t);
    t.backend_step({entry("flowA:op2", "record-restore", "n1", "e-A")});
    REQUIRE(t.h.lost.has_value());
    CHECK(t.h.lost->basis == Basis::Absent);
    CHECK(t.h.lost->replaced.by.principal == 0);
    CHECK(t.h.lost->written.by.principal == 0);
    REQUIRE(t.h.lost->last_seen.has_value());
    CHECK(t.h.lost->last_seen->number == 1);
  }
  SECTION("a record where the last one was cleared loses nothing") {
    History t;
    label_n1(t);
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled")});
    label_n1(t, "flowB:op1");
    CHECK_FALSE(t.h.lost.has_value());
  }
  SECTION("restore-policy over a pointer another controller set after the adapter last read it") {
    History t;
    t.backend_step({entry("flowA:op1", "publish-entry", "e-A", "{}"),
                    entry("flowA:op1", "point-policy", "clusterpolicy", "videoflow-map")});
    t.h.foreign(Field::Pointer, 0, 2, "set_pointer", "operator-map", true);
    t.h.after_step(t.s, t.index, t.actors, t.step++);
    t.backend_step({entry("flowA:release1", "strip-entry", "e-A", ""),
                    entry("flowA:release1", "restore-policy", "clusterpolicy", "default")});
    REQUIRE(t.h.lost.has_value());
    CHECK(t.h.lost->object == t.h.object(Field::Pointer, 0));
    CHECK(t.h.lost->replaced.by.principal == 2);
    CHECK(t.h.lost->written.by.principal == 4);  // the adapter: one past the actors
    REQUIRE(t.h.lost->last_seen.has_value());
    CHECK(t.h.lost->last_seen->number == 1);
  }
}

TEST_CASE("object histories: every audit kind the backend writes has exactly one row, and no other kind has one",
          "[histories]") {
  std::vector<std::string> rows, kinds;
  for (const HistoryRule& r : history_rules()) rows.emplace_back(r.kind);
  for (const char* k : audit_kinds()) kinds.emplace_back(k);
  std::sort(rows.begin(), rows.end());
  std::sort(kinds.begin(), kinds.end());
  CHECK(rows == kinds);
}

TEST_CASE("object histories: an audit kind with no row is refused, and every row's kind is distinct", "[histories]") {
  History t;
  CHECK_THROWS_AS(t.backend_step({entry("flowA:op1", "paint-node", "n1", "")}), std::logic_error);
  const auto& rules = history_rules();
  for (size_t i = 0; i < rules.size(); ++i)
    for (size_t j = i + 1; j < rules.size(); ++j) CHECK(rules[i].kind != rules[j].kind);
}

TEST_CASE("object histories: each API write advances its object's version, and the first that does not is kept",
          "[histories]") {
  History t;
  SECTION("a label with its record is one write: one bump of the node is enough") {
    t.s.nodes[0].resource_version += 1;
    label_n1(t);
    CHECK_FALSE(t.h.unversioned.has_value());
  }
  SECTION("a restore and a stamp clearing in one step need two bumps, and one bump is reported, exactly") {
    t.s.nodes[0].resource_version = 4;
    t.h.reset(true, t.s, t.actors);
    t.s.nodes[0].resource_version = 5;
    t.backend_step({entry("flowA:release1", "restore-geometry", "n1", "all-disabled"),
                    entry("flowA:release1", "release-owner", "n1", "flowA")});
    REQUIRE(t.h.unversioned.has_value());
    const UnversionedWrite& u = *t.h.unversioned;
    CHECK(u.counter == Counter::Node);
    CHECK(u.node == 0);
    CHECK(u.before == 4);
    CHECK(u.after == 5);
    CHECK(u.writes == 2);
    CHECK(u.by.what == "release-owner");
    CHECK(u.by.audit == 1);
    CHECK(u.by.step == 0);
    SECTION("the first is kept: a later one does not replace it") {
      t.backend_step({entry("flowB:op1", "stamp-owner", "n2", "flowB")});
      CHECK(t.h.unversioned->node == 0);
    }
  }
  SECTION("a bump with no write (a bind) and more bumps than writes are fine") {
    t.s.nodes[1].resource_version += 3;
    t.backend_step({});
    t.s.nodes[1].resource_version += 2;
    t.backend_step({entry("flowB:op1", "stamp-owner", "n2", "flowB")});
    CHECK_FALSE(t.h.unversioned.has_value());
  }
  SECTION("the map's version and the pointer's, each its own counter") {
    t.s.shared_config_version += 1;
    t.backend_step({entry("flowA:op1", "publish-entry", "e-A", "{}")});
    CHECK_FALSE(t.h.unversioned.has_value());
    t.s.shared_config_version += 1;  // the map moved, the pointer did not
    t.backend_step({entry("flowA:op1", "strip-entry", "e-A", ""),
                    entry("flowA:op1", "restore-policy", "clusterpolicy", "default")});
    REQUIRE(t.h.unversioned.has_value());
    CHECK(t.h.unversioned->counter == Counter::Pointer);
    CHECK(t.h.unversioned->writes == 1);
    CHECK(t.h.unversioned->after == t.h.unversioned->before);
  }
  SECTION("a node write of a node the scenario does not have counts for nothing") {
    t.backend_step({entry("flowA:op1", "stamp-owner", "n9", "flowA")});
    CHECK_FALSE(t.h.unversioned.has_value());
  }
  SECTION("a reset forgets it") {
    t.backend_step({entry("flowA:op1", "stamp-owner", "n1", "flowA")});
    REQUIRE(t.h.unversioned.has_value());
    t.h.reset(true, t.s, t.actors);
    CHECK_FALSE(t.h.unversioned.has_value());
  }
}

TEST_CASE("object histories: switched off, nothing is kept", "[histories]") {
  History t;
  t.h.reset(false, t.s, t.actors);
  label_n1(t);
  t.h.foreign(Field::Config, 0, 2, "set_labels", "x", true);
  CHECK(t.h.versions.empty());
  CHECK_FALSE(t.h.lost.has_value());
  CHECK_FALSE(t.h.unversioned.has_value());  // label_n1 wrote n1 with no bump
}

}  // namespace allocsim::harness

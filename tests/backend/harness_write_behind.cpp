// Write-behind (docs/DESIGN.md §4, "Op modifiers"; backend/scenario/conditional_ops.h): the loader's background
// actors, the issuer's `issued` and its gate, a background op that lands after its issuer ended, one that finds its
// op skipped, and a scenario written back without its background actors.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/scenario_json.h"
#include "backend/world/object_ids.h"
#include "in_order_run.h"

namespace write_behind_test {

using namespace allocsim;
using namespace allocsim::harness;
using namespace allocsim::harness::testing;

TEST_CASE("write-behind: the loader adds one background actor per behind op, after the file's actors", "[behind]") {
  const Scenario sc = parse_scenario(two_nodes(R"(
      { "name": "flowA", "script": [ { "op": "set_labels", "node": "n1", "set": { "a": "1" }, "behind": true },
        { "op": "bind_workload", "node": "n1", "workload": "w1" },
        { "op": "bind_workload", "node": "n2", "workload": "w2", "behind": true } ] },
      { "name": "flowB", "script": [ { "op": "unbind_workload", "node": "n1", "workload": "w1", "behind": false } ] })"),
                                     "behind.json");
  REQUIRE(sc.actors.size() == 4);
  CHECK(sc.actors[2].name == "flowA.behind0");
  CHECK(sc.actors[3].name == "flowA.behind2");
  REQUIRE(sc.actors[3].behind_of.has_value());
  CHECK((sc.actors[3].behind_of->actor == "flowA" && sc.actors[3].behind_of->op == 2));
  REQUIRE(sc.actors[3].script.size() == 1);
  CHECK_FALSE(sc.actors[3].script[0].behind);
  CHECK(sc.actors[3].script[0].node == "n2");
  CHECK_FALSE(sc.actors[1].script[0].behind);
  // Written back, the file lists its own actors only; loaded again, it has the same background actors.
  const std::string text = scenario_to_json(sc).dump();
  CHECK(text.find("behind0\"") == std::string::npos);
  const Scenario again = parse_scenario(text, "again.json");
  REQUIRE(again.actors.size() == 4);
  CHECK(again.actors[3].name == "flowA.behind2");
}

TEST_CASE(
    "write-behind: the issuer records issued and goes on, and the background op runs after it, even after it ended",
    "[behind]") {
  // In order: flowA runs to its end (issued, then its own bind), then the background actor binds w2.
  const ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "w2", "behind": true },
      { "op": "bind_workload", "node": "n1", "workload": "w1" } ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"issued", "done"});
  CHECK(r.outcomes(1) == std::vector<std::string>{"done"});
  CHECK(r.calls("flowA") == std::vector<std::string>{"bind_workload node=n1 workload=w1 units=1"});
  CHECK(r.calls("flowA.behind0") == std::vector<std::string>{"bind_workload node=n1 workload=w2 units=1"});
  const auto& s = r.world->backend().state();
  CHECK(s.node("n1")->workloads == backend::OrderedMap<std::string, int>{{"w1", 1}, {"w2", 1}});
  CHECK_FALSE(r.result.violation.has_value());
}

TEST_CASE("write-behind: a behind op its when skips is skipped by its background actor too, with no call", "[behind]") {
  const ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [
      { "op": "bind_workload", "node": "n1", "workload": "w1" },
      { "op": "unbind_workload", "node": "n1", "workload": "w1", "behind": true,
        "when": { "op": 0, "outcome": "rejected" } } ] })"));
  CHECK(r.outcomes(0) == std::vector<std::string>{"done", "skipped"});
  CHECK(r.outcomes(1) == std::vector<std::string>{"skipped"});
  CHECK(r.calls("flowA.behind1").empty());
  CHECK(r.world->backend().state().node("n1")->workloads == backend::OrderedMap<std::string, int>{{"w1", 1}});
}

TEST_CASE("write-behind: the background actor waits for its issuer to pass the op (a lock wait on its gate)",
          "[behind]") {
  // The background actor is listed last but reached first by no schedule: in order, flowA's reserve (three calls)
  // runs before it issues the bind, so the background bind comes after the claim.
  const ShapedRun r(two_nodes(R"({ "name": "flowA", "script": [
      { "op": "reserve", "requests": [ { "workload": "wa" } ] },
      { "op": "bind_workload", "node": "n1", "workload": "wa", "behind": true } ] })"),
                    {}, true);
  CHECK(r.outcomes(0) == std::vector<std::string>{"claimed", "issued"});
  CHECK(r.outcomes(1) == std::vector<std::string>{"done"});
  bool gate_touched = false;
  for (const auto& st : r.result.steps)
    for (const auto& t : st.footprint) gate_touched |= t.object == object_id(backend::Obj::Lock, "gate:flowA.behind1");
  CHECK(gate_touched);
}

}  // namespace write_behind_test

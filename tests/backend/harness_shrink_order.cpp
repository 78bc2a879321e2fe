// The shrinker's candidates keep their `order` loadable (backend/system/reductions.h without_op): removing an op
// removes the constraints whose labels name a point its actor no longer reaches, since the loader refuses
// such a label (sim/order.h) and every candidate is read back through it.
#include <catch2/catch.hpp>

#include <string>

#include "backend/scenario/scenario_json.h"
#include "backend/system/shrink.h"

using namespace allocsim;
using namespace allocsim::harness;

TEST_CASE("shrink: removing an op removes the order constraints on points its actor no longer reaches",
          "[scenario][shrink]") {
  Scenario sc = load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-005-stale-last-out-pinned.json");
  // flowB gains an observe (its only use of the point) and a constraint on it; flowA's release stays.
  Op observe;
  observe.kind = OpKind::Observe;
  sc.actors[1].script.push_back(observe);
  auto text = scenario_to_json(sc);
  text["order"].push_back({"flowA:release#1", "flowB:observe#1"});
  text["order"].push_back({"flowB:reserve#1", "flowA:release#1"});
  sc = parse_scenario(text.dump(), "pinned-plus.json");
  REQUIRE(sc.order.constraints.size() == 4);

  const Scenario without_observe = without_op(sc, 1, 1);
  // The observe constraint went; the file's two and the one on reserve/release (both still reached) stay.
  REQUIRE(without_observe.order.constraints.size() == 3);
  CHECK(without_observe.order.constraints[2].text() == R"(["flowB:reserve#1", "flowA:release#1"])");
  CHECK(parse_scenario(scenario_to_json(without_observe).dump(), "candidate.json").order.constraints.size() == 3);

  // flowA without its release: both constraints naming flowA:release go, the file's two stay.
  const Scenario without_release = without_op(sc, 0, 1);
  REQUIRE(without_release.order.constraints.size() == 2);
  CHECK(without_release.order.constraints[0].text() == R"(["flowA:restore.after#1", "flowB:inventory#1"])");
  CHECK(parse_scenario(scenario_to_json(without_release).dump(), "candidate.json").order.constraints.size() == 2);
}

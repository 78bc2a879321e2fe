// Round trips: the v1 schedule string (sim/schedule.h) and scenario -> JSON -> scenario
// (backend/scenario/scenario_json.h), which trace files depend on to embed what they ran.
#include <catch2/catch.hpp>

#include <filesystem>

#include "backend/scenario/scenario_json.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/schedule.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim;
using namespace allocsim::harness;
namespace fs = std::filesystem;

TEST_CASE("schedule strings round-trip and are canonical", "[schedule]") {
  const std::vector<std::string> names = {"flowA", "flowB", "d1"};
  using C = sim::Choice;
  const std::vector<C> s = {{C::Actor, 0}, {C::Actor, 0}, {C::Actor, 1}, {C::Draw, 1},
                            {C::Draw, 1},  {C::Actor, 2}, {C::Draw, 0},  {C::Actor, 0}};
  const std::string text = sim::format_schedule(s, names);
  CHECK(text == "v1:flowA*2,flowB,#1*2,d1,#0,flowA");
  CHECK(sim::parse_schedule(text, names) == s);
  CHECK(sim::format_schedule(sim::parse_schedule(text, names), names) == text);
  CHECK(sim::parse_schedule("v1:@1*3,@0", names) ==
        std::vector<C>{{C::Actor, 1}, {C::Actor, 1}, {C::Actor, 1}, {C::Actor, 0}});
  CHECK(sim::parse_schedule("v1:", names).empty());
  CHECK(sim::format_schedule({}, names) == "v1:");

  // Every schedule a real run records round-trips too.
  const Scenario sc = load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/mutants/stale-last-out.json");
  std::vector<std::string> actor_names;
  for (const auto& a : sc.actors) actor_names.push_back(a.name);
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const auto r = campaign::replay_seed(*subject_of(sc), campaign::ExploreConfig{}, seed);
    CHECK(sim::parse_schedule(sim::format_schedule(r.schedule, actor_names), actor_names) == r.schedule);
  }
}

TEST_CASE("malformed schedule strings are rejected with a message naming the item", "[schedule]") {
  const std::vector<std::string> names = {"flowA", "flowB"};
  const std::pair<const char*, const char*> cases[] = {
      {"flowA*2", "starting with \"v1:\""},
      {"v2:flowA", "unknown schedule version \"v2:\""},
      {"v1:flowC", "no actor named \"flowC\""},
      {"v1:flowA,,flowB", "empty schedule item"},
      {"v1:flowA,", "trailing comma"},
      {"v1:flowA*0", "at least 1"},
      {"v1:flowA*x", "repeat count"},
      {"v1:@7", "out of range"},
      {"v1:#x", "draw value"},
      {"v1:flowA*99999999999", "more than"},
  };
  for (const auto& [text, says] : cases) {
    INFO(text);
    CHECK_THROWS_WITH(sim::parse_schedule(text, names), Catch::Contains(says));
  }
}

TEST_CASE("every scenario file survives scenario -> JSON -> scenario unchanged", "[scenario-json]") {
  size_t n = 0;
  for (const std::string& path : allocsim::testing::scenario_files()) {
    INFO(path);
    const Scenario a = load_scenario(path);
    const auto json = scenario_to_json(a);
    const Scenario b = parse_scenario(json.dump(2), "embedded.json");
    CHECK(scenario_to_json(b) == json);
    CHECK(b.name == a.name);
    CHECK(b.actors.size() == a.actors.size());
    CHECK(b.mutants == a.mutants);
    CHECK(b.nodes.size() == a.nodes.size());
    CHECK(b.max_steps == a.max_steps);
    CHECK(b.converge_seconds == a.converge_seconds);  // was dropped: an embedded scenario lost its bound
    ++n;
  }
  CHECK(n >= 8);
}

// The points order labels may name (harness::point_vocabulary, from the op table's `calls`) against the points
// actors really resume from: every step of every scenario file, under random exploration, is in its actor's
// list (a label the loader refuses could otherwise name a real step), and every Call point the table lists for
// the ops the files use is reached somewhere (a list that names a call no op makes would let a typo through).
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "backend/model/barriers.h"
#include "backend/scenario/op_syntax.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim::harness;

TEST_CASE("point vocabulary: every step of every scenario resumes from a point its actor's list names", "[order]") {
  std::set<std::string> calls_seen, calls_listed;
  uint64_t steps_checked = 0;
  for (const std::string& file : allocsim::testing::scenario_files()) {
    INFO(file);
    const Scenario sc = load_scenario(file);
    const allocsim::sim::PointVocabulary points = point_vocabulary(sc);
    REQUIRE(points.per_actor.size() == sc.actors.size());
    for (const ActorSpec& a : sc.actors)
      for (const Op& op : a.script) {
        const OpSyntax& spec = op_syntax(op.kind);
        for (const char* call : spec.calls_of ? spec.calls_of(op) : spec.calls) calls_listed.insert(call);
      }
    allocsim::campaign::ExploreConfig cfg;
    cfg.strategy = "random";
    cfg.executions = 300;
    cfg.seed = 11;
    allocsim::campaign::RunHooks hooks;
    hooks.on_execution = [&](uint64_t, const allocsim::sim::World&, const allocsim::sim::ExecutionResult& r) {
      for (const allocsim::sim::StepRecord& s : r.steps) {
        const std::vector<const char*>& known = points.per_actor.at(s.actor);
        const bool listed =
            std::any_of(known.begin(), known.end(), [&](const char* p) { return s.what == std::string_view(p); });
        INFO("actor " << sc.actors[s.actor].name << " at " << s.what);
        CHECK(listed);
        if (s.kind == allocsim::sim::PointKind::Call) calls_seen.insert(std::string(s.what));
        ++steps_checked;
      }
    };
    allocsim::campaign::run(*subject_of(sc), cfg, hooks);
  }
  CHECK(steps_checked > 100000);
  CHECK(calls_seen == calls_listed);
}

TEST_CASE("point vocabulary: an actor's list is its ops' calls in script order, then the barriers, then lock.wait",
          "[order]") {
  Scenario sc;
  ActorSpec a;
  a.name = "flowA";
  a.script.resize(2);
  a.script[0].kind = OpKind::Reserve;
  a.script[0].has_requests = true;  // it plans itself: inventory, plan, reserve
  a.script[1].kind = OpKind::Recover;
  ActorSpec b;
  b.name = "watch";
  b.script.resize(2);
  b.script[0].kind = OpKind::Await;
  b.script[1].kind = OpKind::Observe;
  ActorSpec c;
  c.name = "borrower";
  c.script.resize(1);
  c.script[0].kind = OpKind::Reserve;  // reserves a plan made elsewhere (plan_from): no inventory, no plan
  c.script[0].plan_from = "flowA";
  sc.actors = {a, b, c};
  const allocsim::sim::PointVocabulary v = point_vocabulary(sc);
  REQUIRE(v.per_actor.size() == 3);
  CHECK(std::string(v.per_actor[2][0]) == "reserve");
  CHECK(v.per_actor[2].size() == 1 + allocsim::backend::barrier_table().size() + 1);
  const std::vector<std::string> first(v.per_actor[0].begin(), v.per_actor[0].begin() + 4);
  CHECK(first == std::vector<std::string>{"inventory", "plan", "reserve", "recover"});
  CHECK(std::string(v.per_actor[0][4]) == "release");
  CHECK(std::string(v.per_actor[1][0]) == "observe");  // await polls with observe; "observe" listed once
  CHECK(std::string(v.per_actor[1][1]) != "observe");
  CHECK(std::string(v.per_actor[1].back()) == "lock.wait");
  CHECK(v.per_actor[0].size() == 5 + allocsim::backend::barrier_table().size() + 1);
  CHECK(v.per_actor[1].size() == 1 + allocsim::backend::barrier_table().size() + 1);
}

// DPOR split into work units (sim/strategies/dpor_units.h): the units under enumerate_prefixes(), each seeded
// with its earlier siblings' sleep-set entries, together see every trace plain DFS sees, and run about as many
// executions as one unsplit DPOR instead of several times more.
#include <catch2/catch.hpp>

#include <iostream>
#include <set>
#include <string>

#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "sim/strategies/dpor_units.h"
#include "tests/sim/systematic_helpers.h"

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

namespace {

struct UnitTotals {
  uint64_t units = 0, executions = 0, traces = 0;
  uint64_t asleep = 0;     // seeded units whose own prefix choice sleeps: they run nothing
  uint64_t abandoned = 0;  // sleep-set-blocked prefixes the units abandoned (ExecutionResult::abandoned)
  std::set<std::string> violations;
};

/// Runs DPOR under every prefix of enumerate_prefixes(depth), seeded (or not) with earlier siblings, as a
/// sweep does: a seeded unit whose prefix choice is asleep runs no execution.
UnitTotals run_units(const WorldFactory& make, size_t depth, bool seeded) {
  Engine plain;
  Engine fp(EngineOptions{.record_footprints = true});
  TraceCounter all;
  UnitTotals out;
  for (const auto& prefix : enumerate_prefixes(plain, make, depth)) {
    ++out.units;
    UnitSleep seeds = seeded ? unit_sleep({}, make, prefix) : UnitSleep{};
    if (seeds.asleep) {
      ++out.asleep;
      continue;
    }
    DporStrategy unit(DporOptions{.prefix = prefix, .prefix_siblings = std::move(seeds.siblings)});
    for (bool more = true; more;) {
      unit.begin_execution(0);
      auto w = make();
      ExecutionResult r = fp.run(*w, unit);
      if (r.abandoned) {  // a sleep-set-blocked prefix: not an execution (sim/explorer.h)
        ++out.abandoned;
        more = unit.end_execution(r);
        continue;
      }
      all.add(r);
      if (r.violation) out.violations.insert(r.violation->invariant);
      ++out.executions;
      more = unit.end_execution(r);
    }
  }
  out.traces = all.distinct();
  return out;
}

}  // namespace

TEST_CASE("dpor units: earlier siblings are the smaller runnable ids with their steps' footprints", "[dpor]") {
  // At the root a, b and c are runnable; the prefix chooses c: a and b are its earlier siblings.
  const auto make = world_of({toucher("a", {{X}}), toucher("b", {{Y, false}}), toucher("c", {{Z}})});
  const auto s = earlier_siblings({}, make, {{Choice::Actor, 2}, {Choice::Actor, 0}});
  REQUIRE(s.size() == 2);
  CHECK(s[0] == std::vector<SiblingStep>{{0, {{X, true}}}, {1, {{Y, false}}}});
  CHECK(s[1].empty());  // after c, a is the smallest runnable id: no earlier sibling
}

TEST_CASE("dpor units: a sibling's footprint is the union over the draws inside its step", "[dpor]") {
  TestWorld::Actor a{"a", [](TestWorld&, ActorContext& ctx) {
                       ctx.point(PointKind::Call, "call", "0");
                       ctx.touch(ctx.draw(2) == 0 ? X : Y, true);
                     }};
  const auto make = world_of({a, toucher("b", {{Z}})});
  const auto s = earlier_siblings({}, make, {{Choice::Actor, 1}});
  CHECK(s[0] == std::vector<SiblingStep>{{0, {{X, true}, {Y, true}}}});
}

TEST_CASE("dpor units: independent actors: only the first seeded unit runs", "[dpor]") {
  // Three actors on disjoint objects: one trace. Unseeded, every unit explores it again.
  const auto make = world_of({toucher("a", {{X}, {X}}), toucher("b", {{Y}, {Y}}), toucher("c", {{Z}})});
  const UnitTotals seeded = run_units(make, 2, true), plain = run_units(make, 2, false);
  CHECK(seeded.traces == 1);
  CHECK(plain.traces == 1);
  CHECK(seeded.units == 8);  // a a, a b, a c, b a, b b, b c, c a, c b
  // "a a" runs the one trace; "a b" and "b b" end with an awake actor after the prefix and abandon one
  // sleep-set-blocked prefix each. "b a", "c a" and "c b" choose at node 1 an earlier sibling of node 0
  // that still sleeps (nothing it depends on ran); after "a c" and "b c" every runnable actor sleeps (a and
  // b, the siblings of c at node 1). Those five run nothing; each used to run one blocked execution (8 in all).
  CHECK(seeded.asleep == 5);
  CHECK(seeded.executions == 1);
  CHECK(seeded.abandoned == 2);
  CHECK(plain.executions == plain.units);
}

TEST_CASE("dpor units: prefix_asleep follows a sibling down the prefix until a dependent step wakes it", "[dpor]") {
  const Footprint x{{X, true}}, y{{Y, true}};
  const std::vector<Choice> b_a{{Choice::Actor, 1}, {Choice::Actor, 0}};
  const std::vector<std::vector<SiblingStep>> a_before_b{{{0, x}}, {}};
  CHECK(prefix_asleep(b_a, a_before_b, {y, x}));   // b writes Y, a (writes X) still sleeps at node 1
  CHECK(!prefix_asleep(b_a, a_before_b, {x, x}));  // b writes X too: a wakes
  CHECK(!prefix_asleep(b_a, {{}, {}}, {y, x}));    // no earlier sibling
  // A draw between the two actor choices is part of b's step: skipped, the footprint is still b's.
  const std::vector<Choice> b_draw_a{{Choice::Actor, 1}, {Choice::Draw, 1}, {Choice::Actor, 0}};
  CHECK(prefix_asleep(b_draw_a, {{{0, x}}, {}, {}}, {y, {}, x}));
}

TEST_CASE("dpor units: seeded units see every trace dfs sees on 600 random lock-and-touch programs", "[dpor]") {
  uint64_t seeded_executions = 0, plain_executions = 0, traces = 0, units = 0;
  for (uint64_t seed = 0; seed < 600; seed += kSeedStride) {
    std::string desc;
    const auto make = world_of(actors_of(random_lock_program(seed, 2 + (seed % 3 == 0), desc)));
    DfsStrategy d;
    const Explored dfs = explore_all(d, make);
    const size_t depth = 1 + seed % 4;
    const UnitTotals seeded = run_units(make, depth, true), plain = run_units(make, depth, false);
    if (seeded.traces != dfs.traces || plain.traces != dfs.traces) {
      std::cout << "seed " << seed << " depth " << depth << ": dfs " << dfs.traces << " traces, seeded units "
                << seeded.traces << ", unseeded " << plain.traces << "\n"
                << desc;
      FAIL();
    }
    seeded_executions += seeded.executions;
    plain_executions += plain.executions;
    traces += dfs.traces;
    units += seeded.units;
  }
  // Seeding removes what splitting costs: one execution per trace over all the units (a unit an earlier one
  // covers abandons its sleep-set-blocked prefix); unseeded units run far more. Measured: 5,734 seeded and
  // 17,629 unseeded executions for 5,734 traces in 5,629 units (9,565 seeded when blocked prefixes were run out).
  CHECK(seeded_executions == traces);
  CHECK(units == (kSanitized ? 1'129u : 5'629u));  // every kSeedStride-th seed under the sanitizers
  CHECK(plain_executions * 10 > seeded_executions * 15);
}

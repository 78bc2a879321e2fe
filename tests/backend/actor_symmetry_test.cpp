// Which actors are interchangeable (backend/world/actor_symmetry.h, rules 1-4), and how names are found in strings.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/scenario/scenario.h"
#include "backend/world/actor_symmetry.h"
#include "backend/world/name_split_memo.h"

namespace actor_symmetry_test {

using namespace allocsim::harness;
using Classes = std::vector<std::vector<allocsim::sim::ActorId>>;

/// A scenario of reservers named `names`, each planning workload "w<name>" unless `workloads` says otherwise;
/// `extra` is spliced into the top level (an expect block, say).
Scenario reservers(const std::vector<std::string>& names, const std::vector<std::string>& workloads = {},
                   const std::string& extra = "") {
  std::string actors;
  for (size_t i = 0; i < names.size(); ++i)
    actors += fmt::format(R"({}{{ "name": "{}", "script": [ {{ "op": "inventory" }},
        {{ "op": "plan", "requests": [ {{ "workload": "{}", "devices": 1 }} ] }}, {{ "op": "reserve" }} ] }})",
                          i ? ", " : "", names[i], workloads.empty() ? "w" + names[i] : workloads[i]);
  return parse_scenario(fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "s",
      "description": "r0 races r1: prose names no one",
      "nodes": [ {{ "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 }} ],
      "actors": [ {} ]{} }})",
                                    actors, extra),
                        "s.json");
}

TEST_CASE("actor symmetry: identical reservers form one class, whatever their names", "[symmetry]") {
  const ActorSymmetry s = find_interchangeable(reservers({"r0", "r1", "r2"}));
  CHECK(s.classes == Classes{{0, 1, 2}});
  // Each actor's name and its workload, longest first.
  REQUIRE(s.names.size() == 6);
  CHECK(s.names[0].name == "wr0");
  CHECK(s.names[0].actor == 0);
  CHECK(s.names[0].place == 1);
  CHECK(s.names[5].name == "r2");
  CHECK(s.names[5].place == 0);
  CHECK(s.starts['r']);
  CHECK(s.starts['w']);
  CHECK(!s.starts['n']);
}

TEST_CASE("actor symmetry: an actor that something else names is left out", "[symmetry]") {
  // expect names r0: r1 and r2 stay interchangeable.
  const std::string expect = R"(, "expect": { "actors": { "r0": { "reserve": ["claimed"] } } })";
  CHECK(find_interchangeable(reservers({"r0", "r1", "r2"}, {}, expect)).classes == Classes{{1, 2}});
  // A start-state workload with one actor's workload name.
  Scenario sc = reservers({"a", "b", "c"}, {"pa", "pb", "pc"});
  sc.nodes[0].workloads.emplace_back("pb", 1);
  CHECK(find_interchangeable(sc).classes == Classes{{0, 2}});
}

TEST_CASE("actor symmetry: different scripts, shared workloads and ambiguous names break classes", "[symmetry]") {
  // Two ask for the same workload: each names the other's workload.
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"p", "p", "q"})).classes.empty());
  // A name inside another name as a whole word ("r1" in "r1-x", "a" in its own workload "a-pod"): a string
  // holding "r1-x" could be either, so neither is renamed.
  CHECK(find_interchangeable(reservers({"r1", "r1-x", "r3"}, {"wa", "wb", "wc"})).classes == Classes{});
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"a-pod", "b-pod", "c-pod"})).classes.empty());
  // Names the backend uses itself, or all digits, are never renamed.
  CHECK(find_interchangeable(reservers({"claim", "b", "c"}, {"w1", "w2", "w3"})).classes == Classes{{1, 2}});
  CHECK(find_interchangeable(reservers({"7", "b", "c"}, {"wa", "wb", "wc"})).classes == Classes{{1, 2}});
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"op3", "wb", "wc"})).classes == Classes{{1, 2}});
  // Outcomes, statuses and audit kinds are the backend's words too, whole or as a word of a longer name.
  CHECK(find_interchangeable(reservers({"complete", "b", "c"}, {"wa", "wb", "wc"})).classes == Classes{{1, 2}});
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"feasible", "wb", "wc"})).classes == Classes{{1, 2}});
  CHECK(find_interchangeable(reservers({"a", "release-owner", "c"}, {"wa", "wb", "wc"})).classes == Classes{{0, 2}});
  CHECK(find_interchangeable(reservers({"flow-1", "flow-2"}, {"wa", "wb"})).classes == Classes{{0, 1}});
  // A word every script holds ("plan", "false") rules out only the actor named for it.
  CHECK(find_interchangeable(reservers({"plan", "b", "c"}, {"wa", "wb", "wc"})).classes == Classes{{1, 2}});
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"false", "wb", "wc"})).classes == Classes{{1, 2}});
  // MIG profile names are the backend's words too.
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"1g.10gb", "wb", "wc"})).classes == Classes{{1, 2}});
}

TEST_CASE("actor symmetry: each actor left out of every class says the first rule it breaks", "[symmetry]") {
  using Lines = std::vector<std::string>;
  const std::string expect = R"(, "expect": { "actors": { "r0": { "reserve": ["claimed"] } } })";
  CHECK(find_interchangeable(reservers({"r0", "r1", "r2"}, {}, expect)).unpaired ==
        Lines{"r0: \"r0\" occurs in /expect (rule 2)"});
  CHECK(find_interchangeable(reservers({"a", "b"}, {"w", "w"})).unpaired ==
        Lines{"a: \"w\" occurs in b's script (rule 2)", "b: its script names \"w\", a's (rule 2)"});
  CHECK(find_interchangeable(reservers({"7", "b", "c"}, {"wa", "wb", "wc"})).unpaired ==
        Lines{"7: its own name \"7\" is all digits, as the ids' counters are (rule 3)"});
  CHECK(find_interchangeable(reservers({"claim-x", "b", "c"}, {"wa", "wb", "wc"})).unpaired ==
        Lines{"claim-x: its own name \"claim-x\" holds \"claim\", a word the backend writes itself (rule 3)"});
  CHECK(find_interchangeable(reservers({"r1", "r1-x"}, {"wa", "wb"})).unpaired ==
        Lines{"r1: \"r1\" occurs inside \"r1-x\" (rule 3)", "r1-x: \"r1\" occurs inside \"r1-x\" (rule 3)"});
  // A workload named as its own actor: one name twice.
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"wa", "b", "wc"})).unpaired ==
        Lines{"b: its workload \"b\" is its name (rule 3)"});
  Scenario two_shapes = reservers({"a", "b"});
  two_shapes.actors[1].script.pop_back();  // b never reserves
  CHECK(find_interchangeable(two_shapes).unpaired ==
        Lines{"a: no other actor's script is the same up to its own names (rule 1)",
              "b: no other actor's script is the same up to its own names (rule 1)"});
  // c shares a's workload: both are out, and b, of their shape, is alone because of them, not of its script.
  CHECK(find_interchangeable(reservers({"a", "b", "c"}, {"wa", "wb", "wa"})).unpaired ==
        Lines{"a: \"wa\" occurs in c's script (rule 2)",
              "b: the other actors whose scripts are the same up to their own names (a, c) are left out by rules 2-4 "
              "(rule 1)",
              "c: its script names \"wa\", a's (rule 2)"});
  // A reserved own name is not replaced in its actor's shape: "plan" is an op name too.
  CHECK(find_interchangeable(reservers({"plan", "b"}, {"wa", "wb"})).unpaired ==
        Lines{"plan: its own name \"plan\" holds \"plan\", a word the backend writes itself (rule 3)",
              "b: the other actors whose scripts are the same up to their own names (plan) are left out by rules 2-4 "
              "(rule 1)"});
  // An own name that is a top-level key of the scenario.
  CHECK(find_interchangeable(reservers({"invariants", "b"}, {"wa", "wb"})).unpaired[0] ==
        "invariants: \"invariants\" occurs in /invariants (rule 2)");
  CHECK(find_interchangeable(reservers({"a"})).unpaired == Lines{"the scenario has one actor"});
  CHECK(find_interchangeable(reservers({"a", "b", "c"})).unpaired.empty());
}

TEST_CASE("actor symmetry: split_names finds whole words only", "[symmetry]") {
  const ActorSymmetry s = find_interchangeable(reservers({"r0", "r1"}));
  REQUIRE(s.classes == Classes{{0, 1}});
  const auto split = [&](std::string_view text) {
    std::string out;
    split_names(
        text, s.names, s.starts, [&](std::string_view t) { out += t; },
        [&](const OwnName& o) { out += fmt::format("<{}.{}>", o.actor, o.place); });
    return out;
  };
  CHECK(split("claim-r0-1") == "claim-<0.0>-1");
  CHECK(split("r1:op2") == "<1.0>:op2");
  CHECK(split("allocsim-wr1-3") == "allocsim-<1.1>-3");
  CHECK(split("r10 xr0 r0_ r0") == "r10 xr0 r0_ <0.0>");
  CHECK(split("") == "");
}

TEST_CASE("actor symmetry: the name-split memo gives one digest per text, hit or miss", "[symmetry]") {
  const ActorSymmetry s = find_interchangeable(reservers({"r0", "r1"}));
  REQUIRE(s.classes == Classes{{0, 1}});
  using Actors = std::vector<allocsim::sim::ActorId>;
  NameSplitMemo memo;
  const auto get = [&](NameSplitMemo& m, std::string_view text) { return m.get(text, s.names, s.starts); };
  // A renaming moves the holes' actors, not the digest; the text around the holes and their places do.
  const NameSplitMemo::Split a = get(memo, "claim-r0-1"), b = get(memo, "claim-r1-1");
  CHECK(a.digest == b.digest);
  CHECK(a.actors == Actors{0});
  CHECK(b.actors == Actors{1});
  CHECK(get(memo, "claim-r0-2").digest != a.digest);
  CHECK(get(memo, "claim-wr0-1").digest != a.digest);  // place 1 (the workload), not 0
  CHECK(get(memo, "claim-r0-1-r1").actors == Actors{0, 1});
  CHECK(get(memo, "").digest != get(memo, "claim--1").digest);
  // More texts than slots: every slot is overwritten, and the texts asked again (misses now) and a fresh memo's
  // answers agree with the first answers.
  std::vector<NameSplitMemo::Split> first;
  for (size_t i = 0; i < 2 * NameSplitMemo::kSlots; ++i) first.push_back(get(memo, fmt::format("r{}:op{}", i % 2, i)));
  NameSplitMemo fresh;
  for (size_t i = 0; i < 2 * NameSplitMemo::kSlots; i += 97) {
    const std::string text = fmt::format("r{}:op{}", i % 2, i);
    CHECK(get(memo, text).digest == first[i].digest);
    CHECK(get(fresh, text).digest == first[i].digest);
    CHECK(get(memo, text).actors == Actors{allocsim::sim::ActorId(i % 2)});
  }
  CHECK(get(memo, "claim-r0-1").digest == a.digest);
}

}  // namespace actor_symmetry_test

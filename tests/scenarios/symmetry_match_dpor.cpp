// Symmetry (`dfs --reduction symmetry`, sim/symmetry.h) never hides a verdict: on every scenario file, and on the
// family of N identical reservers up to 3 with release (docs/DESIGN.md §2 "Symmetry"), it finds what DPOR finds up
// to renaming interchangeable actors: the same violated invariants, barriers reached and expectation verdict; the
// same outcomes once each actor is read as its class; and the same final worlds once each is read as its orbit.
// It also reduces what it should: the family's distinct states are pinned.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "backend/world/state_digest.h"
#include "sim/campaign/run.h"
#include "tests/scenarios/scenario_files.h"

namespace symmetry_match_dpor_test {

using namespace allocsim::harness;
using allocsim::testing::scenario_files;

#if defined(BOOST_USE_ASAN)
constexpr uint64_t kCap = 5'000;  // as states_match_dpor.cpp: the sanitized suite compares the trees that fit
constexpr bool kSanitized = true;
#else
constexpr uint64_t kCap = 2'000'000;  // above every tree here; exhaustion is asserted
constexpr bool kSanitized = false;
#endif
constexpr size_t kFilesWithClasses = 1;  // of the scenario files, those with interchangeable actors

/// The digest of a world's orbit: the least, over every renaming within the classes, of its symmetric state's
/// world part (the actors' parts left out: DPOR does not record them).
uint64_t orbit_digest(BackendWorld& w, const std::vector<std::vector<allocsim::sim::ActorId>>& classes) {
  allocsim::sim::SymmetricState s;
  symmetric_state(w, s);
  const size_t n = w.actors().size();
  std::vector<std::vector<allocsim::sim::ActorId>> orders = classes;
  uint64_t best = UINT64_MAX;
  for (;;) {
    std::vector<uint64_t> map(n);
    std::iota(map.begin(), map.end(), uint64_t{1} << 40);
    for (size_t c = 0; c < classes.size(); ++c)
      for (size_t k = 0; k < classes[c].size(); ++k) map[orders[c][k]] = (uint64_t{1} << 40) + classes[c][k];
    uint64_t sum = 0;
    for (const auto& p : s.parts) sum += allocsim::sim::finish(p, s.refs.data(), map.data());
    for (const auto& o : s.objects)
      sum += allocsim::sim::state_mix(allocsim::sim::finish(o.name, s.refs.data(), map.data()),
                                      allocsim::sim::finish(o.digest, s.refs.data(), map.data()));
    best = std::min(best, sum);
    size_t c = 0;
    for (; c < orders.size(); ++c)
      if (std::next_permutation(orders[c].begin(), orders[c].end())) break;
    if (c == orders.size()) return best;
  }
}

struct Verdicts {
  allocsim::campaign::RunReport report;
  std::set<std::string> violated;
  std::set<std::tuple<std::string, std::string, std::string>> outcomes;  // class (its first actor), op, outcome
  std::set<uint64_t> finals;                                             // orbit digests of the quiescent ends
};

Verdicts explore(const Scenario& sc, const std::string& reduction) {
  const auto compiled = compile(sc, {});
  const auto classes = compiled->symmetry().classes;
  std::map<std::string, std::string> class_of;  // actor -> its class's first actor
  for (const auto& a : sc.actors) class_of[a.name] = a.name;
  for (const auto& cls : classes)
    for (const auto a : cls) class_of[sc.actors[a].name] = sc.actors[cls[0]].name;
  allocsim::campaign::ExploreConfig cfg;
  cfg.strategy = "dfs";
  cfg.reduction = reduction;
  cfg.executions = kCap;
  Verdicts v;
  allocsim::campaign::RunHooks hooks;
  hooks.on_execution = [&](uint64_t, const allocsim::sim::World& w, const allocsim::sim::ExecutionResult& r) {
    if (!r.quiescent || r.violation) return;
    // symmetric_state() marks the world symmetric; at a quiescent end nothing records any more.
    v.finals.insert(orbit_digest(const_cast<BackendWorld&>(dynamic_cast<const BackendWorld&>(w)), classes));
  };
  v.report = allocsim::campaign::run(*subject_of(sc), cfg, hooks);
  for (const auto& [inv, n] : v.report.summary.violations_by_invariant) v.violated.insert(inv);
  for (const auto& [actor, ops] : v.report.outcomes)
    for (const auto& [op, outs] : ops)
      for (const auto& [out, n] : outs) v.outcomes.insert({class_of.at(actor), op, out});
  return v;
}

/// Compares symmetry's verdicts with DPOR's on `sc`; false when it has no interchangeable actors (it then runs as
/// `states`, which states_match_dpor.cpp compares) or the sanitizers' cap left it out.
bool same_verdicts(const Scenario& sc) {
  if (compile(sc, {})->symmetry().classes.empty()) return false;
  const Verdicts dpor = explore(sc, "dpor"), sym = explore(sc, "symmetry");
  if (kSanitized && !(dpor.report.exhausted && sym.report.exhausted)) return false;
  CHECK(dpor.report.exhausted);
  CHECK(sym.report.exhausted);
  CHECK(sym.violated == dpor.violated);
  CHECK(sym.outcomes == dpor.outcomes);
  CHECK(sym.report.reached == dpor.report.reached);
  CHECK(sym.finals == dpor.finals);
  CHECK(sym.report.met == dpor.report.met);
  return true;
}

/// The reserver family, actor i named names[i] (default "r<i>") with workload "w<name>"; `extra` is spliced into
/// the top level (faults, say).
Scenario family(int n, bool release, std::vector<std::string> names = {}, const std::string& extra = "") {
  for (int i = int(names.size()); i < n; ++i) names.push_back(fmt::format("r{}", i));
  std::string actors;
  for (int i = 0; i < n; ++i)
    actors += fmt::format(R"({}{{ "name": "{}", "script": [ {{ "op": "inventory" }},
        {{ "op": "plan", "requests": [ {{ "workload": "w{}", "devices": 1, "sharing": "exclusive" }} ] }},
        {{ "op": "reserve" }}{} ] }})",
                          i ? ", " : "", names[i], names[i], release ? R"(, { "op": "release" })" : "");
  const std::string node = R"({ "name": "NAME", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
      "labels": { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2",
                  "nvidia.com/gpu.memory": "81920", "nvidia.com/mig.capable": "true" } })";
  std::string n1 = node, n2 = node;
  n1.replace(n1.find("NAME"), 4, "n1");
  n2.replace(n2.find("NAME"), 4, "n2");
  return parse_scenario(fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "family-{}",
      "backend": {{ "authority": "managed-mig", "mig_apply_seconds": 0, "mutants": [] }},
      "nodes": [ {}, {} ], "actors": [ {} ], "invariants": "all"{} }})",
                                    n, n1, n2, actors, extra),
                        "family.json");
}

TEST_CASE("symmetry: the verdicts of dpor on every scenario file, up to renaming", "[symmetry][scenarios]") {
  const auto files = scenario_files();
  REQUIRE(files.size() >= 60);
  size_t compared = 0;
  for (const std::string& f : files) {
    INFO(f);
    compared += same_verdicts(load_scenario(f));
  }
  // The files with interchangeable actors (whose trees all fit the sanitizers' cap too): pinned, so that a change
  // in which actors count as interchangeable shows.
  CHECK(compared == kFilesWithClasses);
}

TEST_CASE("symmetry: the verdicts of dpor on the reserver family up to 3 with release", "[symmetry][scenarios]") {
  for (int n = 2; n <= 3; ++n)
    for (bool release : {false, true}) {
      if (kSanitized && n == 3 && release) continue;
      INFO(n << (release ? " with release" : ""));
      const bool compared = same_verdicts(family(n, release));
      if (!kSanitized) CHECK(compared);
    }
}

TEST_CASE("symmetry: the verdicts of dpor with faults, and with a class beside actors of their own",
          "[symmetry][scenarios]") {
  // Any reserver may crash, raise or lose the response once, after its claim is made: faults draw inside steps,
  // and heals-after-faults judges what a crashed flow left.
  const std::string faults =
      R"(, "faults": { "max": 1, "barriers": { "claim.create.after": ["crash", "raise", "drop_response"] } })";
  const bool with_faults = same_verdicts(family(2, true, {}, faults));
  if (!kSanitized) CHECK(with_faults);
  // Two reservers, two that only list, and one that lists one node: two classes and an actor alone (DPOR: 115,872
  // executions).
  const Scenario mixed = parse_scenario(R"({ "schema": "allocsim/scenario/v1", "name": "mixed",
      "nodes": [ { "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 } ],
      "actors": [
        { "name": "r0", "script": [ { "op": "inventory" },
            { "op": "plan", "requests": [ { "workload": "wr0", "devices": 1 } ] }, { "op": "reserve" } ] },
        { "name": "q0", "script": [ { "op": "inventory" } ] },
        { "name": "solo", "script": [ { "op": "inventory", "nodes": ["n1"] } ] },
        { "name": "r1", "script": [ { "op": "inventory" },
            { "op": "plan", "requests": [ { "workload": "wr1", "devices": 1 } ] }, { "op": "reserve" } ] },
        { "name": "q1", "script": [ { "op": "inventory" } ] } ],
      "invariants": "all" })",
                                        "mixed.json");
  REQUIRE(compile(mixed, {})->symmetry().classes == std::vector<std::vector<allocsim::sim::ActorId>>{{0, 3}, {1, 4}});
  const bool compared = same_verdicts(mixed);
  if (!kSanitized) CHECK(compared);
}

TEST_CASE("symmetry: the family's distinct states, against state caching without it", "[symmetry][scenarios]") {
  // Exact counts: a change in what the canonical state holds, or in which renamings are tried, moves them.
  // N=3 with release: 82,667 distinct states without symmetry; 3! orders of three interchangeable reservers.
  const std::vector<std::tuple<int, bool, uint64_t, uint64_t>> rows = {{2, false, 211, 108},
                                                                       {2, true, 749, 377},
                                                                       {3, false, 9'452, 1'620},
                                                                       {3, true, 82'667, 13'875}};
  for (const auto& [n, release, states, symmetric] : rows) {
    if (kSanitized && n == 3 && release) continue;
    INFO(n << (release ? " with release" : ""));
    const Scenario sc = family(n, release);
    // Names of different lengths reach the same orbits (a renaming changes a string's length).
    allocsim::campaign::ExploreConfig unequal;
    unequal.strategy = "dfs";
    unequal.executions = kCap;
    unequal.reduction = "symmetry";
    const auto renamed = allocsim::campaign::run(*subject_of(family(n, release, {"a", "bb", "flow-c"})), unequal, {});
    REQUIRE(renamed.states);
    CHECK(renamed.states->distinct == symmetric);
    allocsim::campaign::ExploreConfig cfg;
    cfg.strategy = "dfs";
    cfg.executions = kCap;
    cfg.reduction = "states";
    const auto plain = allocsim::campaign::run(*subject_of(sc), cfg, {});
    cfg.reduction = "symmetry";
    const auto sym = allocsim::campaign::run(*subject_of(sc), cfg, {});
    REQUIRE(plain.states);
    REQUIRE(sym.states);
    CHECK(plain.states->distinct == states);
    CHECK(sym.states->distinct == symmetric);
  }
}

}  // namespace symmetry_match_dpor_test

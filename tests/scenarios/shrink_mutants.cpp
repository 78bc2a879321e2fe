// The shrinker on every mutant scenario (docs/DESIGN.md §6): the violation is found, shrunk to the sizes
// recorded in scenarios/mutants/expected-shrink.tsv, the result is 1-minimal (removing any single actor,
// op, non-zero fault draw or preemption makes the violation go away), and its preemption count is the
// minimum, computed here independently by brute force over every schedule with fewer preemptions.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "backend/system/backend_world.h"
#include "backend/system/shrink.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/campaign/trace_replay.h"
#include "sim/engine.h"
#include "tests/scenarios/scenario_files.h"

using namespace allocsim;
using namespace allocsim::harness;
namespace fs = std::filesystem;
using allocsim::testing::mutant_files;

namespace {

struct Expected {
  std::string invariant;
  size_t steps, actors, ops, preemptions;
};

// scenario file name -> expected minimal trace (the sidecar keeps scenario files to their schema).
std::map<std::string, Expected> expected_shrinks() {
  std::ifstream in(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/mutants/expected-shrink.tsv");
  REQUIRE(in);
  std::map<std::string, Expected> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::string file;
    Expected e;
    f >> file >> e.invariant >> e.steps >> e.actors >> e.ops >> e.preemptions;
    REQUIRE(f);
    out[file] = e;
  }
  return out;
}

// Executions of `sc` under a strategy that follows `prefix` exactly, then always picks the lowest
// runnable id (a different default than the shrinker's "keep the running actor"), recording the
// runnable sets. Fault draws follow `draws` in order (the minimal trace's own, so that a violation that
// needs a fault stays reachable; draw 0, "no fault", once they run out). Enumerates every schedule whose every prefix has at most `bound` preemptions, and returns
// the fewest preemptions of an execution that violates `invariant` (or bound + 1 if none does).
class Enumerate final : public sim::Strategy {
 public:
  std::vector<sim::ActorId> prefix;
  std::vector<uint64_t> draws;
  size_t next_draw = 0;
  std::vector<std::vector<sim::ActorId>> runnable;  // per choice
  std::vector<sim::ActorId> current;                // per choice: who ran the step before
  void begin_execution(uint64_t) override { runnable.clear(), current.clear(), next_draw = 0; }
  sim::ActorId choose(std::span<const sim::Candidate> cands, sim::ActorId cur) override {
    std::vector<sim::ActorId> ids;
    for (const auto& c : cands) ids.push_back(c.actor);
    const size_t at = runnable.size();
    runnable.push_back(ids);
    current.push_back(cur);
    return at < prefix.size() ? prefix[at] : ids.front();
  }
  uint64_t draw(uint64_t bound) override {
    const uint64_t v = next_draw < draws.size() ? draws[next_draw] : 0;
    ++next_draw;
    return v < bound ? v : 0;
  }
  bool end_execution(const sim::ExecutionResult&) override { return false; }
};

uint32_t brute_force_min_preemptions(const Scenario& sc, const std::string& invariant, uint32_t bound,
                                     const std::vector<uint64_t>& draws, uint64_t& executions) {
  auto compiled = compile(sc, {});
  sim::Engine engine;
  uint32_t best = bound + 1;
  std::vector<std::vector<sim::ActorId>> frontier = {{}};
  while (!frontier.empty()) {
    Enumerate e;
    e.draws = draws;
    e.prefix = std::move(frontier.back());
    frontier.pop_back();
    e.begin_execution(0);
    BackendWorld w(*compiled);
    const sim::ExecutionResult r = engine.run(w, e);
    ++executions;
    if (r.violation && r.violation->invariant == invariant) best = std::min(best, r.preemptions);
    // Branch at every choice at or after the end of the prefix, to every other runnable actor.
    uint32_t cost = 0;
    for (size_t i = 0; i < e.runnable.size(); ++i) {
      const sim::ActorId took = r.steps[i].actor;
      const auto& ids = e.runnable[i];
      const bool cur_runnable = std::find(ids.begin(), ids.end(), e.current[i]) != ids.end();
      if (i >= e.prefix.size())
        for (sim::ActorId alt : ids) {
          if (alt == took) continue;
          if (cost + (cur_runnable && alt != e.current[i] ? 1u : 0u) > bound) continue;
          std::vector<sim::ActorId> next;
          for (size_t j = 0; j < i; ++j) next.push_back(r.steps[j].actor);
          next.push_back(alt);
          frontier.push_back(std::move(next));
        }
      cost += r.steps[i].preemption ? 1 : 0;
      if (cost > bound) break;
    }
  }
  return best;
}

bool violates(const sim::ExecutionResult& r, const std::string& invariant) {
  return r.violation && r.violation->invariant == invariant;
}

}  // namespace

TEST_CASE("every mutant scenario shrinks to a 1-minimal trace with the fewest preemptions", "[shrink][mutants]") {
  const auto expected = expected_shrinks();
  const auto files = mutant_files();
  REQUIRE(files.size() >= 7);
  for (const std::string& file : files) {
    const std::string base = fs::path(file).filename().string();
    INFO(base);
    const auto want = expected.find(base);
    REQUIRE(want != expected.end());  // every mutant scenario records its expected minimal trace
    const Scenario sc = load_scenario(file);
    campaign::ExploreConfig cfg;
    cfg.executions = 2000;
    cfg.stop_at_first_violation = true;
    const campaign::RunReport rep = campaign::run(*subject_of(sc), cfg);
    REQUIRE(rep.summary.first);
    const sim::ExecutionResult& raw = rep.summary.first->result;
    REQUIRE(raw.violation->invariant == want->second.invariant);

    const ShrinkResult s = shrink(sc, raw.schedule, campaign::ShrinkOptions{});
    const sim::ExecutionResult& m = s.result;
    REQUIRE(violates(m, want->second.invariant));
    CHECK_FALSE(s.budget_exhausted);
    CHECK(s.preemptions_minimal);
    CHECK(m.steps.size() == want->second.steps);
    CHECK(s.scenario.actors.size() == want->second.actors);
    CHECK(op_count(s.scenario) == want->second.ops);
    CHECK(m.preemptions == want->second.preemptions);
    CHECK(m.steps.size() <= raw.steps.size());

    // Deterministic: the same input shrinks to the same execution.
    CHECK(shrink(sc, raw.schedule, campaign::ShrinkOptions{}).result.fingerprint() == m.fingerprint());

    // 1-minimal: no single actor, op or fault draw can go.
    for (size_t a = 0; a < s.scenario.actors.size(); ++a) {
      INFO("without actor " << s.scenario.actors[a].name);
      if (auto c = without_actor(s.scenario, a))
        CHECK_FALSE(
            violates(run_lenient(*c, campaign::schedule_without_actor(m.schedule, a), 10000), want->second.invariant));
    }
    for (size_t a = 0; a < s.scenario.actors.size(); ++a)
      for (size_t k = 0; k < s.scenario.actors[a].script.size(); ++k) {
        INFO("without op " << k << " of " << s.scenario.actors[a].name);
        CHECK_FALSE(violates(run_lenient(without_op(s.scenario, a, k), m.schedule, 10000), want->second.invariant));
      }
    for (size_t i = 0; i < m.schedule.size(); ++i)
      if (m.schedule[i].kind == sim::Choice::Draw && m.schedule[i].value != 0) {
        auto c = m.schedule;
        c[i].value = 0;
        CHECK_FALSE(violates(run_lenient(s.scenario, c, 10000), want->second.invariant));
      }
    // ... and no preemption: letting the running actor continue either passes or does not remove one.
    size_t step = 0;
    for (size_t i = 0; i < m.schedule.size(); ++i) {
      if (m.schedule[i].kind != sim::Choice::Actor) continue;
      if (m.steps[step].preemption) {
        auto c = m.schedule;
        c[i].value = m.steps[step - 1].actor;
        const auto r = run_lenient(s.scenario, c, 10000);
        CHECK((!violates(r, want->second.invariant) || r.preemptions >= m.preemptions));
      }
      ++step;
    }
    // The fewest preemptions, independently: brute force finds none below the shrinker's count.
    uint64_t executions = 0;
    std::vector<uint64_t> draws;
    for (const sim::Choice& c : m.schedule)
      if (c.kind == sim::Choice::Draw) draws.push_back(c.value);
    CHECK(brute_force_min_preemptions(s.scenario, want->second.invariant, m.preemptions, draws, executions) ==
          m.preemptions);
  }
}

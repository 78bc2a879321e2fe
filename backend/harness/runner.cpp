#include "backend/harness/runner.h"

#include <fmt/format.h>

#include <stdexcept>

#include "backend/harness/catalog.h"
#include "sim/strategies/random.h"

namespace allocsim::harness {

namespace {

std::unique_ptr<sim::Strategy> make_strategy(const std::string& name) {
  if (name == "random") return std::make_unique<sim::RandomStrategy>();
  throw std::invalid_argument(fmt::format("unknown strategy \"{}\"", name));
}

void judge(const Scenario& sc, ScenarioReport& r) {
  const auto& e = sc.expect;
  const auto& by = r.summary.violations_by_invariant;
  if (e.pass) {
    for (const auto& [inv, n] : by)
      r.unmet.push_back(fmt::format("expected no violation, but {} execution(s) violated {}", n, inv));
  } else {
    bool found = false;
    for (const auto& [inv, n] : by) {
      bool allowed = false;
      for (const auto& want : e.violations) allowed |= want == inv;
      found |= allowed;
      if (!allowed)
        r.unmet.push_back(fmt::format("{} execution(s) violated {}, which the scenario does not expect", n, inv));
    }
    if (!found) {
      std::string names;
      for (const auto& v : e.violations) names += (names.empty() ? "" : " or ") + v;
      r.unmet.push_back(fmt::format("expected a violation of {}, but none of {} executions found one", names,
                                    r.summary.executions));
    }
  }
  for (const auto& [actor, ops] : e.actors) {
    for (const auto& [op, allowed] : ops) {
      auto a = r.outcomes.find(actor);
      if (a == r.outcomes.end()) continue;
      auto o = a->second.find(op);
      if (o == a->second.end()) continue;
      for (const auto& [outcome, n] : o->second) {
        bool ok = false;
        for (const auto& w : allowed) ok |= w == outcome;
        if (!ok)
          r.unmet.push_back(fmt::format("actor {}: {} ended in \"{}\" in {} execution(s), which expect.actors does "
                                        "not allow",
                                        actor, op, outcome, n));
      }
    }
  }
  for (const auto& want : e.reach) {
    bool hit = false;
    for (const auto& got : r.reached) hit |= got == want;
    if (!hit)
      r.unmet.push_back(fmt::format("barrier {} never fired in {} executions (expect.reach): the race window was "
                                    "not reached",
                                    want, r.summary.executions));
  }
  r.met = r.unmet.empty();
}

}  // namespace

ScenarioReport run_scenario(const Scenario& sc, const RunConfig& config) {
  auto compiled = compile(sc, config.mutants);
  auto strategy = make_strategy(config.strategy);
  sim::Engine engine(sim::EngineOptions{.max_steps = config.max_steps});
  ScenarioReport r;
  std::vector<uint64_t> hits(barrier_catalog().size(), 0);
  sim::ExploreOptions opt{.seed = config.seed,
                          .executions = config.executions,
                          .stop_at_first_violation = config.stop_at_first_violation};
  uint64_t violating = 0;
  r.summary = sim::explore(
      engine, [&] { return std::make_unique<BackendWorld>(*compiled); }, *strategy, opt,
      [&](uint64_t index, uint64_t, sim::World& w, const sim::ExecutionResult& res) {
        auto& bw = static_cast<BackendWorld&>(w);
        for (size_t i = 0; i < hits.size(); ++i) hits[i] += bw.barrier_hits()[i];
        for (size_t a = 0; a < sc.actors.size(); ++a) {
          const auto& script = sc.actors[a].script;
          for (size_t k = 0; k < script.size(); ++k) {
            const char* out = bw.actors()[a].outcomes[k];
            if (out) ++r.outcomes[sc.actors[a].name][op_name(script[k].kind)][out];
          }
        }
        violating += res.violation.has_value();
        if (config.progress) config.progress(index + 1, violating);
      });
  for (size_t i = 0; i < hits.size(); ++i)
    if (hits[i]) r.reached.push_back(barrier_catalog()[i].name);
  judge(sc, r);
  return r;
}

sim::ExecutionResult replay_seed(const Scenario& sc, const RunConfig& config, uint64_t execution_seed) {
  auto compiled = compile(sc, config.mutants);
  auto strategy = make_strategy(config.strategy);
  sim::Engine engine(sim::EngineOptions{.max_steps = config.max_steps});
  strategy->begin_execution(execution_seed);
  BackendWorld world(*compiled);
  return engine.run(world, *strategy);
}

}  // namespace allocsim::harness

#include "backend/harness/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "backend/harness/catalog.h"
#include "sim/coverage.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "sim/strategies/pct.h"
#include "sim/strategies/random.h"
#include "sim/trace_equivalence.h"

namespace allocsim::harness {

namespace {

/// The reduction `config` asks for, defaults resolved: dpor for unbounded dfs, none otherwise.
std::string resolved_reduction(const RunConfig& config) {
  if (config.strategy != "dfs") return "";
  if (!config.reduction.empty()) return config.reduction;
  return config.preemption_bound ? "none" : "dpor";
}

/// Builds the strategy of `config`. `calibrate` computes PCT's k when it is needed. Throws
/// std::invalid_argument for an unknown strategy or reduction, or dpor with a preemption bound.
std::unique_ptr<sim::Strategy> make_strategy(const RunConfig& config, size_t actors,
                                             const std::function<uint64_t()>& calibrate) {
  const std::string reduction = resolved_reduction(config);
  if (config.strategy == "random") return std::make_unique<sim::RandomStrategy>();
  if (config.strategy == "pct")
    return std::make_unique<sim::PctStrategy>(
        sim::PctOptions{.depth = config.pct_depth, .steps = calibrate(), .actors = static_cast<uint32_t>(actors)});
  if (config.strategy == "dfs") {
    if (reduction == "dpor") {
      if (config.preemption_bound)
        throw std::invalid_argument("--reduction dpor cannot be combined with --preemption-bound: DPOR under a "
                                    "preemption bound is unsound (Coons et al., OOPSLA 2013); bounded runs use "
                                    "plain DFS (--reduction none)");
      return std::make_unique<sim::DporStrategy>();
    }
    if (reduction == "none")
      return std::make_unique<sim::DfsStrategy>(sim::DfsOptions{.preemption_bound = config.preemption_bound});
    throw std::invalid_argument(fmt::format("unknown reduction \"{}\" (none, dpor)", reduction));
  }
  throw std::invalid_argument(fmt::format("unknown strategy \"{}\"", config.strategy));
}

void judge(const Scenario& sc, ScenarioReport& r) {
  // The verdict is recomputed from the report, never appended to: judging a report twice (a caller that
  // re-judges after combining, say) must not list every unmet expectation twice.
  r.unmet.clear();
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

void judge_report(const Scenario& sc, ScenarioReport& r) { judge(sc, r); }

ScenarioReport run_scenario(const Scenario& sc, const RunConfig& config) {
  auto compiled = compile(sc, config.mutants);
  const auto make_world = [&] { return std::make_unique<BackendWorld>(*compiled); };
  const uint64_t max_steps = resolve_max_steps(sc, config.max_steps);
  // Footprints for DPOR and for counting distinct traces (dfs only: they cost time on every touch).
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = config.strategy == "dfs"});
  uint64_t pct_steps = 0;
  auto strategy = make_strategy(config, sc.actors.size(), [&] {
    return pct_steps = sim::calibrate_pct_steps(engine, make_world);
  });
  ScenarioReport r;
  r.reduction = resolved_reduction(config);
  sim::TraceCounter traces;
  sim::PairCoverage coverage;
  std::vector<uint64_t> hits(barrier_catalog().size(), 0);
  sim::ExploreOptions opt{.seed = config.seed,
                          .executions = config.executions,
                          .stop_at_first_violation = config.stop_at_first_violation};
  uint64_t violating = 0;
  // Outcome counts per (actor, script op), keyed by the outcome's static string while the run lasts, and folded
  // into r.outcomes (keyed by text) after it: the same counts, without three string-keyed map lookups per op
  // per execution.
  std::vector<std::vector<std::vector<std::pair<const char*, uint64_t>>>> tally(sc.actors.size());
  for (size_t a = 0; a < sc.actors.size(); ++a) tally[a].resize(sc.actors[a].script.size());
  sim::Engine recheck_engine(sim::EngineOptions{.max_steps = max_steps});
  r.summary = sim::explore(
      engine, make_world, *strategy, opt,
      [&](uint64_t index, uint64_t seed, sim::World& w, const sim::ExecutionResult& res) {
        auto& bw = static_cast<BackendWorld&>(w);
        for (size_t i = 0; i < hits.size(); ++i) hits[i] += bw.barrier_hits()[i];
        for (size_t a = 0; a < sc.actors.size(); ++a) {
          const auto& script = sc.actors[a].script;
          for (size_t k = 0; k < script.size(); ++k) {
            const char* out = bw.actors()[a].outcomes[k];
            if (!out) continue;
            auto& t = tally[a][k];
            auto it = std::find_if(t.begin(), t.end(), [out](const auto& p) { return p.first == out; });
            if (it == t.end())
              t.emplace_back(out, 1);
            else
              ++it->second;
          }
        }
        if (config.strategy == "dfs") traces.add(res);
        coverage.observe(res);
        violating += res.violation.has_value();
        if (config.on_fingerprint) config.on_fingerprint(index, seed, res.fingerprint());
        if (config.check_determinism) {
          // A separate engine: the second run must not share stack pools or step hints with the first.
          ++r.rechecked_executions;
          if (auto d = sim::recheck_execution(recheck_engine, make_world, res)) {
            if (!r.divergence) r.divergence = ScenarioReport::Divergence{index, seed, std::move(*d)};
            ++r.divergent_executions;
          }
        }
        if (config.progress) config.progress(index + 1, violating);
      });
  for (size_t a = 0; a < sc.actors.size(); ++a)
    for (size_t k = 0; k < tally[a].size(); ++k)
      for (const auto& [out, n] : tally[a][k])
        r.outcomes[sc.actors[a].name][op_name(sc.actors[a].script[k].kind)][out] += n;
  for (size_t i = 0; i < hits.size(); ++i)
    if (hits[i]) r.reached.push_back(barrier_catalog()[i].name);
  if (auto* d = dynamic_cast<sim::DfsStrategy*>(strategy.get())) r.exhausted = d->exhausted();
  if (auto* d = dynamic_cast<sim::DporStrategy*>(strategy.get())) r.exhausted = d->exhausted();
  if (config.strategy == "dfs") r.distinct_traces = traces.distinct();
  r.pair_coverage = coverage.pairs();
  if (config.strategy == "pct") {
    ScenarioReport::Pct p{.steps = pct_steps, .actors = sc.actors.size(), .depth = config.pct_depth};
    p.per_execution = sim::pct_hit_probability(p.actors, p.steps, p.depth);
    p.miss = sim::pct_miss_probability(p.per_execution, r.summary.executions);
    r.pct = p;
  }
  judge(sc, r);
  return r;
}

sim::ExecutionResult replay_seed(const Scenario& sc, const RunConfig& config, uint64_t execution_seed) {
  auto compiled = compile(sc, config.mutants);
  sim::Engine engine(sim::EngineOptions{.max_steps = resolve_max_steps(sc, config.max_steps)});
  auto strategy = make_strategy(config, sc.actors.size(), [&] {
    return sim::calibrate_pct_steps(engine, [&] { return std::make_unique<BackendWorld>(*compiled); });
  });
  strategy->begin_execution(execution_seed);
  BackendWorld world(*compiled);
  return engine.run(world, *strategy);
}

}  // namespace allocsim::harness

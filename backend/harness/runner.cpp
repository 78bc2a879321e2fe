#include "backend/harness/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "backend/harness/catalog.h"
#include "sim/coverage.h"
#include "sim/strategies/pct.h"
#include "sim/trace_equivalence.h"

namespace allocsim::harness {

namespace {

/// Builds the strategy of `config` (validated). `calibrate` computes k when the strategy needs it.
std::unique_ptr<sim::Strategy> make_strategy(const RunConfig& config, size_t actors,
                                             const std::function<uint64_t()>& calibrate) {
  const sim::StrategySpec& spec = config.spec();
  sim::StrategyParams params = config.params();
  if (spec.caps.calibrated) params.steps = calibrate(), params.actors = static_cast<uint32_t>(actors);
  return spec.make(params);
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
      r.unmet.push_back(
          fmt::format("expected a violation of {}, but none of {} executions found one", names, r.summary.executions));
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
          r.unmet.push_back(
              fmt::format("actor {}: {} ended in \"{}\" in {} execution(s), which expect.actors does "
                          "not allow",
                          actor, op, outcome, n));
      }
    }
  }
  // An execution ends at its first violation, so a barrier behind that point cannot fire in it: reach is
  // judged only on executions that got that far. When none ended without a violation, the window was never
  // given a chance, and blaming the schedule would send the reader the wrong way.
  const uint64_t clean = r.summary.executions - r.summary.violating_executions;
  for (const auto& want : e.reach) {
    bool hit = false;
    for (const auto& got : r.reached) hit |= got == want;
    if (hit) continue;
    if (clean == 0 && r.summary.executions > 0)
      r.unmet.push_back(
          fmt::format("barrier {} never fired (expect.reach): every one of the {} executions stopped "
                      "at a violation before it could fire (reach is judged only on executions "
                      "that get that far)",
                      want, r.summary.executions));
    else
      r.unmet.push_back(
          fmt::format("barrier {} never fired in {} executions (expect.reach): the race window was "
                      "not reached",
                      want, r.summary.executions));
  }
  judge_expect_tally(sc, r.expect_tally, r.summary.executions, r.unmet);
  r.met = r.unmet.empty();
}

}  // namespace

void judge_report(const Scenario& sc, ScenarioReport& r) { judge(sc, r); }

ScenarioReport run_scenario(const Scenario& sc, const RunConfig& config, const RunHooks& hooks) {
  const sim::ResolvedStrategy resolved = config.validate();
  const sim::StrategyCaps caps = config.spec().caps;
  auto compiled = compile(sc, config.mutants);
  const auto make_world = [&] { return std::make_unique<BackendWorld>(*compiled); };
  const uint64_t max_steps = resolve_max_steps(sc, config.max_steps);
  // Footprints for DPOR and for counting distinct traces (exhaustive only: they cost time on every touch).
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = caps.exhaustive});
  uint64_t pct_steps = 0;
  auto strategy =
      make_strategy(config, sc.actors.size(), [&] { return pct_steps = sim::calibrate_pct_steps(engine, make_world); });
  ScenarioReport r;
  r.reduction = resolved.reduction;
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
  r.summary = sim::explore(engine, make_world, *strategy, opt,
                           [&](uint64_t index, uint64_t seed, sim::World& w, const sim::ExecutionResult& res) {
                             auto& bw = static_cast<BackendWorld&>(w);
                             for (size_t i = 0; i < hits.size(); ++i) hits[i] += bw.barrier_hits()[i];
                             for (size_t a = 0; a < sc.actors.size(); ++a) {
                               const auto& script = sc.actors[a].script;
                               for (size_t k = 0; k < script.size(); ++k) {
                                 const char* out = bw.actors()[a].outcomes[k];
                                 if (!out) continue;
                                 auto& t = tally[a][k];
                                 auto it =
                                     std::find_if(t.begin(), t.end(), [out](const auto& p) { return p.first == out; });
                                 if (it == t.end())
                                   t.emplace_back(out, 1);
                                 else
                                   ++it->second;
                               }
                             }
                             tally_execution(sc, bw, r.expect_tally);
                             if (caps.exhaustive) traces.add(res);
                             coverage.observe(res);
                             violating += res.violation.has_value();
                             if (hooks.on_fingerprint) hooks.on_fingerprint(index, seed, res.fingerprint());
                             if (hooks.on_execution) hooks.on_execution(index, bw, res);
                             if (config.check_determinism) {
                               // A separate engine: the second run must not share stack pools or step hints with the first.
                               ++r.rechecked_executions;
                               if (auto d = sim::recheck_execution(recheck_engine, make_world, res)) {
                                 if (!r.divergence)
                                   r.divergence = ScenarioReport::Divergence{index, seed, std::move(*d)};
                                 ++r.divergent_executions;
                               }
                             }
                             if (hooks.progress) hooks.progress(index + 1, violating);
                           });
  for (size_t a = 0; a < sc.actors.size(); ++a)
    for (size_t k = 0; k < tally[a].size(); ++k)
      for (const auto& [out, n] : tally[a][k])
        r.outcomes[sc.actors[a].name][op_name(sc.actors[a].script[k].kind)][out] += n;
  for (size_t i = 0; i < hits.size(); ++i)
    if (hits[i]) r.reached.push_back(barrier_catalog()[i].name);
  r.exhausted = strategy->exhausted();
  if (caps.exhaustive) r.distinct_traces = traces.distinct();
  r.pair_coverage = coverage.pairs();
  if (caps.calibrated) {
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
  config.validate();
  const sim::WorldFactory make_world = [&] { return std::make_unique<BackendWorld>(*compiled); };
  auto strategy = make_strategy(config, sc.actors.size(), [&] { return sim::calibrate_pct_steps(engine, make_world); });
  sim::ExecutionResult out;
  sim::explore(engine, make_world, *strategy, sim::ExploreOptions{.seed = execution_seed, .executions = 1},
               [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) { out = r; });
  return out;
}

}  // namespace allocsim::harness

#include "sim/campaign/run.h"

#include "sim/campaign/observers.h"
#include "sim/strategies/pct.h"

namespace allocsim::campaign {

size_t Subject::op_count() const {
  size_t n = 0;
  for (size_t a = 0; a < actor_names().size(); ++a) n += ops_of(a);
  return n;
}

std::unique_ptr<sim::Strategy> make_strategy(const ExploreConfig& config, size_t actors,
                                             const std::function<uint64_t()>& calibrate) {
  const sim::StrategySpec& spec = config.spec();
  sim::StrategyParams params = config.params();
  if (spec.caps.calibrated) params.steps = calibrate(), params.actors = static_cast<uint32_t>(actors);
  return spec.make(params);
}

sim::ExecutionResult run_one(sim::Engine& engine, const Compiled& compiled, sim::Strategy& strategy,
                             const std::function<void(const sim::World&)>& observe) {
  sim::ExecutionResult out;
  sim::explore(
      engine, [&] { return compiled.make_world(); }, strategy,
      sim::ExploreOptions{.executions = 1, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World& w, const sim::ExecutionResult& r) {
        if (observe) observe(w);
        out = r;
      });
  return out;
}

namespace {

/// The report's pct section: k from the calibration, n actors, d, and the bounds after `executions`.
RunReport::Pct pct_section(uint64_t steps, size_t actors, uint32_t depth, uint64_t executions) {
  RunReport::Pct p{.steps = steps, .actors = actors, .depth = depth};
  p.per_execution = sim::pct_hit_probability(p.actors, p.steps, p.depth);
  p.miss = sim::pct_miss_probability(p.per_execution, executions);
  return p;
}

}  // namespace

RunReport run(const Subject& sc, const ExploreConfig& config, const RunHooks& hooks) {
  const sim::ResolvedStrategy resolved = config.validate();
  const sim::StrategyCaps caps = config.spec().caps;
  const std::unique_ptr<Compiled> compiled = sc.compile(config.mutants);
  const sim::WorldFactory make_world = [&] { return compiled->make_world(); };
  const uint64_t max_steps = sc.max_steps(config.max_steps);
  const size_t actors = sc.actor_names().size();
  // Footprints for DPOR and for counting distinct traces (exhaustive only: they cost time on every touch).
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = caps.exhaustive});
  uint64_t pct_steps = 0;
  auto strategy =
      make_strategy(config, actors, [&] { return pct_steps = sim::calibrate_pct_steps(engine, make_world); });
  RunReport r;
  r.notes = compiled->notes();
  r.reduction = resolved.reduction;
  ExecutionObservers observers(sc.tally(), make_world,
                               {.traces = caps.exhaustive,
                                .recheck = config.check_determinism,
                                .max_steps = max_steps});
  sim::ExploreOptions opt{.seed = config.seed,
                          .executions = config.executions,
                          .stop_at_first_violation = config.stop_at_first_violation};
  uint64_t violating = 0;
  const auto observe = [&](uint64_t index, uint64_t seed, sim::World& w, const sim::ExecutionResult& res) {
    observers.observe(index, seed, w, res);
    violating += res.violation.has_value();
    if (hooks.on_fingerprint) hooks.on_fingerprint(index, seed, res.fingerprint());
    if (hooks.on_execution) hooks.on_execution(index, w, res);
    if (hooks.progress) hooks.progress(index + 1, violating);
  };
  r.summary = sim::explore(engine, make_world, *strategy, opt, observe);
  r.order_inert = observers.order_inert();
  std::map<std::string, uint64_t> hits;
  observers.drain(r.outcomes, hits, r.counters, r.pairs, r.faults);
  for (const std::string& b : sc.barriers())
    if (hits.count(b)) r.reached.push_back(b);
  r.exhausted = strategy->exhausted();
  if (const auto* cache = dynamic_cast<const sim::StateDfsStrategy*>(strategy.get())) {
    r.states = cache->stats();
  }
  if (caps.exhaustive) {
    r.distinct_traces = observers.traces().distinct();
    r.distinct_traces_sample_level = observers.traces().level();
  }
  r.pair_coverage = observers.pair_coverage().pairs();
  r.rechecked_executions = observers.rechecked();
  r.divergent_executions = observers.divergent();
  r.divergence = observers.first_divergence();
  if (caps.calibrated) r.pct = pct_section(pct_steps, actors, config.pct_depth, r.summary.executions);
  sc.judge(r);
  return r;
}

sim::ExecutionResult replay_seed(const Subject& sc, const ExploreConfig& config, uint64_t execution_seed) {
  const std::unique_ptr<Compiled> compiled = sc.compile(config.mutants);
  sim::Engine engine(sim::EngineOptions{.max_steps = sc.max_steps(config.max_steps)});
  config.validate();
  const sim::WorldFactory make_world = [&] { return compiled->make_world(); };
  auto strategy =
      make_strategy(config, sc.actor_names().size(), [&] { return sim::calibrate_pct_steps(engine, make_world); });
  sim::ExecutionResult out;
  sim::explore(engine, make_world, *strategy, sim::ExploreOptions{.seed = execution_seed, .executions = 1},
               [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) { out = r; });
  return out;
}

}  // namespace allocsim::campaign

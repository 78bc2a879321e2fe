// Sweep planning and execution (sweep.h): plans, the unit runner, judging; the units run on the campaigns' worker
// pool (pool.h).
#include "sim/campaign/sweep.h"

#include <xxhash.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string_view>

#include "sim/campaign/observers.h"
#include "sim/campaign/pool.h"
#include "sim/campaign/sweep_checkpoint.h"
#include "sim/interrupt.h"
#include "sim/prng.h"
#include "sim/schedule.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/pct.h"
#include "sim/support/words.h"
#include "sim/tree_estimate.h"

namespace allocsim::campaign {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;  // budgets and checkpoint pacing only; never in a result

namespace {

/// The documents allocsim writes besides scenarios (traces, records, reports, checkpoints, a DFS or DPOR
/// state), by their schema's prefix. A "schema" outside this table is a scenario's, misspelt or not, and goes to
/// the loader, which names what is wrong: skipping it would pass a scenario that never ran.
constexpr std::array<std::string_view, 12> kOtherDocuments = {"allocsim/trace/",
                                                              "allocsim/record/",
                                                              "allocsim/run-report/",
                                                              "allocsim/sweep-report/",
                                                              "allocsim/swarm/",
                                                              "allocsim/selfcheck-report/",
                                                              "allocsim/findings-diff/",
                                                              "allocsim/sweep-checkpoint/",
                                                              "allocsim/swarm-checkpoint/",
                                                              "allocsim/selfcheck-checkpoint/",
                                                              "allocsim/dfs-state/",
                                                              "allocsim/dpor-state/"};

/// Whether a JSON file in a scenario directory is another kind of document (see expand_inputs).
bool other_document(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;  // unparsable: a broken scenario, reported by the loader
  if (doc.contains("$schema")) return true;
  const auto it = doc.find("schema");
  if (it == doc.end() || !it->is_string()) return false;
  const std::string& schema = it->get_ref<const std::string&>();
  return std::any_of(kOtherDocuments.begin(), kOtherDocuments.end(),
                     [&](std::string_view prefix) { return schema.starts_with(prefix); });
}

}  // namespace

std::vector<std::string> expand_inputs(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      size_t found = 0;
      for (const auto& e : fs::recursive_directory_iterator(a)) {
        if (e.is_regular_file() && e.path().extension() == ".json" && !other_document(e.path().string()))
          out.push_back(e.path().lexically_normal().string()), ++found;
      }
      if (found == 0) throw SweepInputError(fmt::format("{}: no scenario files (*.json) in this directory", a));
    } else if (fs::is_regular_file(a, ec)) {
      out.push_back(fs::path(a).lexically_normal().string());
    } else {
      throw SweepInputError(fmt::format("{}: no such file or directory", a.empty() ? "an empty path" : a));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

std::string plan_digest(const std::vector<WorkUnit>& units) {
  std::string text;
  for (const auto& u : units) {
    for (const auto& c : u.prefix) text += sim::format_choice(c) + " ";
    text += fmt::format("[{},{})\n", u.begin, u.end);
  }
  return fmt::format("{:016x}", XXH3_64bits(text.data(), text.size()));
}

/// The dfs units: prefixes at the shallowest depth giving kDfsTargetUnits of them (see sweep.h).
std::vector<WorkUnit> dfs_units(sim::Engine& engine, const sim::WorldFactory& make_world, std::optional<uint32_t> bound,
                                size_t target) {
  std::vector<std::vector<sim::Choice>> prefixes;
  for (size_t depth = 1; depth <= kDfsMaxPrefixDepth; ++depth) {
    prefixes = sim::enumerate_prefixes(engine, make_world, depth, bound);
    const bool whole_tree =
        std::all_of(prefixes.begin(), prefixes.end(), [&](const auto& p) { return p.size() < depth; });
    if (prefixes.size() >= target || whole_tree) break;
  }
  std::vector<WorkUnit> units;
  for (auto& p : prefixes) units.push_back({std::move(p), 0, 0});
  return units;
}

/// Whether unsplit DPOR exhausts the scenario's tree within kDporWholeTreeExecutions executions (sweep.h). Not
/// interruptible: a plan must not depend on when a signal arrived (resume re-plans and compares digests).
bool dpor_tree_is_small(const sim::EngineOptions& options, const sim::WorldFactory& make_world,
                        const SweepConfig& config) {
  sim::Engine engine(sim::EngineOptions{.max_steps = options.max_steps, .record_footprints = true});
  const std::unique_ptr<sim::Strategy> strategy = config.spec().make(config.params());
  const sim::ExploreOptions opt{.seed = config.seed, .executions = kDporWholeTreeExecutions, .interruptible = false};
  sim::explore(engine, make_world, *strategy, opt, [](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult&) {});
  return strategy->exhausted();
}

/// DPOR units: each prefix's earlier siblings, which start asleep in its subtree (sim/strategies/dpor_units.h).
void seed_sleep_sets(std::vector<WorkUnit>& units, const sim::EngineOptions& options,
                     const sim::WorldFactory& make_world) {
  if (units.size() < 2) return;  // one unit is the whole tree
  for (WorkUnit& u : units) {
    sim::UnitSleep seeds = sim::unit_sleep(options, make_world, u.prefix);
    u.siblings = std::move(seeds.siblings);
    u.asleep = seeds.asleep;
  }
}

}  // namespace

ScenarioPlan plan_scenario(const System& system, const std::string& path, const SweepConfig& config) {
  ScenarioPlan plan;
  plan.path = path;
  try {
    plan.scenario = system.load(path);
  } catch (const support::InputError& e) {
    plan.error = e;
    return plan;
  }
  const std::unique_ptr<Compiled> compiled = plan.scenario->compile({});
  plan.notes = compiled->notes();
  const sim::WorldFactory make_world = [&] { return compiled->make_world(); };
  sim::Engine engine(sim::EngineOptions{.max_steps = plan.scenario->max_steps(config.max_steps)});
  const sim::StrategyCaps caps = config.spec().caps;
  if (caps.exhaustive) {
    const bool dpor = config.validate().partial_order;
    if (dpor && dpor_tree_is_small(engine.options(), make_world, config)) {
      plan.units = {WorkUnit{{}, 0, 0}};  // the whole tree: one unsplit DPOR, one execution per trace
    } else {
      plan.units = dfs_units(engine, make_world, config.preemption_bound, dpor ? kDporTargetUnits : kDfsTargetUnits);
      if (dpor) seed_sleep_sets(plan.units, engine.options(), make_world);
    }
    if (config.estimate_trees) plan.estimated_leaves = sim::estimate_leaves(engine, make_world, 32);
  } else {
    if (caps.calibrated) plan.pct_steps = sim::calibrate_pct_steps(engine, make_world);
    const uint64_t n = config.executions;
    const uint64_t chunk = std::max<uint64_t>(1, (n + kSampleUnits - 1) / kSampleUnits);
    for (uint64_t b = 0; b < n; b += chunk) plan.units.push_back({{}, b, std::min(n, b + chunk)});
    plan.estimated_leaves = double(n);
  }
  plan.plan_digest = plan_digest(plan.units);
  return plan;
}

bool unit_in_shard(const std::vector<ScenarioPlan>& plans, size_t p, size_t u, uint32_t index, uint32_t count) {
  uint64_t global = u;
  for (size_t i = 0; i < p; ++i) global += plans[i].units.size();
  return global % count == index;
}

namespace {

/// What a worker needs from the sweep around it while it runs a unit.
struct UnitHooks {
  std::function<bool()> out_of_time;
  std::function<bool()> checkpoint_due;
  std::function<void(nlohmann::json state, const UnitResult& so_far)> save_partial;
  SweepProgress* progress = nullptr;
};

/// Builds unit `u`'s strategy (strategy table: prefix and sleeping siblings for exhaustive strategies, k for
/// calibrated ones).
std::unique_ptr<sim::Strategy> unit_strategy(const ScenarioPlan& plan, uint64_t u, const SweepConfig& cfg) {
  sim::StrategyParams params = cfg.params();
  params.prefix = plan.units[u].prefix;
  params.prefix_siblings = plan.units[u].siblings;
  params.steps = plan.pct_steps;
  params.actors = static_cast<uint32_t>(plan.scenario->actor_names().size());
  return cfg.spec().make(params);
}

/// Adds one execution's counts and violation to `r` (its outcomes, traces and coverage go to the unit's
/// ExecutionObservers). A violation becomes r.first (unit `u`, execution `index`, `seed`) when r has none yet.
void observe_execution(const sim::ExecutionResult& res, uint64_t u, uint64_t index, uint64_t seed, UnitResult& r) {
  ++r.executions;
  r.steps += res.steps.size();
  if (res.order_blocked) {
    ++r.order_blocked;
    if (r.first_order_block.empty()) r.first_order_block = res.order_blocked->message;
  }
  if (res.violation) {
    ++r.violating;
    ++r.by_invariant[res.violation->invariant];
    if (!r.first)
      r.first = FirstViolation{u, index, seed, res.schedule, res.violation->invariant, res.violation->message};
  }
}

/// Runs unit `u` of `plan` to its end (or until the time budget), from `resume` when given, through the one
/// run loop (sim::explore).
UnitResult run_unit(const ScenarioPlan& plan, uint64_t u, const SweepConfig& cfg, const PausedUnit* resume,
                    const UnitHooks& hooks) {
  const Subject& sc = *plan.scenario;
  const WorkUnit& unit = plan.units[u];
  const sim::StrategyCaps caps = cfg.spec().caps;
  const bool tree = caps.exhaustive;  // else a range of execution indices
  // Earlier units cover every schedule under an asleep prefix (sim/strategies/dpor_units.h): done at once.
  if (unit.asleep) return UnitResult{};
  const std::unique_ptr<Compiled> compiled = sc.compile({});  // per unit: workers share nothing mutable
  const sim::WorldFactory make_world = [&] { return compiled->make_world(); };
  const uint64_t max_steps = sc.max_steps(cfg.max_steps);
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = tree});
  ExecutionObservers observers(sc.tally(), make_world,
                               {.traces = tree, .recheck = cfg.check_determinism, .max_steps = max_steps});
  std::unique_ptr<sim::Strategy> strategy = unit_strategy(plan, u, cfg);

  UnitResult r;
  uint64_t next = unit.begin;  // sampling: the next global execution index
  if (resume) {
    r = resume->result;
    try {
      if (tree)
        strategy->restore(resume->state.at("strategy"));
      else
        next = resume->state.at("next").get<uint64_t>();
    } catch (const std::exception& e) {
      throw SweepInputError(
          fmt::format("--resume: {}: not a saved position of unit {} of {}: {}", resume->at, u, plan.path, e.what()));
    }
  }
  r.complete = true;
  const auto state = [&] {
    return tree ? nlohmann::json{{"strategy", strategy->save()}} : nlohmann::json{{"next", next}};
  };
  // Brings `r` up to date (the outcomes, the traces and the coverage) before it is saved or returned.
  const uint64_t rechecked_before = r.rechecked, divergent_before = r.divergent;  // a resumed unit's
  const auto flush = [&] {
    observers.drain(r.outcomes, r.barrier_hits, r.counters, r.pairs, r.faults);
    r.traces.merge(observers.traces());
    r.rechecked = rechecked_before + observers.rechecked();
    r.divergent = divergent_before + observers.divergent();
    if (const auto& d = observers.first_divergence(); d && !r.first_divergence)
      r.first_divergence = UnitDivergence{u, d->index, caps.seeded ? d->seed : 0, d->where.to_string()};
  };
  sim::ExploreOptions opt{.seed = cfg.seed};
  // A tree unit counts its executions from 0 (resumed: from those already run) up to the per-unit cap;
  // a sampling unit runs its index range.
  opt.first_index = tree ? r.executions : next;
  opt.executions = !tree            ? unit.end - std::min(next, unit.end)
                   : cfg.executions ? cfg.executions - std::min(cfg.executions, r.executions)
                                    : UINT64_MAX;
  const uint64_t abandoned_before = r.abandoned;  // a resumed unit's, from its checkpoint
  opt.pause = [&](const sim::ExploreSummary& so_far) {
    if (hooks.out_of_time && hooks.out_of_time()) return true;
    // A unit whose search cannot be restored exactly (state caching) is saved only when it is done.
    if (hooks.checkpoint_due && strategy->resumes_exactly() && hooks.checkpoint_due()) {
      flush();
      r.abandoned = abandoned_before + so_far.abandoned;
      hooks.save_partial(state(), r);
    }
    return false;
  };
  const sim::ExploreSummary sum =
      sim::explore(engine, make_world, *strategy, opt,
                   [&](uint64_t index, uint64_t seed, sim::World& w, const sim::ExecutionResult& res) {
                     observers.observe(index, seed, w, res);
                     observe_execution(res, u, index, caps.seeded ? seed : 0, r);
                     if (hooks.progress) {
                       hooks.progress->executions.fetch_add(1, std::memory_order_relaxed);
                       if (res.violation) hooks.progress->violating.fetch_add(1, std::memory_order_relaxed);
                     }
                     ++next;
                   });
  flush();
  r.abandoned = abandoned_before + sum.abandoned;
  if (sum.paused || sum.interrupted) {
    r.complete = false;
    if (hooks.save_partial && strategy->resumes_exactly()) hooks.save_partial(state(), r);
    return r;
  }
  if (tree && !strategy->exhausted()) r.exhausted = false;  // stopped by the per-unit cap
  return r;
}

/// This shard's units in global order, with the finished ones taken straight from the checkpoint into
/// res.units; fills the progress totals.
std::vector<std::pair<size_t, uint64_t>> pending_units(SweepResults& res, const ResumeState& resumed,
                                                       SweepProgress* progress) {
  const SweepConfig& config = res.config;
  std::vector<std::pair<size_t, uint64_t>> pending;
  uint64_t total_units = 0;
  double estimate = 0;
  for (size_t p = 0; p < res.plans.size(); ++p) {
    const auto& plan = res.plans[p];
    uint64_t mine = 0;
    for (uint64_t u = 0; u < plan.units.size(); ++u) {
      if (!unit_in_shard(res.plans, p, u, config.shard_index, config.shard_count)) continue;
      ++mine;
      if (auto it = resumed.done.find({p, u}); it != resumed.done.end())
        res.units[p][u] = it->second;
      else
        pending.push_back({p, u});
    }
    total_units += mine;
    if (!plan.units.empty()) estimate += plan.estimated_leaves * double(mine) / double(plan.units.size());
  }
  if (progress) {
    progress->units_total = total_units;
    progress->estimated_total = estimate;
    progress->units_done = total_units - pending.size();
    for (const auto& m : res.units)
      for (const auto& [u, r] : m) progress->executions += r.executions, progress->violating += r.violating;
  }
  return pending;
}

/// The hooks of unit `u` of plan `p`: the time budget, and checkpoint pacing and saving when `writer` is
/// given (pacing by the wall clock never changes a result).
UnitHooks unit_hooks(const SweepConfig& config, const std::function<bool()>& out_of_time, CheckpointWriter* writer,
                     SweepProgress* progress, size_t p, uint64_t u) {
  UnitHooks hooks;
  hooks.out_of_time = out_of_time;
  hooks.progress = progress;
  if (writer) {
    hooks.checkpoint_due = [&config, last = Clock::now()]() mutable {
      if (config.checkpoint_interval_seconds <= 0) return false;  // 0: at the ends of work units only
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - last).count() < config.checkpoint_interval_seconds) return false;
      last = now;
      return true;
    };
    hooks.save_partial = [writer, p, u](nlohmann::json state, const UnitResult& so_far) {
      writer->unit_partial(p, u, std::move(state), so_far);
    };
  }
  return hooks;
}

}  // namespace

SweepResults run_sweep(const System& system, const std::vector<std::string>& files, const SweepConfig& config,
                       SweepProgress* progress) {
  if (config.shard_count == 0 || config.shard_index >= config.shard_count)
    throw SweepInputError("--shard: expected K/N with 1 <= K <= N");
  try {
    config.validate();
  } catch (const campaign::ConfigError& e) {
    throw SweepInputError(e.what());
  }
  const auto t0 = Clock::now();
  SweepResults res;
  res.config = config;
  res.plans =
      parallel_map(files.size(), config.jobs, [&](size_t i) { return plan_scenario(system, files[i], config); });
  res.units.resize(files.size());

  ResumeState resumed;
  if (!config.resume_path.empty()) resumed = load_checkpoint(config.resume_path, config, res.plans);
  std::unique_ptr<CheckpointWriter> writer;
  if (!config.checkpoint_path.empty())
    writer = std::make_unique<CheckpointWriter>(config.checkpoint_path, config, res.plans, resumed);

  // This shard's units, in global order; finished ones come straight from the checkpoint.
  const std::vector<std::pair<size_t, uint64_t>> pending = pending_units(res, resumed, progress);

  std::mutex mu;  // guards res.units
  // SIGINT/SIGTERM (sim/interrupt.h) ends the sweep like a spent time budget: running units pause and are
  // checkpointed, units not started stay absent, and the report says which it was.
  const auto out_of_time = [&] {
    if (sim::interrupt_signal() != 0) return true;
    return config.time_budget_seconds &&
           std::chrono::duration<double>(Clock::now() - t0).count() >= *config.time_budget_seconds;
  };
  parallel_for(pending.size(), config.jobs, [&](size_t i) {
    // Plain variables, not a structured binding: clang 14 (the sanitize and fuzz build) cannot capture bindings in lambdas.
    const size_t p = pending[i].first;
    const uint64_t u = pending[i].second;
    if (out_of_time()) return;  // a unit never started stays absent: the report says the budget ran out
    if (progress) {
      std::lock_guard lock(progress->mu);
      progress->current = fmt::format("{} [unit {}/{}]", res.plans[p].path, u + 1, res.plans[p].units.size());
    }
    const UnitHooks hooks = unit_hooks(config, out_of_time, writer.get(), progress, p, u);
    const auto it = resumed.partial.find({p, u});
    UnitResult r = run_unit(res.plans[p], u, config, it == resumed.partial.end() ? nullptr : &it->second, hooks);
    if (writer && r.complete) writer->unit_done(p, u, r);
    if (progress && r.complete) ++progress->units_done;
    std::lock_guard lock(mu);
    res.units[p][u] = std::move(r);
  });
  res.interrupted_by = sim::interrupt_signal();
  return res;
}

std::vector<ScenarioOutcome> outcomes(const SweepResults& res) {
  std::vector<ScenarioOutcome> out;
  for (size_t p = 0; p < res.plans.size(); ++p) {
    const ScenarioPlan& plan = res.plans[p];
    if (!plan.scenario) continue;
    ScenarioOutcome o;
    o.plan = &plan;
    uint64_t in_shard = 0, finished = 0;
    for (uint64_t u = 0; u < plan.units.size(); ++u) {
      const bool mine = unit_in_shard(res.plans, p, u, res.config.shard_index, res.config.shard_count);
      in_shard += mine;
      auto it = res.units[p].find(u);
      if (it == res.units[p].end()) continue;
      combine(o.result, it->second);
      ++o.units_in_report;
      finished += it->second.complete;
    }
    const bool budget_cut = finished < in_shard;
    const bool partial_view = in_shard < plan.units.size();  // a shard: the other units are elsewhere
    if (budget_cut)
      o.unmet.push_back(
          fmt::format("{}: {} of {} work units finished; the verdict covers only the executions that "
                      "ran (continue with --resume)",
                      res.interrupted_by
                          ? fmt::format("interrupted ({}): not exhausted", sim::signal_name(res.interrupted_by))
                          : std::string("the time budget ran out"),
                      finished, in_shard));
    if (const auto& d = o.result.first_divergence) {
      // Nondeterminism voids every other count of the scenario; it is said first, and decides the scenario
      // even in a shard's partial view.
      std::string where = d->where;
      for (size_t at; (at = where.find("\n  ")) != std::string::npos;) where.replace(at, 3, "; ");
      o.unmet.insert(o.unmet.begin(),
                     fmt::format("nondeterminism: {} of {} ran differently the second time, from the recorded "
                                 "schedule; the first: execution #{} of unit {}{}: {}",
                                 o.result.divergent, support::count_of(o.result.rechecked, "execution"), d->execution,
                                 d->unit,
                                 res.config.spec().caps.seeded ? fmt::format(" (execution seed {})", d->seed) : "",
                                 where));
    }
    if (p < res.corpus.size() && !res.corpus[p].empty()) o.corpus = &res.corpus[p];
    if (!partial_view && o.result.executions > 0 && o.result.order_blocked == o.result.executions)
      o.unmet.push_back("no execution satisfies `order`: " + o.result.first_order_block);
    if (!partial_view) {
      RunReport rep;
      rep.summary.executions = o.result.executions;
      rep.summary.steps = o.result.steps;
      rep.summary.violating_executions = o.result.violating;
      rep.summary.violations_by_invariant = o.result.by_invariant;
      rep.outcomes = o.result.outcomes;
      rep.counters = o.result.counters;
      for (const std::string& b : plan.scenario->barriers())
        if (o.result.barrier_hits.count(b)) rep.reached.push_back(b);
      if (o.corpus)
        count_corpus(*o.corpus, *plan.scenario, rep);  // a stored violation that still breaks counts as found
      plan.scenario->judge(rep);
      for (auto& line : rep.unmet) o.unmet.push_back(std::move(line));
    }
    if (!partial_view || budget_cut || o.result.divergent) o.met = o.unmet.empty();  // else undecided until merged
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace allocsim::campaign

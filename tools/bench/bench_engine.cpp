// Engine and backend throughput, as ratios within one run (tools/bench/README.md).
//
// 1. Baseline: a pair of raw Boost.Context switches (into a fiber and back), the least a scheduling
//    point can cost.
// 2. Engine overhead per scheduling point: a no-op world whose actors only hit points, under `random`.
//    Reported as a multiple of the baseline pair.
// 3. Backend + every invariant: executions/s and steps/s of `run` on scenario files, and the share of
//    steps that are barrier steps; then ns per step and heap allocations per execution and per step, counted
//    after a warm-up (alloc_counter.h: this binary replaces the global operator new).
//
// Usage: allocsim_bench [SCENARIO...]   (defaults: the ALLOC-004 and ALLOC-005 scenarios)
// Time (this thread's CPU time) is measured here and only here; it never feeds a decision in the simulator.
#include <algorithm>
#include <boost/context/fiber.hpp>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "backend/scenario/invariant_names.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "tools/bench/alloc_counter.h"
#include "tools/bench/cpu_clock.h"

using namespace allocsim;

namespace {

using bench::thread_cpu_seconds;  // tools/bench/cpu_clock.h: every number below uses this clock

double baseline_switch_pair_ns() {
  namespace ctx = boost::context;
  const long n = 1'000'000;
  long counter = 0;
  ctx::fiber f{[&counter](ctx::fiber&& main) {
    for (;;) {
      ++counter;
      main = std::move(main).resume();
    }
    return std::move(main);
  }};
  const double t0 = thread_cpu_seconds();
  for (long i = 0; i < n; ++i) f = std::move(f).resume();
  const double s = thread_cpu_seconds() - t0;
  if (counter != n) std::abort();
  return s * 1e9 / double(n);
}

struct NoopWorld : sim::World {
  int actors, points;
  NoopWorld(int a, int p) : actors(a), points(p) {}
  size_t actor_count() const override { return size_t(actors); }
  std::string_view actor_name(sim::ActorId) const override { return "a"; }
  void run_actor(sim::ActorId, sim::ActorContext& ctx) override {
    for (int i = 0; i < points; ++i) ctx.point(sim::PointKind::Call, "noop", {});
  }
  std::optional<sim::Violation> check_step(uint64_t, sim::ActorId) override { return std::nullopt; }
  std::optional<sim::Violation> check_quiescent() override { return std::nullopt; }
};

// Executions run before anything is counted: stacks pooled, vectors grown to their steady size.
constexpr uint64_t kWarmup = 2000;

struct EngineCost {
  double point_ns = 0;
  double allocations_per_execution = 0;
};

// The engine's figures are the least of kRounds rounds, each a baseline then 4000 executions: on a loaded
// machine a round is slowed by the other processes (cache, a shared core), never sped up, so the least is the
// closest to the cost itself, and baseline and engine are taken close together.
constexpr int kRounds = 9;

EngineCost engine_point_cost(double& pair_ns) {
  sim::Engine engine;
  sim::RandomStrategy random;
  const uint64_t executions = 4000;
  const int actors = 3, points = 30;
  const auto make = [&] { return std::make_unique<NoopWorld>(actors, points); };
  sim::explore(engine, make, random, sim::ExploreOptions{.seed = 1, .executions = kWarmup});
  EngineCost best{1e30, 0};
  pair_ns = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    pair_ns = std::min(pair_ns, baseline_switch_pair_ns());
    const bench::AllocCounts a0 = bench::alloc_counts();
    const double t0 = thread_cpu_seconds();
    auto sum = sim::explore(engine, make, random,
                            sim::ExploreOptions{.seed = 1, .executions = executions, .first_index = kWarmup});
    const double s = thread_cpu_seconds() - t0;
    const bench::AllocCounts a = bench::alloc_counts() - a0;
    best.point_ns = std::min(best.point_ns, s * 1e9 / double(sum.steps));
    best.allocations_per_execution = double(a.allocations) / double(sum.executions);
  }
  return best;
}

/// `run` (random, every invariant on) over kWarmup + `measured` executions; everything is counted over the
/// last `measured` only, from the execution hook (the same point of every execution).
struct RunWindow {
  campaign::RunReport report;
  uint64_t executions = 0, steps = 0;
  double cpu_s = 0;
  bench::AllocCounts allocs;
};

RunWindow run_measured(const harness::Scenario& sc, uint64_t measured) {
  campaign::ExploreConfig cfg;
  cfg.executions = kWarmup + measured;
  RunWindow w;
  double t0 = 0;
  bench::AllocCounts a0;
  campaign::RunHooks hooks;
  hooks.on_execution = [&](uint64_t index, const sim::World&, const sim::ExecutionResult& res) {
    if (index + 1 == kWarmup) {
      a0 = bench::alloc_counts();
      t0 = thread_cpu_seconds();
    } else if (index >= kWarmup) {
      ++w.executions;
      w.steps += res.steps.size();
      if (index + 1 == cfg.executions) {
        w.cpu_s = thread_cpu_seconds() - t0;
        w.allocs = bench::alloc_counts() - a0;
      }
    }
  };
  w.report = campaign::run(*harness::subject_of(sc), cfg, hooks);
  return w;
}

void scenario_throughput(const std::string& file) {
  harness::Scenario sc = harness::load_scenario(file);
  const RunWindow w = run_measured(sc, 20000);
  const double s = w.cpu_s;
  // Count barrier steps over a replayed sample (the runner reports steps, not kinds).
  auto compiled = harness::compile(sc, {});
  sim::Engine engine;
  sim::RandomStrategy random;
  uint64_t steps = 0, barrier_steps = 0;
  sim::explore(
      engine, [&] { return std::make_unique<harness::BackendWorld>(*compiled); }, random,
      sim::ExploreOptions{.seed = 0, .executions = 2000},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& res) {
        steps += res.steps.size();
        for (const auto& st : res.steps) barrier_steps += st.kind == sim::PointKind::Barrier;
      });
  const double barrier_share = steps ? double(barrier_steps) / double(steps) : 0;
  const double execs = double(w.executions), wsteps = double(w.steps);
  std::printf("%-40s %8.0f executions/s %10.0f steps/s %10.0f barrier steps/s  (%.1f steps/execution, %s)\n",
              sc.name.c_str(), execs / s, wsteps / s, wsteps / s * barrier_share, wsteps / execs,
              w.report.met ? "expectation met" : "EXPECTATION NOT MET");
  std::printf("%-40s %8.0f ns/step %11.1f allocations/execution %7.2f allocations/step %9.0f bytes/execution\n", "",
              s * 1e9 / wsteps, double(w.allocs.allocations) / execs, double(w.allocs.allocations) / wsteps,
              double(w.allocs.bytes) / execs);
}

/// One invariant's cost: CPU per execution of `run` with the invariants the file checks against those less `name`,
/// alternating on and off for kRounds rounds (the least of each), and the allocations per execution with it on.
/// For ops-atomic (docs/DESIGN.md §5, "Op atomicity") the op-level executions are computed once, before the first
/// round; for write-advances-version ("Versions advance") the object histories stay on for no-lost-update either
/// way, so the difference is its counters' check alone.
void oracle_cost(const std::string& name, const std::string& file) {
  harness::Scenario on = harness::load_scenario(file);
  // Off is the file's own choice of invariants less `name`: an invariant the file leaves out stays out, else
  // switching it on could end executions early and measure that instead.
  std::vector<std::string> chosen = on.invariants;
  if (chosen.empty())
    for (const char* n : harness::invariant_names()) chosen.emplace_back(n);
  if (std::find(chosen.begin(), chosen.end(), name) == chosen.end())
    throw harness::ScenarioError(
        support::InputError::about_file(file, "its invariants leave out " + name + ", so there is nothing to measure"));
  harness::Scenario off = on;
  off.invariants.clear();
  for (const std::string& n : chosen)
    if (n != name) off.invariants.push_back(n);
  double best_on = 1e30, best_off = 1e30, allocs_on = 0;
  for (int round = 0; round < kRounds; ++round) {
    const RunWindow a = run_measured(on, 20000), b = run_measured(off, 20000);
    best_on = std::min(best_on, a.cpu_s / double(a.executions));
    best_off = std::min(best_off, b.cpu_s / double(b.executions));
    allocs_on = double(a.allocs.allocations) / double(a.executions);
  }
  std::printf("%-40s %s on %7.2f us/execution, off %7.2f us/execution: %.3fx; %.2f allocations/execution on\n",
              on.name.c_str(), name.c_str(), best_on * 1e6, best_off * 1e6, best_on / best_off, allocs_on);
}

constexpr const char* kUsage =
    "usage: allocsim_bench [SCENARIO...]\n"
    "       allocsim_bench --oracle NAME SCENARIO   (one invariant's cost; --ops-atomic SCENARIO: NAME ops-atomic)\n";

int run_bench(int argc, char** argv) {
  const std::string first = argc > 1 ? argv[1] : "";
  if (first == "--ops-atomic" || first == "--oracle") {
    const bool named = first == "--oracle";
    if (argc != (named ? 4 : 3)) {
      std::fprintf(stderr, "allocsim_bench: %s: expected %s\n%s", first.c_str(),
                   named ? "an invariant's name and a scenario file" : "a scenario file", kUsage);
      return 2;
    }
    const std::string name = named ? argv[2] : "ops-atomic";
    if (!harness::is_invariant(name)) {
      std::fprintf(stderr, "allocsim_bench: --oracle: no invariant named '%s' (allocsim list invariants)\n",
                   name.c_str());
      return 2;
    }
    oracle_cost(name, argv[named ? 3 : 2]);
    return 0;
  }
  if (first == "-h" || first == "--help") {
    std::printf("%s", kUsage);
    return 0;
  }
  if (first.starts_with("-")) {
    std::fprintf(stderr, "allocsim_bench: unknown option %s\n%s", first.c_str(), kUsage);
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) files = {"scenarios/alloc-004-one-plan-two-claimants.json", "scenarios/alloc-005-last-out.json"};

  std::printf("(rates and times per second of this thread's CPU time, not wall-clock time)\n");
  double pair = 0;
  const EngineCost engine = engine_point_cost(pair);
  const double point = engine.point_ns;
  std::printf("baseline: two Boost.Context switches            %6.1f ns\n", pair);
  std::printf("engine: one scheduling point, no-op world        %6.1f ns  = %.2fx the two switches (target <= 3x)\n",
              point, point / pair);
  std::printf("engine: heap allocations per execution, no-op world (3 actors x 30 points)  %.2f  (the world)\n",
              engine.allocations_per_execution);
  std::printf("(baseline and engine: the least of %d rounds, 1M switch pairs and 4000 executions each)\n", kRounds);
  std::printf(
      "(each scenario: %llu warm-up executions of `run`, then 20000 measured: rates, ns/step and "
      "allocations over those)\n",
      static_cast<unsigned long long>(kWarmup));
  for (const auto& f : files) scenario_throughput(f);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_bench(argc, argv);
  } catch (const harness::ScenarioError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "allocsim_bench: %s\n", e.what());
    return 2;
  }
}

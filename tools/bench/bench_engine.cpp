// Engine and backend throughput, as ratios within one run (tools/bench/README.md).
//
// 1. Baseline: a pair of raw Boost.Context switches (into a fiber and back), the least a scheduling
//    point can cost.
// 2. Engine overhead per scheduling point: a no-op world whose actors only hit points, under `random`.
//    Reported as a multiple of the baseline pair.
// 3. Backend + every invariant: executions/s and steps/s of `run` on scenario files, and the share of
//    steps that are barrier steps.
//
// Usage: allocsim_bench [SCENARIO...]   (defaults: the ALLOC-004 and ALLOC-005 scenarios)
// Time (this thread's CPU time) is measured here and only here; it never feeds a decision in the simulator.
#include <boost/context/fiber.hpp>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "backend/harness/runner.h"
#include "backend/harness/world.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"

using namespace allocsim;

namespace {

// CPU time of this thread: on a shared machine, wall-clock time also counts the time the thread waited for a
// core, which says more about the other processes than about allocsim. Every number below uses this clock.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

double baseline_switch_pair_ns() {
  namespace ctx = boost::context;
  const long n = 5'000'000;
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

double engine_point_ns() {
  sim::Engine engine;
  sim::RandomStrategy random;
  const uint64_t executions = 20000;
  const int actors = 3, points = 30;
  const double t0 = thread_cpu_seconds();
  auto sum = sim::explore(
      engine, [&] { return std::make_unique<NoopWorld>(actors, points); }, random,
      sim::ExploreOptions{.seed = 1, .executions = executions});
  const double s = thread_cpu_seconds() - t0;
  return s * 1e9 / double(sum.steps);
}

void scenario_throughput(const std::string& file) {
  harness::Scenario sc = harness::load_scenario(file);
  harness::RunConfig cfg;
  cfg.executions = 20000;
  const double t0 = thread_cpu_seconds();
  harness::ScenarioReport r = harness::run_scenario(sc, cfg);
  const double s = thread_cpu_seconds() - t0;
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
  std::printf("%-40s %8.0f executions/s %10.0f steps/s %10.0f barrier steps/s  (%.1f steps/execution, %s)\n",
              sc.name.c_str(), double(r.summary.executions) / s, double(r.summary.steps) / s,
              double(r.summary.steps) / s * barrier_share, double(r.summary.steps) / double(r.summary.executions),
              r.met ? "expectation met" : "EXPECTATION NOT MET");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  if (files.empty()) files = {"scenarios/alloc-004-one-plan-two-claimants.json", "scenarios/alloc-005-last-out.json"};

  std::printf("(rates and times per second of this thread's CPU time, not wall-clock time)\n");
  const double pair = baseline_switch_pair_ns();
  const double point = engine_point_ns();
  std::printf("baseline: two Boost.Context switches            %6.1f ns\n", pair);
  std::printf("engine: one scheduling point, no-op world        %6.1f ns  = %.2fx the two switches (target <= 5x)\n",
              point, point / pair);
  for (const auto& f : files) scenario_throughput(f);
  return 0;
}

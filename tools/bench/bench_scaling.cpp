// Invariant cost against the size of the state (issue 16 item 3; tools/bench/README.md): one scenario family of
// 1, 4, 16 and 64 nodes with the same two actors and ops (a MIG reserve, observe and release; an exclusive
// reserve and release), every invariant on, run under `random` with the invariants checked in full and
// incrementally (backend/harness/dirty.h).
//
// Per size and mode it prints ns per step of the whole execution and, apart, of the invariant checks alone
// (BackendWorld::check_step and check_quiescent, timed through a forwarding world), and each as a multiple of
// the 1-node figure (target: the 64-node incremental check at most 1.5x the 1-node one). The backend's own
// inventory and plan read every node, so the whole step grows with the nodes whatever the checks do.
// Both modes must give the same fingerprints; the bench exits 1 if they do not.
//
// Usage: allocsim_bench_scaling [EXECUTIONS=3000]
// Time (this thread's CPU time) is measured here and only here; it never feeds a decision in the simulator.
#include <fmt/format.h>

#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "backend/harness/dirty.h"
#include "backend/harness/scenario.h"
#include "backend/harness/world.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/random.h"
#include "tools/bench/cpu_clock.h"

using namespace allocsim;

namespace {

using bench::thread_cpu_seconds;  // tools/bench/cpu_clock.h: every number below uses this clock

/// The family's member with `nodes` nodes: identical 2-card MIG-capable A100 nodes n1..nN, and the same actors.
std::string scenario_text(int nodes) {
  std::string list;
  for (int i = 1; i <= nodes; ++i)
    list += fmt::format(
        R"({}{{ "name": "n{}", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
            "labels": {{ "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2",
                        "nvidia.com/mig.capable": "true" }} }})",
        i == 1 ? "" : ",\n", i);
  return fmt::format(R"({{
  "schema": "allocsim/scenario/v1", "name": "scaling-{}-nodes",
  "backend": {{ "authority": "managed-mig", "mig_apply_seconds": 0 }},
  "nodes": [ {} ],
  "actors": [
    {{ "name": "flowA", "script": [
        {{ "op": "reserve", "requests": [ {{ "workload": "wa", "devices": 1, "sharing": "isolated_mig",
                                           "minimum_usable_memory_gib": 10 }} ] }},
        {{ "op": "observe" }},
        {{ "op": "release" }} ] }},
    {{ "name": "flowB", "script": [
        {{ "op": "reserve", "requests": [ {{ "workload": "wb", "devices": 1, "sharing": "exclusive" }} ] }},
        {{ "op": "release" }} ] }}
  ],
  "invariants": "all"
}})",
                     nodes, list);
}

/// A BackendWorld whose checks are timed (CPU time of this thread), forwarding everything else.
class TimedWorld final : public sim::World {
 public:
  TimedWorld(const harness::CompiledScenario& c, double& check_seconds) : w_(c), check_seconds_(check_seconds) {}
  size_t actor_count() const override { return w_.actor_count(); }
  std::string_view actor_name(sim::ActorId id) const override { return w_.actor_name(id); }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override { w_.run_actor(id, ctx); }
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override {
    const double t0 = thread_cpu_seconds();
    auto v = w_.check_step(step, actor);
    check_seconds_ += thread_cpu_seconds() - t0;
    return v;
  }
  std::optional<sim::Violation> check_quiescent() override {
    const double t0 = thread_cpu_seconds();
    auto v = w_.check_quiescent();
    check_seconds_ += thread_cpu_seconds() - t0;
    return v;
  }
  const sim::OrderSpec* order() const override { return w_.order(); }

 private:
  harness::BackendWorld w_;
  double& check_seconds_;
};

struct Measured {
  double step_ns = 0, check_ns = 0, steps_per_execution = 0;
  uint64_t violating = 0;
  std::vector<uint64_t> fingerprints;
};

Measured measure(const harness::CompiledScenario& compiled, uint64_t executions) {
  sim::Engine engine;
  sim::RandomStrategy random;
  Measured m;
  double check_seconds = 0;
  const double t0 = thread_cpu_seconds();
  const sim::ExploreSummary sum = sim::explore(
      engine, [&] { return std::make_unique<TimedWorld>(compiled, check_seconds); }, random,
      sim::ExploreOptions{.seed = 1, .executions = executions},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) {
        m.fingerprints.push_back(r.fingerprint());
      });
  const double total = thread_cpu_seconds() - t0;
  m.step_ns = total * 1e9 / double(sum.steps);
  m.check_ns = check_seconds * 1e9 / double(sum.steps);
  m.steps_per_execution = double(sum.steps) / double(sum.executions);
  m.violating = sum.violating_executions;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t executions = argc > 1 ? std::stoull(argv[1]) : 3000;
  std::printf("(ns per step of this thread's CPU time; %llu random executions per size and mode)\n",
              static_cast<unsigned long long>(executions));
  std::printf("%6s %10s | %12s %12s | %12s %12s | %10s %10s\n", "nodes", "steps/exec", "step full", "step incr",
              "check full", "check incr", "x1 full", "x1 incr");
  double base_full = 0, base_incr = 0;
  bool same = true;
  for (const int nodes : {1, 4, 16, 64}) {
    const harness::Scenario sc = harness::parse_scenario(scenario_text(nodes), fmt::format("scaling-{}.json", nodes));
    const auto compiled = harness::compile(sc, {});
    harness::set_check_mode(harness::CheckMode::Full);
    const Measured full = measure(*compiled, executions);
    harness::set_check_mode(harness::CheckMode::Incremental);
    const Measured incr = measure(*compiled, executions);
    same &= full.fingerprints == incr.fingerprints;
    if (nodes == 1) base_full = full.check_ns, base_incr = incr.check_ns;
    std::printf("%6d %10.1f | %9.0f ns %9.0f ns | %9.0f ns %9.0f ns | %9.2fx %9.2fx%s\n", nodes,
                full.steps_per_execution, full.step_ns, incr.step_ns, full.check_ns, incr.check_ns,
                full.check_ns / base_full, incr.check_ns / base_incr,
                full.violating + incr.violating ? "  (violations!)" : "");
  }
  std::printf(
      "x1: the invariant checks' ns per step as a multiple of the 1-node figure (target: 64-node incremental "
      "<= 1.5x)\n");
  std::printf("fingerprints, full vs incremental: %s\n", same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}

// Invariant cost against the size of the state (docs/DESIGN.md §5, "Incremental checking"; tools/bench/README.md): one
// scenario family of 1, 4, 16 and 64 nodes with the same two actors and ops (a MIG reserve, observe and release; an
// exclusive reserve and release), every invariant on, run under `random` with the invariants checked in full and
// incrementally (backend/world/dirty.h).
//
// Per size and mode it prints ns per step of the whole execution (a pass with no clock read inside it) and,
// of the invariant checks alone (BackendWorld::check_step and check_quiescent: the difference to a pass
// whose worlds skip them), and each as a multiple of the 1-node figure (the target: the whole step at 64
// nodes at most 1.5x the 1-node one). The backend's own
// inventory and plan read every node, so the whole step grows with the nodes whatever the checks do.
// Both modes must give the same fingerprints; the bench exits 1 if they do not.
//
// Usage: allocsim_bench_scaling [EXECUTIONS=3000] [ROUNDS=3]   (each round runs every size and mode once; the
// fastest pass of each is kept)
// Time (this thread's CPU time) is measured here and only here; it never feeds a decision in the simulator.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/world/dirty.h"
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

/// A BackendWorld that skips its invariant checks and does the rest of check_step (end_step_unchecked). No
/// scenario of the family violates anything, and a random schedule does not depend on the checks, so it runs
/// the same executions (Cell::clean() compares the fingerprints).
class UncheckedWorld final : public sim::World {
 public:
  explicit UncheckedWorld(const harness::CompiledScenario& c) : w_(c) {}
  size_t actor_count() const override { return w_.actor_count(); }
  std::string_view actor_name(sim::ActorId id) const override { return w_.actor_name(id); }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override { w_.run_actor(id, ctx); }
  std::optional<sim::Violation> check_step(uint64_t, sim::ActorId actor) override {
    w_.end_step_unchecked(actor);
    return std::nullopt;
  }
  std::optional<sim::Violation> check_quiescent() override { return std::nullopt; }
  const sim::OrderSpec* order() const override { return w_.order(); }

 private:
  harness::BackendWorld w_;
};

struct Measured {
  double steps_per_execution = 0;
  uint64_t violating = 0;
  std::vector<uint64_t> fingerprints;
};

/// One pass of `executions` random executions over the worlds `make` builds: its steps and CPU seconds.
template <class Make>
std::pair<uint64_t, double> pass(Make make, uint64_t executions, Measured& m, bool record) {
  sim::Engine engine;
  sim::RandomStrategy random;
  const double t0 = thread_cpu_seconds();
  const sim::ExploreSummary sum =
      sim::explore(engine, make, random, sim::ExploreOptions{.seed = 1, .executions = executions},
                   [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) {
                     if (record) m.fingerprints.push_back(r.fingerprint());
                   });
  const double seconds = thread_cpu_seconds() - t0;
  m.steps_per_execution = double(sum.steps) / double(sum.executions);
  m.violating += sum.violating_executions;
  return {sum.steps, seconds};
}

/// One size and mode across the rounds: the fastest pass of each kind so far, and what the first pass saw.
struct Cell {
  Measured checked, unchecked;
  double seconds = 0, bare_seconds = 0;
  uint64_t steps = 0, bare_steps = 0;
  int passes = 0;

  /// One checked and one unchecked pass (the checks' share is the difference: both passes are timed whole,
  /// since this thread's CPU clock is read by a system call, which timed around each check would cost more
  /// than the check).
  void run(const harness::CompiledScenario& compiled, uint64_t executions) {
    const bool first = passes++ == 0;
    const auto [s, t] =
        pass([&] { return std::make_unique<harness::BackendWorld>(compiled); }, executions, checked, first);
    const auto [bs, bt] =
        pass([&] { return std::make_unique<UncheckedWorld>(compiled); }, executions, unchecked, first);
    if (first || t < seconds) seconds = t;
    if (first || bt < bare_seconds) bare_seconds = bt;
    steps = s, bare_steps = bs;  // the same executions every time (seed 1)
  }
  double step_ns() const { return seconds * 1e9 / double(steps); }
  double check_ns() const { return step_ns() - bare_seconds * 1e9 / double(bare_steps); }
  bool clean() const { return checked.violating == 0 && unchecked.fingerprints == checked.fingerprints; }
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t executions = argc > 1 ? std::stoull(argv[1]) : 3000;
  const int repeats = argc > 2 ? std::max(1, std::stoi(argv[2])) : 3;
  std::printf(
      "(ns per step of this thread's CPU time; %llu random executions per size and mode, the fastest of %d "
      "rounds)\n",
      static_cast<unsigned long long>(executions), repeats);
  std::printf("%6s %10s | %12s %12s | %12s %12s | %10s %10s %10s\n", "nodes", "steps/exec", "step full", "step incr",
              "check full", "check incr", "x1 step", "x1 full", "x1 incr");
  // Every round runs every size in both modes, and each cell keeps its fastest pass: this VM's speed drifts
  // over seconds, so sizes measured one after the other would each meet another speed; within a round they
  // meet about the same, and the fastest of a few rounds is the least disturbed.
  const int sizes[] = {1, 4, 16, 64};
  std::vector<harness::Scenario> scenarios;
  std::vector<std::unique_ptr<harness::CompiledScenario>> compiled;
  for (const int nodes : sizes)
    scenarios.push_back(harness::parse_scenario(scenario_text(nodes), fmt::format("scaling-{}.json", nodes)));
  for (const auto& sc : scenarios) compiled.push_back(harness::compile(sc, {}));
  std::vector<Cell> full(std::size(sizes)), incr(std::size(sizes));
  for (int round = 0; round < repeats; ++round)
    for (size_t i = 0; i < std::size(sizes); ++i) {
      harness::set_check_mode(harness::CheckMode::Full);
      full[i].run(*compiled[i], executions);
      harness::set_check_mode(harness::CheckMode::Incremental);
      incr[i].run(*compiled[i], executions);
    }
  bool same = true;
  for (size_t i = 0; i < std::size(sizes); ++i) {
    same &= full[i].checked.fingerprints == incr[i].checked.fingerprints;
    std::printf("%6d %10.1f | %9.0f ns %9.0f ns | %9.0f ns %9.0f ns | %9.2fx %9.2fx %9.2fx%s\n", sizes[i],
                full[i].checked.steps_per_execution, full[i].step_ns(), incr[i].step_ns(), full[i].check_ns(),
                incr[i].check_ns(), incr[i].step_ns() / incr[0].step_ns(), full[i].check_ns() / full[0].check_ns(),
                incr[i].check_ns() / incr[0].check_ns(),
                full[i].clean() && incr[i].clean() ? ""
                                                   : "  (violations, or the unchecked pass ran other executions!)");
  }
  std::printf(
      "x1 step: the whole step (incremental) as a multiple of the 1-node one (the target: <= 1.5x at 64 "
      "nodes)\nx1 full, x1 incr: the invariant checks alone, likewise\n");
  std::printf("fingerprints, full vs incremental: %s\n", same ? "identical" : "DIFFERENT");
  return same ? 0 : 1;
}

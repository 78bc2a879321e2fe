// The op-level executions of a scenario (op_level.h).
#include "backend/system/op_level.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <mutex>
#include <utility>

#include "backend/invariants/check.h"
#include "backend/invariants/invariant_table.h"
#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/strategies/dpor.h"

namespace allocsim::harness {

namespace {

/// Scenarios whose op-level results are kept (oldest first out): more than the corpus holds, so that a process
/// that compiles every scenario file more than once (a sweep, the suite's corpus tests) explores each once.
constexpr size_t kCachedScenarios = 256;

std::shared_ptr<const OpLevelResults> explore_op_level(const Scenario& sc,
                                                       const std::vector<std::string>& extra_mutants, uint64_t bound) {
  auto out = std::make_shared<OpLevelResults>();
  std::unique_ptr<CompiledScenario> c = compile_prototype(sc, extra_mutants);
  c->atomic_ops = true;
  set_invariants(*c, {});
  c->start_memo = start_memo(*c);
  sim::Engine engine(sim::EngineOptions{.max_steps = resolve_max_steps(sc, std::nullopt), .record_footprints = true});
  sim::DporStrategy dpor;
  std::string text, witness, first_finding;
  const sim::ExploreSummary sum = sim::explore(
      engine, [&] { return std::make_unique<BackendWorld>(*c); }, dpor,
      sim::ExploreOptions{.seed = 0, .executions = bound + 1, .stop_at_first_violation = true, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World& world, const sim::ExecutionResult& r) {
        if (r.violation) {
          if (first_finding.empty())
            first_finding = fmt::format("{}: {}", r.violation->invariant, r.violation->message);
          return;
        }
        render_result(static_cast<const BackendWorld&>(world), text);
        const uint64_t d = result_digest(text);
        const auto at = std::lower_bound(out->results.begin(), out->results.end(), d,
                                         [](const OpLevelResults::Result& x, uint64_t v) { return x.digest < v; });
        if (at != out->results.end() && at->digest == d) return;
        witness.clear();
        for (const sim::StepRecord& s : r.steps)
          witness += fmt::format("{}{}:{}", witness.empty() ? "" : " ", world.actor_name(s.actor), s.what);
        out->results.insert(at, OpLevelResults::Result{d, text, witness});
      });
  out->executions = sum.executions;
  // The note says what a user can do (docs/DESIGN.md §5, "Op atomicity"): the op-level set is incomplete, so any
  // verdict would be a guess.
  constexpr const char* kLeaveOut = R"(; `"invariants": {"all_except": ["ops-atomic"]}` leaves the check out)";
  if (!first_finding.empty()) {
    out->note = fmt::format("ops-atomic not judged: an op-level execution (each op's calls as one step) ended in {}{}",
                            first_finding, kLeaveOut);
    out->results.clear();
  } else if (sum.executions > bound) {
    out->note = fmt::format(
        "ops-atomic not judged: the scenario has more than {} op-level executions (its bound); fewer actors or ops "
        "bring it under{}",
        bound, kLeaveOut);
    out->results.clear();
  } else {
    out->judged = true;
  }
  return out;
}

}  // namespace

std::shared_ptr<const OpLevelResults> op_level_results(const Scenario& sc,
                                                       const std::vector<std::string>& extra_mutants, uint64_t bound) {
  // The key is the scenario as its document (every field that decides an execution), the mutants and the bound.
  std::string key = scenario_to_json(sc).dump();
  for (const std::string& m : extra_mutants) key += "\n" + m;
  key += fmt::format("\n{}", bound);
  static std::mutex mutex;
  static std::deque<std::pair<std::string, std::shared_ptr<const OpLevelResults>>> cache;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    for (const auto& [k, r] : cache)
      if (k == key) return r;
  }
  // Explored outside the lock: two threads that ask for one scenario at once both explore it, and get equal results.
  std::shared_ptr<const OpLevelResults> r = explore_op_level(sc, extra_mutants, bound);
  const std::lock_guard<std::mutex> lock(mutex);
  cache.emplace_back(std::move(key), r);
  if (cache.size() > kCachedScenarios) cache.pop_front();
  return r;
}

}  // namespace allocsim::harness

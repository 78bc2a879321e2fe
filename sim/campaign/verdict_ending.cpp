// The order-blocked check of the verdict self-check (verdict_check.h): an execution that ends order-blocked is
// judged by what an execution is judged by at its end. The engine judges two things only when an execution
// ends, not after a step: `no-deadlock` (nothing can run, someone is blocked) and the invariants checked at
// quiescence. An order-blocked execution runs out without the order, in one canonical way, and is judged then
// (docs/DESIGN.md §2). This check holds it to that: the execution's schedule is taken again in the scenario
// without its order, and every continuation of it is explored (plain DFS under the schedule as a prefix, at
// most VerdictOptions::ending_budget executions); when every one ends with the same violation judged at the
// end, that violation was already decided when the order blocked (a lock no one can release any more, state
// that quiescence must reject whatever runs next), so the execution's own verdict must name it, or ending
// "order-blocked" hid it. A subtree over the budget is not judged (counted as skipped).
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "sim/campaign/run.h"
#include "sim/campaign/verdict_check.h"
#include "sim/explorer.h"
#include "sim/schedule.h"
#include "sim/strategies/dfs.h"

namespace allocsim::campaign {

std::optional<Contradiction> check_order_blocked(const Subject& sc, const ExploreConfig& config, uint64_t index,
                                                 const sim::ExecutionResult& r, const VerdictOptions& o,
                                                 std::map<std::string, uint64_t>& run,
                                                 std::map<std::string, uint64_t>& skipped) {
  if (!r.order_blocked) return std::nullopt;
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = sc.max_steps(config.max_steps)});
  sim::DfsStrategy dfs(sim::DfsOptions{.prefix = r.schedule});
  std::optional<std::string> ends;  // the end-judged violation every continuation had so far ("" for none)
  bool same = true;
  const sim::ExploreSummary sum = sim::explore(
      engine, [&] { return std::make_unique<WithoutOrder>(compiled->make_world()); }, dfs,
      sim::ExploreOptions{.executions = o.ending_budget, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& x) {
        const bool at_end = x.violation && !x.violation_actor && x.violation->invariant != "steps-bounded";
        const std::string v = at_end ? x.violation->invariant : "";
        if (!ends) ends = v;
        same = same && *ends == v;
      });
  if (!dfs.exhausted()) {
    ++skipped[fmt::format("order-blocked: more than {} continuations without the order", o.ending_budget)];
    return std::nullopt;
  }
  ++run["order-blocked"];
  if (!same || !ends || ends->empty()) return std::nullopt;
  if (r.violation && r.violation->invariant == *ends) return std::nullopt;  // the run-out judged it
  const std::string file =
      o.out.empty() ? o.prefix + ".json" : (std::filesystem::path(o.out) / (o.prefix + ".json")).string();
  return Contradiction{
      "order-blocked",
      fmt::format("execution {} under {} ends order-blocked ({}) without {}; without the order, every continuation "
                  "of it ({}) ends with it, which is judged only at an execution's end",
                  index, config.strategy, r.order_blocked->message, *ends,
                  sum.executions == 1 ? std::string("1 execution") : fmt::format("{} executions", sum.executions)),
      config.replay_line(file, {.seed = std::nullopt, .schedule = sim::format_schedule(r.schedule, sc.actor_names())}),
      {{o.prefix + ".json", sc.to_json().dump(2) + "\n"}}};
}

}  // namespace allocsim::campaign

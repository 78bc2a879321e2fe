#include "backend/system/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "backend/system/system.h"
#include "sim/support/words.h"

namespace allocsim::harness {

namespace {

void judge(const Scenario& sc, ScenarioReport& r) {
  // The verdict is recomputed from the report, never appended to: judging a report twice (a caller that
  // re-judges after combining, say) must not list every unmet expectation twice.
  r.unmet.clear();
  const auto& e = sc.expect;
  const auto& by = r.summary.violations_by_invariant;
  if (e.pass) {
    for (const auto& [inv, n] : by)
      r.unmet.push_back(
          fmt::format("expected no violation, but {} violated {}", support::count_of(n, "execution"), inv));
  } else {
    bool found = false;
    for (const auto& [inv, n] : by) {
      bool allowed = false;
      for (const auto& want : e.violations) allowed |= want == inv;
      found |= allowed;
      if (!allowed)
        r.unmet.push_back(
            fmt::format("{} violated {}, which the scenario does not expect", support::count_of(n, "execution"), inv));
    }
    if (!found) {
      std::string names;
      for (const auto& v : e.violations) names += (names.empty() ? "" : " or ") + v;
      r.unmet.push_back(fmt::format("expected a violation of {}, but none of {} found one", names,
                                    support::count_of(r.summary.executions, "execution")));
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
          r.unmet.push_back(fmt::format("actor {}: {} ended in \"{}\" in {}, which expect.actors does not allow", actor,
                                        op, outcome, support::count_of(n, "execution")));
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
          fmt::format("barrier {} never fired (expect.reach): every one of the {} stopped "
                      "at a violation before it could fire (reach is judged only on executions "
                      "that get that far)",
                      want, support::count_of(r.summary.executions, "execution")));
    else
      r.unmet.push_back(fmt::format("barrier {} never fired in {} (expect.reach): the race window was not reached",
                                    want, support::count_of(r.summary.executions, "execution")));
  }
  judge_expect_tally(sc, tally_from_counters(r.counters), r.summary.executions, r.unmet);
  r.met = r.unmet.empty();
}

}  // namespace

void judge_report(const Scenario& sc, ScenarioReport& r) { judge(sc, r); }

ScenarioReport run_scenario(const Scenario& sc, const RunConfig& config, const RunHooks& hooks) {
  return campaign::run(*subject_of(sc), config, hooks);
}

sim::ExecutionResult replay_seed(const Scenario& sc, const RunConfig& config, uint64_t execution_seed) {
  return campaign::replay_seed(*subject_of(sc), config, execution_seed);
}

}  // namespace allocsim::harness

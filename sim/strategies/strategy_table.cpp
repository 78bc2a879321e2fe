// The rows of the strategy table (strategy_table.h). One row per strategy; the factories stay here so that no
// caller needs to know a strategy's class.
#include "sim/strategies/strategy_table.h"

#include <fmt/format.h>

#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "sim/strategies/pct.h"
#include "sim/strategies/random.h"
#include "sim/strategies/state_dfs.h"
#include "sim/support/json_reader.h"

namespace allocsim::sim {

namespace {

constexpr std::string_view kDpor = "dpor", kNone = "none", kStates = "states", kSymmetry = "symmetry";

ResolvedStrategy no_reduction(const StrategyParams&) { return {}; }

/// dfs: dpor when unbounded, none under a bound; dpor with a bound is unsound (Coons, Musuvathi & McKinley,
/// OOPSLA 2013).
ResolvedStrategy dfs_reduction(const StrategyParams& p) {
  const std::string r = !p.reduction.empty() ? p.reduction : std::string(p.preemption_bound ? kNone : kDpor);
  if (r != kDpor && r != kNone && r != kStates && r != kSymmetry) {
    // The suggestion unquoted, as every flag value's is on the command line (`--strategy dsf`: did you mean dfs?).
    const char* best = support::closest(r, {kNone.data(), kDpor.data(), kStates.data(), kSymmetry.data()});
    throw StrategyError(fmt::format("--reduction: expected {}, {}, {} or {}, got \"{}\"{}", kNone, kDpor, kStates,
                                    kSymmetry, r, best ? fmt::format(" (did you mean {}?)", best) : ""));
  }
  if ((r == kStates || r == kSymmetry) && p.preemption_bound)
    throw StrategyError("--reduction " + r +
                        " cannot be combined with --preemption-bound: the preemption count is not part of a "
                        "canonical state, so a state cached under one count would cut paths under another");
  if (r == kDpor && p.preemption_bound)
    throw StrategyError(
        "--reduction dpor cannot be combined with --preemption-bound: DPOR under a preemption bound "
        "is unsound (Coons et al., OOPSLA 2013); bounded runs use plain DFS (--reduction none)");
  return {r, r == kDpor};
}

ResolvedStrategy dpor_reduction(const StrategyParams&) { return {std::string(kDpor), true}; }

std::unique_ptr<Strategy> make_dpor(const StrategyParams& p) {
  return std::make_unique<DporStrategy>(DporOptions{.prefix = p.prefix, .prefix_siblings = p.prefix_siblings});
}

std::unique_ptr<Strategy> make_dfs(const StrategyParams& p) {
  const ResolvedStrategy r = dfs_reduction(p);
  if (r.partial_order) return make_dpor(p);
  if (r.reduction == kStates || r.reduction == kSymmetry) {
    StateDfsOptions o{.prefix = p.prefix, .symmetry = r.reduction == kSymmetry};
    if (p.state_memory) o.state_memory = p.state_memory;
    return std::make_unique<StateDfsStrategy>(std::move(o));
  }
  return std::make_unique<DfsStrategy>(DfsOptions{.preemption_bound = p.preemption_bound, .prefix = p.prefix});
}

std::unique_ptr<Strategy> make_random(const StrategyParams&) { return std::make_unique<RandomStrategy>(); }

std::unique_ptr<Strategy> make_pct(const StrategyParams& p) {
  return std::make_unique<PctStrategy>(PctOptions{.depth = p.depth, .steps = p.steps, .actors = p.actors});
}

const std::vector<StrategySpec> kStrategies = {
    {"random",
     "a uniformly random runnable actor at every choice (seeded)",
     {.seeded = true, .replays_by_seed = true},
     no_reduction,
     make_random},
    {"pct",
     "PCT (Burckhardt et al., ASPLOS 2010): random actor priorities, --depth d-1 change points",
     {.seeded = true, .takes_depth = true, .calibrated = true},
     no_reduction,
     make_pct},
    {"dfs",
     "every schedule, depth first; --reduction dpor (default: source DPOR + sleep sets), states (sleep sets + "
     "state caching), symmetry (states up to renaming interchangeable actors) or none; --preemption-bound K (plain "
     "DFS, iterative 0..K)",
     {.exhaustive = true, .takes_bound = true, .takes_reduction = true},
     dfs_reduction,
     make_dfs},
    {"dpor",
     "every schedule up to partial order: dfs with source DPOR + sleep sets (the same as dfs's default)",
     {.exhaustive = true},
     dpor_reduction,
     make_dpor},
};

}  // namespace

const std::vector<StrategySpec>& strategies() { return kStrategies; }

const StrategySpec* find_strategy(std::string_view name) {
  for (const StrategySpec& s : kStrategies)
    if (s.name == name) return &s;
  return nullptr;
}

const StrategySpec& strategy_spec(std::string_view name) {
  if (const StrategySpec* s = find_strategy(name)) return *s;
  throw StrategyError(fmt::format("--strategy: unknown strategy \"{}\" (available: {})", name, strategy_names()));
}

std::string strategy_names(std::string_view sep) {
  std::string out;
  for (const StrategySpec& s : kStrategies) out += fmt::format("{}{}", out.empty() ? "" : sep, s.name);
  return out;
}

std::string strategy_names_with(bool StrategyCaps::*has) {
  std::string out;
  for (const StrategySpec& s : kStrategies)
    if (s.caps.*has) out += fmt::format("{}{}", out.empty() ? "" : " and ", s.name);
  return out;
}

ResolvedStrategy resolve_strategy(const StrategySpec& spec, const StrategyParams& params) {
  // Each flag is named alone, with the strategy given (random when --strategy is not).
  if (!params.reduction.empty() && !spec.caps.takes_reduction)
    throw StrategyError(fmt::format("--reduction applies to --strategy {} only (--strategy {} takes no reduction)",
                                    strategy_names_with(&StrategyCaps::takes_reduction), spec.name));
  if (params.preemption_bound && !spec.caps.takes_bound)
    throw StrategyError(fmt::format("--preemption-bound applies to --strategy {} only (--strategy {} takes no bound)",
                                    strategy_names_with(&StrategyCaps::takes_bound), spec.name));
  return spec.resolve(params);
}

}  // namespace allocsim::sim

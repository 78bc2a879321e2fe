// The strategy table: every scheduling strategy by name, with a one-line description, what it can do
// (its capabilities) and how to build it. The command line's validation, `allocsim list strategies`, the run
// loop, sweep planning and the reports read this table; nothing else compares a strategy name.
//
// Adding a strategy: its own file under sim/strategies/, one row in strategy_table.cpp, and its test.
//
// Capabilities decide behaviour, never names:
// - exhaustive: explores a finite tree and stops by itself (Strategy::exhausted()); `executions` is a cap;
//   steps record footprints and distinct Mazurkiewicz traces are counted; sweeps split it into subtrees under
//   schedule prefixes and checkpoint its position with Strategy::save()/restore().
// - seeded: execution i uses execution_seed(S, i) (sim/prng.h); sweeps split it into execution index
//   ranges and checkpoint the next index.
// - replays_by_seed: `replay --seed E` (which runs the default strategy) reproduces an execution from its
//   execution seed alone; the others are replayed by schedule (`replay --schedule`).
// - takes_bound / takes_reduction / takes_depth: it reads --preemption-bound / --reduction / --depth.
// - calibrated: it needs k, the step count of one calibration execution (StrategyParams::steps).
//
// Errors: resolve() and make() throw StrategyError, whose what() names the flag at fault.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/strategies/dpor_units.h"
#include "sim/strategy.h"

namespace allocsim::sim {

/// A strategy request that cannot be honoured (unknown name, a flag it does not take, an unknown or
/// unsound reduction). what() starts with the flag, e.g. "--strategy: unknown strategy \"x\" (...)".
struct StrategyError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct StrategyCaps {
  bool exhaustive = false;
  bool seeded = false;
  bool replays_by_seed = false;
  bool takes_bound = false;
  bool takes_reduction = false;
  bool takes_depth = false;
  bool calibrated = false;
};

/// Everything a factory may read. Fields a strategy does not take are ignored (resolve() refuses them).
struct StrategyParams {
  std::optional<uint32_t> preemption_bound = {};
  std::string reduction = {};  // "" resolves to the strategy's default
  uint32_t depth = 3;          // pct's d
  uint64_t steps = 0;          // calibrated: k
  uint32_t actors = 0;         // calibrated: n
  /// exhaustive: explore only the subtree under this prefix (a sweep's work unit).
  std::vector<Choice> prefix = {};
  /// partial-order reduction: the unit's earlier siblings, asleep at the prefix nodes (dpor_units.h).
  std::vector<std::vector<SiblingStep>> prefix_siblings = {};
  /// state caching (--reduction states): the visited-state table's bound in bytes; 0: the default.
  uint64_t state_memory = 0;
};

/// A strategy with its reduction resolved (what the reports print).
struct ResolvedStrategy {
  std::string reduction;       // "" for strategies without reductions
  bool partial_order = false;  // DPOR: sweeps seed sleep sets across units and use fewer, bigger units
};

struct StrategySpec {
  std::string_view name;
  std::string_view description;
  StrategyCaps caps;
  /// Resolves the reduction (the default when params.reduction is empty). Throws StrategyError for a
  /// reduction it does not know or one that is unsound with the given bound. Only called once the
  /// capabilities have been checked (resolve_strategy).
  ResolvedStrategy (*resolve)(const StrategyParams&);
  std::unique_ptr<Strategy> (*make)(const StrategyParams&);
};

/// Every strategy, in listing order.
const std::vector<StrategySpec>& strategies();
/// The strategy called `name`, or nullptr.
const StrategySpec* find_strategy(std::string_view name);
/// The strategy called `name`. Throws StrategyError("--strategy: unknown strategy ... (available: ...)").
const StrategySpec& strategy_spec(std::string_view name);
/// The names in listing order joined with `sep` ("random, pct, dfs, dpor").
std::string strategy_names(std::string_view sep = ", ");
/// The names of the strategies whose capability `has` holds, joined with " and " (for messages).
std::string strategy_names_with(bool StrategyCaps::*has);

/// Checks `params` against `spec` (a bound or a reduction it does not take, an unknown reduction, DPOR
/// under a bound) and resolves the reduction. Throws StrategyError naming the flag.
ResolvedStrategy resolve_strategy(const StrategySpec& spec, const StrategyParams& params);

}  // namespace allocsim::sim

// ExploreConfig: what one exploration runs (strategy and its flags, seed, executions, step limit, mutants),
// shared by `run`, `replay`, `sweep` (per scenario), `shrink` and the benchmarks.
//
// Contract:
// - validate() is the one check of a config: an unknown strategy, a flag the strategy does not take, an
//   unknown reduction, DPOR under a preemption bound. It throws ConfigError, whose what() names the flag
//   ("--strategy: ...", "--reduction ...").
// - to_argv() is the one place a replay command is built; replay_line() is it shell-quoted.
// - to_json() is the config as reports and checkpoints record it (what merge and resume compare); read_json()
//   reads it back.
// Nothing here reads a clock or the environment.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/strategies/strategy_table.h"

namespace allocsim::campaign {

/// A config that cannot run; what() names the flag at fault. Exit 2.
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

/// Which execution a replay command reproduces: by execution seed (seeded strategies) or by schedule
/// string (sim/schedule.h), exactly one of them.
struct ReplayTarget {
  std::optional<uint64_t> seed;
  std::string schedule;
};

struct ExploreConfig {
  std::string strategy = "random";  // a name in the strategy table (sim/strategies/strategy_table.h)
  std::string reduction;            // --reduction; "" resolves to the strategy's default
  std::optional<uint32_t> preemption_bound;
  /// --state-memory: the visited-state table's bound in bytes, per exploring unit (--reduction states); 0: the
  /// default (sim/state_table.h).
  uint64_t state_memory = 0;
  uint32_t pct_depth = 3;  // --depth: pct's bug depth d
  uint64_t seed = 0;
  /// Sampling strategies: the number of executions. Exhaustive strategies: an upper bound (sweeps: per work
  /// unit, 0 = none).
  uint64_t executions = 1000;
  /// Steps per execution before steps-bounded fires; nullopt: the scenario's max_steps, else 10000. Set it
  /// only for an explicit --max-steps, which overrides the scenario.
  std::optional<uint64_t> max_steps;
  std::vector<std::string> mutants;  // added to the scenario's (--mutant)
  bool stop_at_first_violation = false;
  /// Run every execution a second time from its recorded schedule and compare (`--check-determinism` of run
  /// and sweep).
  bool check_determinism = false;
  /// `--order` blocks (sim/order.h), as given (JSON text), each appended to the scenario's own `order`.
  std::vector<std::string> order;

  /// The strategy table's row of `strategy`. Throws ConfigError for an unknown name.
  const sim::StrategySpec& spec() const;
  /// Checks the config (see above) and returns the resolved strategy. Throws ConfigError naming the flag.
  sim::ResolvedStrategy validate() const;
  /// The factory parameters of this config; `steps`/`actors` (calibrated strategies) and a work unit's
  /// prefix are the caller's to add.
  sim::StrategyParams params() const;
  /// `allocsim replay SCENARIO --seed E | --schedule S [--mutant M]... [--max-steps N]` as argv (without
  /// the program name). --max-steps appears only when given: without it replay reads the scenario's; so do
  /// the --order blocks.
  std::vector<std::string> to_argv(const std::string& scenario, const ReplayTarget& target) const;
  /// "allocsim " + to_argv(), every word shell-quoted where needed.
  std::string replay_line(const std::string& scenario, const ReplayTarget& target) const;
  /// {"strategy", "reduction" (resolved), "preemption_bound", "pct_depth" (null unless the strategy takes a
  /// depth), "seed", "executions", "max_steps" (null: per scenario)}, "mutants" and "order" when there are any,
  /// "state_memory" when given, "check_determinism" when on.
  /// REQUIRES: validate() passed.
  nlohmann::json to_json() const;
  /// Reads back what to_json() wrote (merge reads a shard report's "config"): every field it holds, "reduction"
  /// only for a strategy that takes one (to_json records the resolved default). Fields it does not hold keep
  /// their values. Throws nlohmann::json::exception for a missing or mistyped field; call validate() after.
  void read_json(const nlohmann::json& j);
};

/// `s` as one shell word: unchanged when it is made of safe characters, else single-quoted.
std::string shell_quote(const std::string& s);

}  // namespace allocsim::campaign

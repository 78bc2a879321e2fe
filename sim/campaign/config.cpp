#include "sim/campaign/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace allocsim::campaign {

const sim::StrategySpec& ExploreConfig::spec() const {
  try {
    return sim::strategy_spec(strategy);
  } catch (const sim::StrategyError& e) {
    throw ConfigError(e.what());
  }
}

sim::StrategyParams ExploreConfig::params() const {
  return sim::StrategyParams{.preemption_bound = preemption_bound,
                             .reduction = reduction,
                             .depth = pct_depth,
                             .state_memory = state_memory};
}

sim::ResolvedStrategy ExploreConfig::validate() const {
  const sim::StrategySpec& s = spec();
  try {
    const sim::ResolvedStrategy r = sim::resolve_strategy(s, params());
    if (state_memory && r.reduction != "states" && r.reduction != "symmetry")
      throw ConfigError("--state-memory applies to --reduction states or symmetry only");
    return r;
  } catch (const sim::StrategyError& e) {
    throw ConfigError(e.what());
  }
}

std::vector<std::string> ExploreConfig::to_argv(const std::string& scenario, const ReplayTarget& target) const {
  std::vector<std::string> argv = {"replay", scenario};
  if (target.seed)
    argv.insert(argv.end(), {"--seed", std::to_string(*target.seed)});
  else
    argv.insert(argv.end(), {"--schedule", target.schedule});
  for (const auto& m : mutants) argv.insert(argv.end(), {"--mutant", m});
  if (max_steps) argv.insert(argv.end(), {"--max-steps", std::to_string(*max_steps)});
  for (const auto& o : order) argv.insert(argv.end(), {"--order", o});
  return argv;
}

std::string ExploreConfig::replay_line(const std::string& scenario, const ReplayTarget& target) const {
  std::string line = "allocsim";
  for (const auto& word : to_argv(scenario, target)) line += " " + shell_quote(word);
  return line;
}

nlohmann::json ExploreConfig::to_json() const {
  const sim::StrategySpec& s = spec();
  nlohmann::json j;
  j["strategy"] = strategy;
  j["reduction"] = sim::resolve_strategy(s, params()).reduction;
  j["preemption_bound"] = preemption_bound ? nlohmann::json(*preemption_bound) : nlohmann::json(nullptr);
  j["pct_depth"] = s.caps.takes_depth ? nlohmann::json(pct_depth) : nlohmann::json(nullptr);
  j["seed"] = seed;
  j["executions"] = executions;
  j["max_steps"] = max_steps ? nlohmann::json(*max_steps) : nlohmann::json(nullptr);
  if (!mutants.empty()) j["mutants"] = mutants;
  if (!order.empty()) j["order"] = order;
  if (state_memory) j["state_memory"] = state_memory;    // only when given: reports without it stay as they were
  if (check_determinism) j["check_determinism"] = true;  // likewise
  return j;
}

void ExploreConfig::read_json(const nlohmann::json& c) {
  strategy = c.at("strategy").get<std::string>();
  const std::string resolved = c.at("reduction").get<std::string>();
  if (const sim::StrategySpec* s = sim::find_strategy(strategy); s && s->caps.takes_reduction) reduction = resolved;
  if (!c.at("preemption_bound").is_null()) preemption_bound = c.at("preemption_bound").get<uint32_t>();
  if (!c.at("pct_depth").is_null()) pct_depth = c.at("pct_depth").get<uint32_t>();
  seed = c.at("seed").get<uint64_t>();
  executions = c.at("executions").get<uint64_t>();
  if (!c.at("max_steps").is_null()) max_steps = c.at("max_steps").get<uint64_t>();
  if (c.contains("mutants")) mutants = c.at("mutants").get<std::vector<std::string>>();
  if (c.contains("order")) order = c.at("order").get<std::vector<std::string>>();
  if (c.contains("state_memory")) state_memory = c.at("state_memory").get<uint64_t>();
  if (c.contains("check_determinism")) check_determinism = c.at("check_determinism").get<bool>();
}

std::string shell_quote(const std::string& s) {
  const bool safe = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("/._-+=:,@").find(c) != std::string_view::npos;
  });
  if (safe) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace allocsim::campaign

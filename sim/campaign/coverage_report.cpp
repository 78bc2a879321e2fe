#include "sim/campaign/coverage_report.h"

#include <algorithm>
#include <string_view>

#include "sim/campaign/run.h"

namespace allocsim::campaign {

namespace {

using J = nlohmann::ordered_json;

template <class Reached>
J dimension(const std::vector<std::string>& universe, const Reached& reached) {
  J in = J::array(), out = J::array();
  for (const std::string& name : universe) (reached(name) ? in : out).push_back(name);
  return {{"reached", in}, {"never", out}};
}

constexpr std::string_view kArrow = " -> ", kColon = ": ";

}  // namespace

void Reach::add_outcomes(const Outcomes& o) {
  for (const auto& [actor, ops] : o)
    for (const auto& [op, outs] : ops)
      for (const auto& [out, n] : outs)
        if (n > 0) outcomes[op].insert(out);
}

void Reach::add(const RunReport& r) {
  barriers.insert(r.reached.begin(), r.reached.end());
  pairs.insert(r.pairs.begin(), r.pairs.end());
  add_outcomes(r.outcomes);
  faults.insert(r.faults.begin(), r.faults.end());
}

void Reach::add(const Reach& o) {
  barriers.insert(o.barriers.begin(), o.barriers.end());
  pairs.insert(o.pairs.begin(), o.pairs.end());
  for (const auto& [op, outs] : o.outcomes) outcomes[op].insert(outs.begin(), outs.end());
  faults.insert(o.faults.begin(), o.faults.end());
}

nlohmann::ordered_json coverage_json(const CoverageUniverse& u, const Reach& r) {
  std::vector<std::string> reached_barriers, pairs, ops, outcomes;
  for (const std::string& b : u.barriers)
    if (r.barriers.count(b)) reached_barriers.push_back(b);
  std::set<std::string> reached_pairs;
  for (const std::string& a : reached_barriers)
    for (const std::string& b : reached_barriers) {
      pairs.push_back(a + std::string(kArrow) + b);
      if (r.pairs.count({a, b})) reached_pairs.insert(pairs.back());
    }
  const auto ran = [&](const std::string& op) {
    const auto it = r.outcomes.find(op);
    return it != r.outcomes.end() &&
           std::any_of(it->second.begin(), it->second.end(), [](const std::string& o) { return o != "skipped"; });
  };
  std::set<std::string> reached_outcomes;
  for (const auto& [op, vocabulary] : u.ops) {
    ops.push_back(op);
    const auto it = r.outcomes.find(op);
    if (it == r.outcomes.end()) continue;
    for (const std::string& out : vocabulary) {
      outcomes.push_back(op + std::string(kColon) + out);
      if (it->second.count(out)) reached_outcomes.insert(outcomes.back());
    }
  }
  const auto in = [](const auto& set) { return [&set](const std::string& n) { return set.count(n) > 0; }; };
  return {{"barriers", dimension(u.barriers, in(r.barriers))},
          {"barrier_pairs", dimension(pairs, in(reached_pairs))},
          {"ops", dimension(ops, ran)},
          {"outcomes", dimension(outcomes, in(reached_outcomes))},
          {"faults", dimension(u.faults, in(r.faults))}};
}

CoverageUniverse System::coverage_universe() const { return {}; }

bool add_reached(Reach& r, const std::string& dimension, const std::string& name) {
  if (dimension == "barriers") return r.barriers.insert(name), true;
  if (dimension == "faults") return r.faults.insert(name), true;
  if (dimension == "ops") return true;  // implied by its outcomes
  const bool pair = dimension == "barrier_pairs";
  if (!pair && dimension != "outcomes") return false;
  const std::string_view sep = pair ? kArrow : kColon;
  const size_t at = name.find(sep);
  if (at == std::string::npos || at == 0 || at + sep.size() >= name.size()) return false;
  const std::string a = name.substr(0, at), b = name.substr(at + sep.size());
  if (pair)
    r.pairs.emplace(a, b);
  else
    r.outcomes[a].insert(b);
  return true;
}

}  // namespace allocsim::campaign

#include "sim/strategies/pct.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/strategies/dfs.h"

namespace allocsim::sim {

PctStrategy::PctStrategy(PctOptions options) : opt_(options) {
  if (opt_.depth == 0 || opt_.steps == 0 || opt_.actors == 0)
    throw std::invalid_argument(fmt::format("pct: depth ({}), steps ({}) and actors ({}) must be at least 1",
                                            opt_.depth, opt_.steps, opt_.actors));
}

void PctStrategy::begin_execution(uint64_t seed) {
  prng_ = Prng(seed);
  step_ = 0;
  // Initial priorities: a uniform permutation of d..d+n-1 (Fisher-Yates).
  priority_.resize(opt_.actors);
  for (uint32_t i = 0; i < opt_.actors; ++i) priority_[i] = opt_.depth + i;
  for (uint32_t i = opt_.actors; i > 1; --i) std::swap(priority_[i - 1], priority_[prng_.below(i)]);
  // d-1 distinct change points among 1..k (fewer when k < d-1).
  change_points_.clear();
  const uint64_t want = std::min<uint64_t>(opt_.depth - 1, opt_.steps);
  while (change_points_.size() < want) {
    const uint64_t s = 1 + prng_.below(opt_.steps);
    if (std::find(change_points_.begin(), change_points_.end(), s) == change_points_.end()) change_points_.push_back(s);
  }
}

ActorId PctStrategy::choose(std::span<const Candidate> runnable, ActorId) {
  ++step_;
  const auto top = [&] {
    const Candidate* best = &runnable[0];
    for (const Candidate& c : runnable) {
      if (c.actor >= priority_.size())
        throw std::logic_error(fmt::format("pct: actor {} beyond the {} actors configured", c.actor, opt_.actors));
      if (priority_[c.actor] > priority_[best->actor]) best = &c;
    }
    return best->actor;
  };
  for (size_t i = 0; i < change_points_.size(); ++i)
    if (change_points_[i] == step_) priority_[top()] = i + 1;  // label i+1 < d <= every initial priority
  return top();
}

double pct_hit_probability(uint64_t actors, uint64_t steps, uint32_t depth) {
  if (actors == 0 || steps == 0 || depth == 0) return 0;
  return 1.0 / (double(actors) * std::pow(double(steps), double(depth - 1)));
}

double pct_miss_probability(double p, uint64_t executions) {
  if (p >= 1) return executions ? 0 : 1;
  return std::exp(double(executions) * std::log1p(-p));  // (1-p)^N without losing small p
}

uint64_t calibrate_pct_steps(Engine& engine, const WorldFactory& make_world) {
  DfsStrategy first;
  first.begin_execution(0);
  auto world = make_world();
  const ExecutionResult r = engine.run(*world, first);
  return std::max<uint64_t>(1, r.steps.size());
}

}  // namespace allocsim::sim

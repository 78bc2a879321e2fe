#include "sim/campaign/observers.h"

#include <utility>

#include "sim/determinism.h"
#include "sim/order.h"
#include "sim/trace_equivalence.h"

namespace allocsim::campaign {

ExecutionObservers::ExecutionObservers(std::unique_ptr<Tally> tally, const sim::WorldFactory& make_world,
                                       Options options)
    : make_world_(make_world), options_(options), tally_(std::move(tally)) {
  if (options_.recheck)
    recheck_engine_ = std::make_unique<sim::Engine>(sim::EngineOptions{.max_steps = options_.max_steps});
}

void ExecutionObservers::note_order(const sim::World& world, const sim::ExecutionResult& result) {
  const sim::OrderSpec* o = world.order();
  if (o == nullptr || o->empty()) return;
  all_quiescent_ = all_quiescent_ && result.quiescent;
  y_taken_.resize(o->constraints.size());
  for (size_t c = 0; c < o->constraints.size(); ++c) {
    const sim::StepLabel& y = o->constraints[c].after;
    uint32_t seen = 0;
    for (size_t k = 0; k < result.steps.size() && !y_taken_[c]; ++k)
      if (result.steps[k].actor == y.actor && result.steps[k].what == y.point && ++seen == y.n) y_taken_[c] = true;
  }
}

void ExecutionObservers::observe(uint64_t index, uint64_t seed, const sim::World& world,
                                 const sim::ExecutionResult& result) {
  tally_->add(world);
  note_order(world, result);
  if (options_.traces) traces_.add(sim::trace_fingerprint(result));
  coverage_.observe(result);
  faults_.observe(result);
  if (recheck_engine_) {
    ++rechecked_;
    if (auto d = sim::recheck_execution(*recheck_engine_, make_world_, result)) {
      if (!first_divergence_) first_divergence_ = FirstDivergence{index, seed, std::move(*d)};
      ++divergent_;
    }
  }
}

void ExecutionObservers::drain(Outcomes& outcomes, std::map<std::string, uint64_t>& barrier_hits, Counters& counters,
                               std::set<std::pair<std::string, std::string>>& pairs, std::set<std::string>& faults) {
  tally_->drain(outcomes, barrier_hits, counters);
  pairs.insert(coverage_.seen().begin(), coverage_.seen().end());
  faults.insert(faults_.kinds().begin(), faults_.kinds().end());
}

std::vector<size_t> ExecutionObservers::order_inert() const {
  std::vector<size_t> inert;
  if (!all_quiescent_) return inert;
  for (size_t c = 0; c < y_taken_.size(); ++c)
    if (!y_taken_[c]) inert.push_back(c);
  return inert;
}

}  // namespace allocsim::campaign

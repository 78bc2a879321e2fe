// Interleaving coverage for sampling strategies (pct, random): which ordered pairs of scheduling-point names
// were seen run back to back by two different actors. A pair (a, b) means: one actor ran the step it resumed
// from point `a`, and the very next step was another actor's, resumed from point `b` (a context switch
// between those two points). More distinct pairs: more kinds of interleaving tried. A measure, not a
// guarantee (it ignores what lies between non-adjacent steps).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "sim/engine.h"

namespace allocsim::sim {

class PairCoverage {
 public:
  /// Adds the switches of one execution.
  void observe(const ExecutionResult& result);
  /// Distinct ordered pairs seen so far.
  uint64_t pairs() const { return seen_.size(); }
  /// The pairs, ordered (deterministic reports).
  const std::set<std::pair<std::string, std::string>>& seen() const { return seen_; }

 private:
  std::set<std::pair<std::string, std::string>> seen_;
};

}  // namespace allocsim::sim

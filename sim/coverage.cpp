#include "sim/coverage.h"

namespace allocsim::sim {

void PairCoverage::observe(const ExecutionResult& r) {
  for (size_t i = 1; i < r.steps.size(); ++i)
    if (r.steps[i - 1].actor != r.steps[i].actor)
      seen_.emplace(std::string(r.steps[i - 1].what), std::string(r.steps[i].what));
}

}  // namespace allocsim::sim

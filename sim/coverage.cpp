#include "sim/coverage.h"

namespace allocsim::sim {

void PairCoverage::observe(const ExecutionResult& r) {
  for (size_t i = 1; i < r.steps.size(); ++i)
    if (r.steps[i - 1].actor != r.steps[i].actor) {
      const Less::View pair{r.steps[i - 1].what, r.steps[i].what};
      if (seen_.find(pair) == seen_.end()) seen_.emplace(std::string(pair.first), std::string(pair.second));
    }
}

}  // namespace allocsim::sim

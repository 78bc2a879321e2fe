#include "sim/coverage.h"

#include <algorithm>
#include <functional>

namespace allocsim::sim {

void PairCoverage::observe(const ExecutionResult& r) {
  const auto by_address = [](const Where& a, const Where& b) {
    const std::less<const char*> less;  // a total order over unrelated pointers
    if (a.first != b.first) return less(a.first, b.first);
    if (a.second != b.second) return less(a.second, b.second);
    return std::pair(a.first_size, a.second_size) < std::pair(b.first_size, b.second_size);
  };
  for (size_t i = 1; i < r.steps.size(); ++i)
    if (r.steps[i - 1].actor != r.steps[i].actor) {
      const std::string_view a = r.steps[i - 1].what, b = r.steps[i].what;
      const Where key{a.data(), a.size(), b.data(), b.size()};
      const auto at = std::lower_bound(known_.begin(), known_.end(), key, by_address);
      if (at != known_.end() && *at == key) continue;
      if (seen_.find(Less::View{a, b}) == seen_.end()) seen_.emplace(std::string(a), std::string(b));
      known_.insert(at, key);
    }
}

void FaultCoverage::observe(const ExecutionResult& r) {
  constexpr std::string_view kMark = "fault=";
  for (const StepRecord& step : r.steps) {
    const std::string_view d = step.detail;
    for (size_t p = d.find(kMark); p != std::string_view::npos; p = d.find(kMark, p + kMark.size())) {
      if (p > 0 && d[p - 1] != ' ') continue;  // a word of its own, not the tail of another
      const size_t b = p + kMark.size();
      const std::string_view kind = d.substr(b, d.find_first_of(": ", b) - b);
      if (!kind.empty() && kinds_.find(kind) == kinds_.end()) kinds_.emplace(kind);
    }
  }
}

}  // namespace allocsim::sim

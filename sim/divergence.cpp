#include "sim/divergence.h"

#include <fmt/format.h>

namespace allocsim::sim {

std::string Divergence::to_string() const {
  std::string out = fmt::format("{}: {}\n  {}", label, expected, actual);
  if (!runnable.empty()) out += fmt::format(" (runnable: {})", fmt::join(runnable, ", "));
  return out;
}

}  // namespace allocsim::sim

#include "backend/scenario/invariant_names.h"

#include <algorithm>

namespace allocsim::harness {

bool is_invariant(std::string_view name) {
  for (const char* i : invariant_names())
    if (name == i) return true;
  return false;
}

std::vector<std::string> invariants_except(const std::vector<std::string>& left_out) {
  std::vector<std::string> out;
  for (const char* name : invariant_names())
    if (std::find(left_out.begin(), left_out.end(), name) == left_out.end()) out.emplace_back(name);
  return out;
}

}  // namespace allocsim::harness

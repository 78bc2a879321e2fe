#include "backend/invariants/catalog.h"

namespace allocsim::harness {

bool is_invariant(std::string_view name) {
  for (const auto& i : invariant_catalog())
    if (name == i.name) return true;
  return false;
}

}  // namespace allocsim::harness

// The public vocabulary of the harness: barrier names (CONTRACT.md §2) and invariant names (DESIGN.md §5),
// each with a one-line description for `allocsim list`.
#pragma once

#include <string_view>
#include <vector>

namespace allocsim::harness {

struct Named {
  const char* name;
  const char* description;
};

/// The allocation barriers the memory backend fires (CONTRACT.md §2; claim.prepare.after is MixGpu's only
/// and is not listed). The order is the order of a reserve then a release.
const std::vector<Named>& barrier_catalog();

/// Every invariant and engine-level finding, in the fixed order they are checked.
const std::vector<Named>& invariant_catalog();

bool is_barrier(std::string_view name);
bool is_invariant(std::string_view name);

}  // namespace allocsim::harness

// The barriers the memory backend fires (backend/CONTRACT.md §2), in the order of a reserve then a release, each
// with a one-line description for `allocsim list barriers`. Scenario files name them (faults, expect.reach, order
// labels), the world counts their fires, and the actor's caller makes each a scheduling point.
#pragma once

#include <string_view>
#include <vector>

namespace allocsim::backend {

struct Named {
  const char* name;
  const char* description;
};

/// The allocation barriers the memory backend fires (backend/CONTRACT.md §2; claim.prepare.after is MixGpu's only
/// and is not listed). The order is the order of a reserve then a release.
const std::vector<Named>& barrier_table();

bool is_barrier(std::string_view name);

}  // namespace allocsim::backend

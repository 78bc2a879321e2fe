// The fields an invariant reported, rendered again from another state of the world: how the shrinker's
// output shows "the state the invariant saw, before and after the last step".
#pragma once

#include <string>

#include "backend/harness/world.h"

namespace allocsim::harness {

/// For each line of `reported` (a Violation::state, as the invariants render it), the same object
/// rendered from `world`: "node N:" lines re-render node N, "claim C:" lines claim C, "shared map:" the
/// map and pointer, "failed reads:" the failed reads. An object missing from `world` renders as
/// "node N: (absent)"; a line of another shape is kept as it is. Lines end in '\n'.
std::string render_like(const BackendWorld& world, const std::string& reported);

}  // namespace allocsim::harness

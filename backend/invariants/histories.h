// The histories family of invariants (docs/DESIGN.md §5, "Lost updates"): verdicts read from the version history
// of each shared object (backend/world/object_history.h), not from a property someone wrote for one race.
// no-lost-update: no write decided from an earlier observation replaces a version another principal wrote and
// the writer never saw.
//
// Contract: like check.h says of every check: each reads a world after a step and returns its first violation
// (nullopt when it holds). The rows are this family's part of the invariant table (invariant_table.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's rows of the invariant table, each with its check below.
std::vector<InvariantSpec> history_invariants();

/// no-lost-update: the world's ObjectHistories found no lost update. The message names the object, the version
/// lost and its writer, the write that replaced it, and the writer's last observation of the object; the state
/// block is the object's history.
std::optional<sim::Violation> check_no_lost_update(const CheckContext& c);

/// The history of object `object` as the state block renders it: "history of n1's mig.config: [v0 ..., ...]".
std::string render_history(const WorldState& w, uint32_t object);

}  // namespace allocsim::harness

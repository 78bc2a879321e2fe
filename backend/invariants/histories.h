// The histories family of invariants (docs/DESIGN.md §5, "Lost updates"): verdicts read from the version history
// of each shared object (backend/world/object_history.h), not from a property someone wrote for one race.
// no-lost-update: no write decided from an earlier observation replaces a version another principal wrote and
// the writer never saw.
// write-advances-version: every API write of an object moves its version counter on (object_history.h, "Versions
// advance"), so no compare-and-swap on the counter misses it.
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

/// write-advances-version: the world's ObjectHistories found no step whose API writes of an object outnumber how far
/// its counter moved. The message names the counter, its move, the writes and the last of them; the state block is
/// the node's line (or the map's and pointer's) and a `versions:` line.
std::optional<sim::Violation> check_write_advances_version(const CheckContext& c);

/// The history of object `object` as the state block renders it: "history of n1's mig.config: [v0 ..., ...]".
std::string render_history(const WorldState& w, uint32_t object);

}  // namespace allocsim::harness

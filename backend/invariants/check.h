// The check driver of the invariants (docs/DESIGN.md §5): runs the chosen rows of the invariant table (invariant_table.h)
// after a step and at quiescence, in full or incrementally, and computes a compiled scenario's start memo. What
// each check promises is family.h's contract.
#pragma once

#include <optional>

#include "backend/invariants/family.h"
#include "backend/world/compiled_scenario.h"
#include "backend/world/world_state.h"
#include "sim/world.h"

namespace allocsim::harness {

/// Runs the enabled invariants in table order (invariant_table(), invariant_table.h); the quiescent-only ones
/// only at quiescence. Then advances the
/// world's shadow state (audit position, owner epochs) that per-step invariants compare against.
/// In incremental mode (dirty.h) it runs only what the writes since the last check (world.memo.dirty) can
/// have broken, and returns the violation the full check would: the same invariant, message and state.
std::optional<sim::Violation> check_invariants(WorldState& world, sim::ActorId actor, bool quiescent);

/// Runs the per-step invariants of `compiled` on a fresh world of it (no actor stepped) and records whether
/// they hold, with the node sets the incremental checks start from (dirty.h StartMemo). compile() calls it.
StartMemo start_memo(const CompiledScenario& compiled);

}  // namespace allocsim::harness

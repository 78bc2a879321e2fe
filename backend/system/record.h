// The comparable record of one execution (README, "Checking the port against upstream"): what tools/differential/
// rebuilds from the upstream Python backend along the same schedule, and compares field by field.
//
// Shape (one JSON object; `allocsim run --record FILE` writes one per line, in execution order):
//   {"schema": "allocsim/record/v1", "index": N, "schedule": "v1:..." (sim/schedule.h, as `replay --schedule`
//    reads it),
//    "steps": [[actor, kind, point, occurrence, detail], ...]   kind: call | barrier | lock-wait; occurrence:
//             1-based count of (actor, point) so far; detail: the point's detail plus the step's notes
//             ("fault=raise", "crashed=<barrier>"), exactly as traces print it,
//    "end": "quiescent" | "stopped" (the schedule ended with actors unfinished: an invariant fired),
//    "violation": invariant name or null, "crashes": [[actor, step, where], ...],
//    "outcomes": {actor: [outcome or null per script op]},
//    "barriers": [[actor, barrier, detail], ...] in firing order (the Barrier steps' points),
//    "audit": [[op_id, kind, target, detail], ...],
//    "state": the backend's final state (record_state)}
// Numbers are JSON numbers (the clock and due times are doubles; every other number is an integer).
// Port-only claim bookkeeping (`releasing`, `label_versions`, `op_id`) and the mutants' `shared_map_deleted`
// are left out: upstream has no counterpart.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "backend/model/memory_backend.h"
#include "backend/system/backend_world.h"
#include "sim/engine.h"

namespace allocsim::harness {

/// The backend's state as canonical JSON: nodes in scenario order, claims in insertion order, ordered maps
/// as [key, value] pairs (their order is upstream's dict order), the failing-geometry set sorted.
nlohmann::json record_state(const backend::BackendState& s);

/// The record of execution `index` (see above), from the world it ran in and its result.
nlohmann::json record_execution(uint64_t index, const BackendWorld& world, const sim::ExecutionResult& r);

}  // namespace allocsim::harness

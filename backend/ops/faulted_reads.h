// The actor's reads under an armed read fault (backend/world/read_faults.h says what stale_reads and
// partial_reads are, what a write is, and how the history of read states is kept): the script runner reads
// inventory and observe through these when the scenario has read-fault ops.
//
// Footprints (DPOR): a read reads the armed faults' object (read_faults_id) and writes it when it consumes a
// fault; a stale read also reads the visibility object (invariant_visible_id). A faulted read adds
// "fault=stale_reads:K" / "fault=partial_reads:w1,w2" to its step's detail.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/model/memory_backend.h"

namespace allocsim::harness {

class ScriptRunner;  // script_runner.h

/// inventory / observe as the actor's read, with an armed fault applied (ScriptRunner calls these when the
/// scenario has read-fault ops): takes the backend lock first, so the fault is decided on the state the read
/// sees, then answers from the live backend or from a faulted copy of it.
backend::Observation<backend::InventorySnapshot> faulted_inventory(
    ScriptRunner& run, const std::optional<std::vector<std::string>>& scope);
backend::Observation<backend::ClaimObservation> faulted_observe(ScriptRunner& run, const std::string& claim_id);

}  // namespace allocsim::harness

// The audit family of invariants (docs/DESIGN.md §5): audit-explains-state, the backend's audit log replayed
// over the start state gives the state it holds. Like check.h says of every check; its incremental form keeps
// the replay in the world's memo (dirty.h AuditReplay) across steps.
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's row of the invariant table, with its checks below.
std::vector<InvariantSpec> audit_invariants();

/// audit-explains-state: replaying the audit log (upstream's `mutations()`) over the scenario's start
/// state gives every node's owner, mig_config and restore record, the shared map's entries and the
/// pointer as they are now; and the map's and the pointer's versions moved once per logged write of them.
std::optional<sim::Violation> check_audit_explains_state(const CheckContext& c);
/// The same verdict, from a replay kept in c.memo across steps: folds in only the entries appended since the
/// last check and compares only the nodes the steps wrote or those entries target (then the map and pointer).
/// Replays from scratch (check_audit_explains_state) at quiescence, after a foreign write, or without a memo.
std::optional<sim::Violation> check_audit_explains_state_incremental(const CheckContext& c);
/// The replay of an empty log over `start` (what an execution's first incremental check folds onto).
void prime_audit_replay(AuditReplay& r, const backend::BackendState& start);

}  // namespace allocsim::harness

// The healing family of invariants (docs/DESIGN.md §5, "The healing phase"): liveness judged once every actor has
// ended, the way TigerBeetle's VOPR ends a run: faults stop, the recovery the protocol offers runs, and the cluster
// must converge. heals-after-faults asks what nobody named for one race: whatever the execution broke, can the
// cluster still be made whole?
//
// Contract: like check.h says of every check: it reads a world at quiescence and returns its first violation
// (nullopt when it holds). It never writes the world: the healing runs on a copy of the backend. The rows are this
// family's part of the invariant table (invariant_table.h).
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's rows of the invariant table, each with its check below.
std::vector<InvariantSpec> healing_invariants();

/// heals-after-faults, at quiescence, in this order:
///  1. No flow that ended alive owns a claim it was never told it holds (a reserve that made the claim and then
///     raised, or whose answer was lost): nothing but a restarted controller's recover could ever release it.
///  2. On a copy of the backend: every fault stops (read failures, failing and hollow geometry), queued geometry
///     applies land (the fake clock moves to the last one due), every crashed flow is recovered as a restarted
///     controller does (its claims read back and released by id and generation, ALLOC-033), and applies land again.
///  3. The healed cluster has converged. A claim left is one its alive owner holds, or one workloads still hold
///     (release answers pending_recovery); every owner stamp, map entry, restore record, allocsim config and MIG
///     layout is explained by such a claim (a layout by a non-default, non-allocsim config too: an
///     administrator's); no node under such a claim with geometry waits in state `pending` with no apply queued; the pointer names the map exactly
///     while the map holds an entry.
/// The message names the leftover and why no recovery clears it; the state block starts with a `healing:` line
/// saying what the healing did, then the healed objects ("healed node n1: ...").
std::optional<sim::Violation> check_heals_after_faults(const CheckContext& c);

}  // namespace allocsim::harness

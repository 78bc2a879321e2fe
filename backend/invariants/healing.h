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

/// heals-after-faults, at quiescence, on a copy of the backend (when anything would move):
///  1. Every fault stops (read failures, the release read hook, failing, hollow and partial geometry). mig-manager, restarted, reconciles every node
///     that drifted from its config (waiting in `pending` with no apply queued, or carved on the default config):
///     an apply of the config it names is queued. Queued applies land (the fake clock moves to the last one due).
///  2. Every claim but those an alive flow holds is cleaned up as ALLOC-033 prescribes for a flow that crashed, or
///     whose reserve failed or lost its answer after making the claim: released by id and generation, in claim
///     order. Applies land again. A release that fires kReleaseBarriers barriers without returning is reported.
///  3. The cluster has converged. A claim left is one its alive owner holds, or one workloads still hold (its
///     release answered pending_recovery). Every owner stamp is carried by such a claim (same owner and epoch,
///     covering the node); every allocsim config, map entry and restore record by such a claim's entry; no node
///     stays drifted unless such a claim with geometry covers it; every node a kept claim covers is its owner's;
///     the pointer names the map if and only if the map holds an entry.
/// The message names the leftover and why no recovery clears it; the state block starts with a `healing:` line
/// saying what the healing did, then the objects ("healed node n1: ..." when the healing moved anything).
std::optional<sim::Violation> check_heals_after_faults(const CheckContext& c);

}  // namespace allocsim::harness

// The mutant table (docs/DESIGN.md §6). Names are the public vocabulary (`--mutant`, `backend.mutants`).
#include "backend/model/mutants.h"

namespace allocsim::backend {

const std::vector<MutantInfo>& mutant_table() {
  static const std::vector<MutantInfo> table = {
      {Mutant::ClientSideClaim, "client-side-claim", "ALLOC-004",
       "the owner write skips the resourceVersion precondition, so two claimants that read one version both stamp"},
      {Mutant::StaleLastOut, "stale-last-out", "ALLOC-005",
       "last-one-out is decided on the map read before delete.before, so an entry published in the gap is orphaned"},
      {Mutant::StaleSuccessReadiness, "stale-success-readiness", "ALLOC-003",
       "readiness completes on any mig state 'success', whatever geometry write it answers"},
      {Mutant::MapDeletedOnLastOut, "map-deleted-on-last-out", "ALLOC-006",
       "the last owner out deletes the shared mig-parted map instead of tombstoning it"},
      {Mutant::PartialInventoryIsIdle, "partial-inventory-is-idle", "ALLOC-007",
       "a failed pod listing reads as a complete inventory with zero occupancy"},
      {Mutant::AllocatedIsReady, "allocated-is-ready", "ALLOC-021", "a claim reports ready as soon as it is allocated"},
      {Mutant::StalePlanApplied, "stale-plan-applied", "ALLOC-023",
       "reserve skips the inventory-generation check and applies a stale plan"},
      {Mutant::RestoreRecordOverwritten, "restore-record-overwritten", "ALLOC-033",
       "every prepare re-records the node's restore record, so a second prepare records the first's allocsim "
       "config and cleanup restores that stale config"},
      {Mutant::ReleaseClearsAnyOwner, "release-clears-any-owner", "ALLOC-033",
       "release clears the owner stamp of every node its claim lists without comparing owner and epoch, so a "
       "retried or recovered cleanup of an old claim removes a newer claimant's stamp"},
      {Mutant::ReleaseKeepsOwner, "release-keeps-owner", "ALLOC-033",
       "release restores geometry, strips the entry and removes the claim, but never clears its owner stamps"},
      {Mutant::LockLeakOnPendingRecovery, "lock-leak-on-pending-recovery", "ALLOC-013",
       "release returns pending_recovery (workloads hold the devices) without unlocking, so the next caller that "
       "needs the backend lock waits forever"},
      {Mutant::StrictClaimLookup, "strict-claim-lookup", "ALLOC-022",
       "observe looks the claim up strictly (`self._claims[claim_id]`), so observing a claim that a release whose "
       "response was lost has already removed throws KeyError instead of answering Unknown"},
      {Mutant::ReleaseSpinsOnBusyNodes, "release-spins-on-busy-nodes", "ALLOC-013",
       "instead of answering pending_recovery, release polls while holding the backend lock until the workloads "
       "leave, so the unbind it waits for can never run (a livelock)"},
      {Mutant::ReadinessOneWriteBehind, "readiness-one-write-behind", "ALLOC-003",
       "readiness accepts mig state 'success' whose generation is one behind the node's resourceVersion, so when a "
       "flow re-carves a node, the success of its earlier geometry write completes the newer one"},
      {Mutant::RestoreUnderWorkloads, "restore-under-workloads", "ALLOC-013",
       "release ignores the workloads still bound on its nodes and restores their geometry instead of answering "
       "pending_recovery"},
  };
  return table;
}

std::optional<Mutant> mutant_by_name(std::string_view name) {
  for (const auto& m : mutant_table())
    if (name == m.name) return m.id;
  return std::nullopt;
}

}  // namespace allocsim::backend

#include "backend/harness/catalog.h"

namespace allocsim::harness {

const std::vector<Named>& barrier_catalog() {
  static const std::vector<Named> k = {
      {"owner.read.after", "reserve read a node's owner and resourceVersion (outside the lock)"},
      {"owner.update.before", "reserve passed the owner check, about to write the owner (outside the lock)"},
      {"owner.update.after", "reserve stamped (or kept) the owner of one node (outside the lock)"},
      {"claim.create.after", "reserve created the claim (lock held)"},
      {"claim.schedule.after", "reserve published geometry and scheduled the claim (lock held)"},
      {"claim.ready.after", "mark_workload_ready marked the workload ready (lock held)"},
      {"restore.before", "release is about to restore geometry and owners (lock held)"},
      {"restore.after", "release restored geometry and owners (lock held)"},
      {"delete.before", "release read the shared map, about to strip its entry (outside the lock)"},
      {"delete.after", "release stripped its entry and decided last-one-out (outside the lock)"},
  };
  return k;
}

const std::vector<Named>& invariant_catalog() {
  static const std::vector<Named> k = {
      {"single-ownership", "every node a live claim covers is owned by that claim's owner; no node under two owners' live claims"},
      {"no-double-grant", "no GPU or MIG uuid is granted to two live claims"},
      {"no-orphaned-geometry", "allocsim geometry on a node has its map entry and a live or releasing claim; no stray entries; free nodes are back on their recorded config"},
      {"shared-map-never-deleted", "the shared map always exists; the pointer names it while any entry exists, and the original once none does"},
      {"geometry-stable-under-workloads", "no geometry is written or restored on a node while a workload holds it"},
      {"readiness-answers-its-write", "prepared only when every node's state answers this claim's own write; ready only after the workload was marked ready"},
      {"partial-inventory-never-idle", "a plan made from an inventory taken while pod reads failed is infeasible"},
      {"stale-plan-writes-nothing", "a reserve whose expected generation is stale adds no audit entry and changes no state"},
      {"rollback-keeps-newer-owner", "a rollback or release removes only an owner stamp made by the same claim (epoch)"},
      {"quiescent-clean", "at quiescence, actors that released what they claimed leave no owner, claim or entry; the pointer is back when no entry is left"},
      {"recovery-converges", "after a recover op completes, the recovered flow owns no node and has no claim or map entry left, and no node without a claim keeps a restore record or allocsim config (ALLOC-033)"},
      {"no-deadlock", "some actor can always run while any is unfinished"},
      {"steps-bounded", "an execution ends within its step limit (--max-steps)"},
      {"actor-exception", "no actor ends with an unexpected exception"},
  };
  return k;
}

bool is_barrier(std::string_view name) {
  for (const auto& b : barrier_catalog())
    if (name == b.name) return true;
  return false;
}

bool is_invariant(std::string_view name) {
  for (const auto& i : invariant_catalog())
    if (name == i.name) return true;
  return false;
}

}  // namespace allocsim::harness

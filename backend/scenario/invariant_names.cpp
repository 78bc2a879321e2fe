#include "backend/scenario/invariant_names.h"

#include <algorithm>

namespace allocsim::harness {

const std::vector<const char*>& invariant_names() {
  static const std::vector<const char*> k = {
      "single-ownership",
      "no-double-grant",
      "no-orphaned-geometry",
      "shared-map-never-deleted",
      "geometry-stable-under-workloads",
      "readiness-answers-its-write",
      "partial-inventory-never-idle",
      "stale-plan-writes-nothing",
      "rollback-keeps-newer-owner",
      "quiescent-clean",
      "recovery-converges",
      "no-deadlock",
      "steps-bounded",
      "actor-exception",
      // Appended later, so that earlier names keep their order and index.
      "capacity-within-cards",
      "bound-workload-covered",
      "no-apply-under-later-workload",
      "geometry-converges",
      // The client-side names: last, so that no older invariant's first violation changes.
      "observation-matches-claim",
      "bindings-match-grant",
      "mig-layout-matches-grant",
      "audit-explains-state",
      "capabilities-match-authority",
      "observation-envelope-complete",
      "infeasible-plan-names-exclusions",
      "entry-lists-its-nodes",
      "no-lost-update",
      "write-advances-version",
      // Judged at quiescence after every older invariant held (the healing phase).
      "heals-after-faults",
      // Judged last, at quiescence, against the scenario's op-level executions (op atomicity).
      "ops-atomic",
  };
  return k;
}

bool is_invariant(std::string_view name) {
  for (const char* i : invariant_names())
    if (name == i) return true;
  return false;
}

std::vector<std::string> invariants_except(const std::vector<std::string>& left_out) {
  std::vector<std::string> out;
  for (const char* name : invariant_names())
    if (std::find(left_out.begin(), left_out.end(), name) == left_out.end()) out.emplace_back(name);
  return out;
}

}  // namespace allocsim::harness

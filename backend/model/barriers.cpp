#include "backend/model/barriers.h"

namespace allocsim::backend {

const std::vector<Named>& barrier_table() {
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

bool is_barrier(std::string_view name) {
  for (const auto& b : barrier_table())
    if (name == b.name) return true;
  return false;
}

}  // namespace allocsim::backend

// Port-only hook of op-level executions (docs/DESIGN.md §5, "Op atomicity"). Upstream has no such hook: in an op-level
// execution no other actor runs inside an op, so the one interleaving a reserve is built to survive (another writer
// updating a node between the reserve's read of it and its compare-and-swap, ALLOC-004) can only be stood in for.
// shift_resource_version stands in for that other writer: +1 changes the node's resourceVersion and nothing else, so
// the reserve's own code then loses its CAS, rolls back and reports the conflict exactly as it does in a
// barrier-level execution; -1 after the reserve takes it back, so that every later read (another plan's generation
// sum) sees the versions of the serial order, in which the other writer's update is an op of its own.
// Footprint: a write of (Node, node), as any node update.
#include <stdexcept>

#include "backend/model/memory_backend.h"

namespace allocsim::backend {

void MemoryBackend::shift_resource_version(Caller& c, const std::string& node, int64_t by) {
  LockGuard lock(c);
  NodeFixture* n = s_.find_node_for_write(c, node);
  if (n == nullptr) throw std::invalid_argument("shift_resource_version: no node " + node);
  n->resource_version += by;
}

}  // namespace allocsim::backend

// MemoryBackend's geometry application: the upstream's `fail_geometry`, `_apply_geometry` and
// `apply_pending_geometry` (seed/memory_backend_reindented.py lines 349-378). The port-only hooks beside them
// are in geometry_hooks.cpp.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/model/memory_backend.h"
#include "backend/model/memory_backend_idioms.h"

namespace allocsim::backend {

using namespace port;

// -- geometry application (lines 349-378) ----------------------------------------------------------------

// The upstream's `fail_geometry` (lines 349-352).
void MemoryBackend::fail_geometry(Caller& c, const std::string& node) {
  LockGuard lock(c);
  std::vector<std::string>& failing = s_.geometry_faults_for_write(c, node).failing;
  if (std::find(failing.begin(), failing.end(), node) == failing.end()) failing.push_back(node);
}

// The upstream's `_apply_geometry` (lines 354-369).
void MemoryBackend::apply_geometry(Caller& c, const std::string& node_name, int64_t version) {
  const Pinned pinned(*this);
  const auto faults = s_.geometry_faults(c, node_name);
  NodeFixture& node = s_.node_for_write(c, node_name);
  bool failing = std::find(faults.failing.begin(), faults.failing.end(), node_name) != faults.failing.end();
  // Port-only hooks (geometry_hooks.cpp); both maps are empty unless a scenario arms them.
  if (const double* until = find_in(faults.failing_until, node_name); until && !failing)
    failing = s_.clock(c).now() < *until;
  // geometry_partial: a failure that carves part of the layout (below), one armed apply used up; an outright
  // failure carves nothing and uses none.
  bool partial = false;
  if (!failing && find_in(faults.partial, node_name) != nullptr) {
    OrderedMap<std::string, int>& armed = s_.geometry_faults_for_write(c, node_name).partial;
    c.note(fmt::format("fault=geometry_partial:{}", node_name));
    partial = true;
    if (--*find_in(armed, node_name) == 0) erase_in(armed, node_name);
  }
  node.mig_state = failing || partial ? "failed" : "success";
  node.mig_state_generation = version;
  if (failing) return;
  if (!partial && std::find(faults.hollow.begin(), faults.hollow.end(), node_name) != faults.hollow.end())
    return;  // success reported for this write; the layout is left as it was
  const SharedConfig& shared_config = s_.shared_config(c);
  // Built in the backend's scratch and swapped in: the node's old layout's buffer is the next one's (docs/DESIGN.md §5,
  // "Storage reused across executions").
  OrderedMap<std::string, int>& layout = layout_scratch_.reuse();
  layout.clear();
  if (find_in(shared_config, node.mig_config) != nullptr) {
    for (const auto& claim : s_.claims(c)) {
      if (claim.entry_name != node.mig_config) continue;
      const std::string* geometry = find_in(claim.plan.geometry, node_name);
      std::string_view rest = geometry ? std::string_view(*geometry) : std::string_view();
      // `for part in geometry.split(','): if ':' in part: profile, count = part.split(':')`
      while (true) {
        const size_t comma = rest.find(',');
        const std::string_view part = rest.substr(0, comma);
        const size_t colon = part.find(':');
        if (colon != std::string_view::npos)
          put_in(layout, std::string(part.substr(0, colon)), std::stoi(std::string(part.substr(colon + 1))));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  }
  if (partial && !layout.empty()) {
    // The first GPU instance was made and the apply stopped there: one slice of the first profile.
    layout.resize(1);
    layout.front().second = 1;
  }
  node.mig_layout.swap(layout);
}

// The upstream's `apply_pending_geometry` (lines 371-378).
void MemoryBackend::apply_pending_geometry(Caller& c) {
  LockGuard lock(c);
  const double now = s_.clock(c).now();
  std::vector<PendingGeometry>& pending = s_.pending_geometry_for_write(c);
  std::vector<PendingGeometry> due, later;
  for (auto& p : pending) (p.due <= now ? due : later).push_back(p);
  pending = std::move(later);
  for (const auto& p : due) apply_geometry(c, p.node, p.version);
}

}  // namespace allocsim::backend

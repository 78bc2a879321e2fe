// Port-only geometry test hooks (docs/DESIGN.md §4, the ops table), beside upstream's `fail_geometry` (ALLOC-021),
// which makes every later apply on a node fail for good. Upstream has no hook for the three shapes below; they live here,
// not in memory_backend.cpp, and apply_geometry consults them only when a scenario armed one:
// - fail_geometry_for: the node's applies fail until the fake clock reaches the deadline (a GPU operator
//   that recovers after a while), then succeed again;
// - geometry_without_effect: the node's applies report `success` for their write (mig.config.state and its
//   generation) while mig_layout stays as it was (an apply that claims success without carving);
// - geometry_partial: the node's next N applies carve the first slice of the layout and report `failed` (a GPU
//   instance made, its compute instance not: the apply fails part way and leaves what it made), then applies
//   are whole again; the apply's step says `fault=geometry_partial:NODE` (Caller::note). An outright failure
//   wins: an apply that fails outright carves nothing and uses up no partial apply.
// Footprints: each writes (FailingGeometry, node), which apply_geometry already reads; the deadline is
// measured on the fake clock, so fail_geometry_for reads (Clock, "clock"), as apply_geometry then does.
#include <algorithm>
#include <stdexcept>

#include "backend/model/memory_backend.h"

namespace allocsim::backend {

void MemoryBackend::fail_geometry_for(Caller& c, const std::string& node, double seconds) {
  if (seconds < 0) throw std::invalid_argument("fail_geometry_for: negative seconds");
  LockGuard lock(c);
  const double until = s_.clock(c).now() + seconds;
  OrderedMap<std::string, double>& failing_until = s_.geometry_faults_for_write(c, node).failing_until;
  if (double* known = find_in(failing_until, node))
    *known = std::max(*known, until);  // a second arming never shortens a failure in progress
  else
    failing_until.emplace_back(node, until);
}

void MemoryBackend::geometry_without_effect(Caller& c, const std::string& node) {
  LockGuard lock(c);
  std::vector<std::string>& hollow = s_.geometry_faults_for_write(c, node).hollow;
  if (std::find(hollow.begin(), hollow.end(), node) == hollow.end()) hollow.push_back(node);
}

void MemoryBackend::geometry_partial(Caller& c, const std::string& node, int applies) {
  if (applies < 1) throw std::invalid_argument("geometry_partial: applies below 1");
  LockGuard lock(c);
  OrderedMap<std::string, int>& partial = s_.geometry_faults_for_write(c, node).partial;
  if (int* left = find_in(partial, node))
    *left += applies;
  else
    partial.emplace_back(node, applies);
}

}  // namespace allocsim::backend

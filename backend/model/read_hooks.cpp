// The port-only read hook (docs/DESIGN.md §4, partial_reads' `listings`). Upstream's one read hook is
// `fail_reads(kind)`, a read that fails outright; its release reads each node's workloads live, with no fault of its
// own. hide_from_release makes the next N release workload checks list the nodes' workloads without some named
// ones, as a pod listing that omits running pods (a kubelet that restarted and has not re-registered its pods'
// devices) and still looks complete. release_into consults it (memory_backend_release.cpp); unarmed, that check
// decides as upstream's does.
// Footprints: arming writes (FailedReads, "release-pods"); every release workload check reads it when the
// scenario can arm it (BackendOptions::release_read_hook), and writes it when it uses up a read, so DPOR orders an
// arming against each release (an unarmed release reads it too: whether the hook is armed decides what the release
// does). A scenario that never arms it reads nothing new, so its traces keep their fingerprints.
#include <stdexcept>

#include "backend/model/check_mode.h"
#include "backend/model/memory_backend.h"
#include "backend/model/memory_backend_idioms.h"

namespace allocsim::backend {

using namespace port;

void MemoryBackend::hide_from_release(Caller& c, const std::vector<std::string>& workloads, int reads) {
  if (reads < 1) throw std::invalid_argument("hide_from_release: reads below 1");
  // DPOR sees the hook only through releases that read its object, which they do only with this option set.
  ALLOCSIM_PORT_CHECK(opt_.release_read_hook || !c.records_reads(),
                      "hide_from_release armed in a backend whose releases do not read its footprint "
                      "(BackendOptions::release_read_hook)");
  // No lock: the hook arms what the node agent lists, not a write through the backend's API (as the harness's read
  // faults arm theirs), so the arming is taken at the op's own scheduling point even while a call holds the lock.
  BackendState::HiddenPods& hidden = s_.release_pods_for_write(c);
  hidden.workloads = workloads;
  hidden.reads = reads;
}

}  // namespace allocsim::backend

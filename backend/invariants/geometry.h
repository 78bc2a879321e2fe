// Two invariants of issue 13 on geometry applies (docs/DESIGN.md §5): no-apply-under-later-workload and
// geometry-converges, and the shadow they read (BackendWorld::geometry_writes, world.h).
//
// Contract: a "geometry write" is a `label-geometry` audit entry (reserve relabelling a node with its
// entry); its apply is the seed's `_apply` of that write, right away when mig_apply_seconds is 0, else when an
// apply_pending_geometry call finds it due (it leaves the pending queue). Restore writes (release) are
// terminal at once and are not tracked. Times are fake-clock seconds. The checks read the shadow and the
// backend's state; record_geometry_writes() is the only writer of the shadow, called once per check round
// after every check passed (check_invariants), so a check sees the writes of earlier steps only.
#pragma once

#include <optional>

#include "backend/invariants/check.h"
#include "sim/world.h"

namespace allocsim::harness {

/// no-apply-under-later-workload: when an apply of a write runs (its pending entry left the queue this step),
/// no workload holds the node that did not hold it right after the write. Workloads that held it at the write
/// are geometry-stable-under-workloads' business. The seed's apply_pending_geometry never looks at workloads
/// (memory_backend.py `_apply`): FINDINGS.md F7.
std::optional<sim::Violation> check_no_apply_under_later_workload(const CheckContext& c);

/// geometry-converges (quiescent only; bounded liveness): with B = resolve_converge_seconds(scenario), every
/// write made at time t was applied (its node's mig.config.state set to success or failed for it) by t + B:
/// fires for a write applied later than t + B, and for one never applied although the clock at quiescence is
/// at or past t + B. A write the run ended too early to judge (clock < t + B, not applied) holds. The apply
/// time is the fake clock of the step it ran in, so one advance_clock bigger than B - mig_apply_seconds makes
/// a write late by itself.
std::optional<sim::Violation> check_geometry_converges(const CheckContext& c);

/// Brings world.geometry_writes up to date with the step just checked: marks the writes whose apply ran,
/// then appends the writes of the new audit entries (from world.audit_seen). Does nothing unless one of the
/// two invariants above is enabled.
void record_geometry_writes(BackendWorld& world);

}  // namespace allocsim::harness

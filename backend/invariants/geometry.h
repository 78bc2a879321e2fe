// The geometry family of invariants (docs/DESIGN.md §5): MIG geometry and the shared mig-parted map. Allocsim
// geometry on a node has its map entry and a claim, the map is never deleted and the pointer follows it, no
// geometry is written under a workload or applied under a later one, every write converges, an applied layout
// counts the claim's MIG devices, and an entry lists the nodes its claim carves. And the shadow the apply
// checks read (WorldState::geometry_writes, backend/world/world_state.h).
//
// no-apply-under-later-workload and geometry-converges:
// Contract: a "geometry write" is a `label-geometry` audit entry (reserve relabelling a node with its
// entry); its apply is upstream's `_apply` of that write, right away when mig_apply_seconds is 0, else when an
// apply_pending_geometry call finds it due (it leaves the pending queue). Restore writes (release) are
// terminal at once and are not tracked. Times are fake-clock seconds. The checks read the shadow and the
// backend's state; record_geometry_writes() is the only writer of the shadow, called once per check round
// after every check passed (check_invariants), so a check sees the writes of earlier steps only.
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"
#include "sim/world.h"

namespace allocsim::harness {

/// The family's rows of the invariant table (invariant_table.h), each with its check below.
std::vector<InvariantSpec> geometry_invariants();

std::optional<sim::Violation> check_no_orphaned_geometry(const CheckContext& c);
std::optional<sim::Violation> check_shared_map_never_deleted(const CheckContext& c);
std::optional<sim::Violation> check_geometry_stable_under_workloads(const CheckContext& c);

/// no-apply-under-later-workload: when an apply of a write runs (its pending entry left the queue this step),
/// no workload holds the node that did not hold it right after the write. Workloads that held it at the write
/// are geometry-stable-under-workloads' business. Upstream's apply_pending_geometry never looks at workloads
/// (memory_backend.py `_apply`): FINDINGS.md F7.
std::optional<sim::Violation> check_no_apply_under_later_workload(const CheckContext& c);

/// geometry-converges (quiescent only; bounded liveness): with B = resolve_converge_seconds(scenario), every
/// write made at time t was applied (its node's mig.config.state set to success or failed for it) by t + B:
/// fires for a write applied later than t + B, and for one never applied although the clock at quiescence is
/// at or past t + B. A write the run ended too early to judge (clock < t + B, not applied) holds. The apply
/// time is the fake clock of the step it ran in, so one advance_clock bigger than B - mig_apply_seconds makes
/// a write late by itself.
std::optional<sim::Violation> check_geometry_converges(const CheckContext& c);

/// mig-layout-matches-grant: a node showing `success` for the write of a claim whose allocsim entry it is
/// configured with (mig_state_generation >= the claim's label version there; the entry is in the shared
/// map) shows a layout that counts, per MIG profile, exactly the MIG devices granted on that node by the
/// claims carrying that entry (upstream `_apply_geometry`).
std::optional<sim::Violation> check_mig_layout_matches_grant(const CheckContext& c);

/// entry-lists-its-nodes (upstream `reserve`: `dict.fromkeys(plan.geometry, 1)`): the shared map's entry of a
/// live or releasing claim lists exactly the nodes the claim's plan carves geometry on, the nodes the
/// operator applies that entry to.
std::optional<sim::Violation> check_entry_lists_its_nodes(const CheckContext& c);

/// Brings world.geometry_writes up to date with the step just checked: marks the writes whose apply ran,
/// then appends the writes of the new audit entries (from world.audit_seen). Does nothing unless one of the
/// two invariants above is enabled.
void record_geometry_writes(WorldState& world);

}  // namespace allocsim::harness

// Two invariants on what holds a node's cards (docs/DESIGN.md §5): capacity-within-cards and
// bound-workload-covered. Checks over a WorldState after a step, like check.h.
//
// Contract: each returns the first violation it finds (nullopt when it holds), with a message naming the node,
// workloads and claims involved and a state block (render_node lines plus one line of the check's own
// arithmetic). They read the backend's state and the scenario's scripts; bound-workload-covered also reads the
// shadow WorldState::bound_workloads, which only record_bound_workloads() writes. Cards and
// workloads are whole GPU units (the ints of `workloads` and `gpu_count`).
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"
#include "sim/world.h"

namespace allocsim::harness {

/// The family's rows of the invariant table (invariant_table.h), each with its check below.
std::vector<InvariantSpec> capacity_invariants();

/// The cards a node has now: its `gpu_count`, or less when its GFD label `nvidia.com/gpu.count` parses as a
/// smaller non-negative integer (a card reported unhealthy drops the label, not the fixture's gpu_count).
int node_cards(const backend::NodeFixture& n);

/// capacity-within-cards: for every node, the cards granted to live claims there (distinct GPU uuids, plus one
/// card for all live claims' MIG slices on the node: geometry is per node here, and upstream fits a layout
/// on one card, check_layout) plus the units of workloads bound there that no live claim covers (no live claim grants
/// that workload id a device on that node) never exceed node_cards(). Upstream's plan() counts only bound
/// units as occupied (memory_backend.py plan: `free = len(devices) - occupancy`), so a claim holds no card
/// against a workload bound after it: FINDINGS.md F6.
std::optional<sim::Violation> check_capacity_within_cards(const CheckContext& c);

/// bound-workload-covered: for a workload whose id some actor requests (a `requests` entry of a plan or
/// reserve: a flow's own workload; other ids are foreign and never judged), bound on node N:
/// - once a live claim has granted it a device on N while it was bound, some live claim does so for as long as
///   it stays bound on N (its claim is not released, nor starts releasing, under it);
/// - in the step it becomes bound on N, if any live claim grants it devices, one grants it a device on N
///   (it is not bound on a node other than the one its claim reserved).
/// A bind while no live claim grants the workload anything is not judged: the corpus binds a flow's workload
/// from chaos actors at any point of the run, before its reserve or after its release, and upstream's
/// bind_workload is the test's kubelet, which consults no claim. Upstream's release refuses while workloads
/// hold its nodes (pending_recovery), so it holds on upstream; the mutant restore-under-workloads breaks it.
std::optional<sim::Violation> check_bound_workload_covered(const CheckContext& c);

/// Brings world.bound_workloads up to date with the step just checked (after every check passed). Does nothing
/// unless bound-workload-covered is enabled. With `nodes` (an incremental check: the nodes the step affected,
/// dirty.h) only their entries are replaced: an entry of another node reads nothing that moved. The list's
/// order then differs from a full rebuild's; readers look entries up by (node, workload), each unique.
void record_bound_workloads(WorldState& world, const std::vector<uint32_t>* nodes = nullptr);

}  // namespace allocsim::harness

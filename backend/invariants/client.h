// The client-side invariants of issue 17 (docs/DESIGN.md §5): what a caller of the backend is told, or can
// read back, agrees with the backend's own record of the claim and of its writes.
//
// Contract: like invariants.h, each check reads a BackendWorld after a step and returns its first
// violation (nullopt when it holds); none calls the backend through a Caller of the world, so none adds
// a scheduling point or a footprint of its own. bindings-match-grant calls MemoryBackend::bindings on a
// copy of the backend with a SequentialCaller (a read: bindings writes nothing).
// Their rows sit at the end of invariant_catalog() (invariants.cpp), so that a scenario's first
// violation among the older invariants is unchanged.
#pragma once

#include <optional>

#include "backend/invariants/check.h"

namespace allocsim::harness {

/// observation-matches-claim: an observation the actor was told this step (reserve, observe, await,
/// reconcile) of a claim that still exists names that claim's owner and generation (desired and observed:
/// the memory backend answers at once) and grants exactly
/// the devices the claim's plan assigns, in assignment order (seed `_observe_claim`'s grant).
std::optional<sim::Violation> check_observation_matches_claim(const CheckContext& c);

/// bindings-match-grant: once the actor was told its claim is `ready` (when a client builds its pod),
/// `bindings(claim, workload)` for every workload of the claim's plan gives GPU limit and VF_GPU_COUNT =
/// the number of devices assigned, CUDA_VISIBLE_DEVICES = their MIG uuid or uuid (else ordinal) joined
/// by ',', node constraints = the sorted set of their nodes, and the node selector = the first of them.
std::optional<sim::Violation> check_bindings_match_grant(const CheckContext& c);

/// mig-layout-matches-grant: a node showing `success` for the write of a claim whose allocsim entry it is
/// configured with (mig_state_generation >= the claim's label version there; the entry is in the shared
/// map) shows a layout that counts, per MIG profile, exactly the MIG devices granted on that node by the
/// claims carrying that entry (seed `_apply_geometry`).
std::optional<sim::Violation> check_mig_layout_matches_grant(const CheckContext& c);

/// audit-explains-state: replaying the audit log (the seed's `mutations()`) over the scenario's start
/// state gives every node's owner, mig_config and restore record, the shared map's entries and the
/// pointer as they are now; and the map's and the pointer's versions moved once per logged write of them.
std::optional<sim::Violation> check_audit_explains_state(const CheckContext& c);
/// The same verdict, from a replay kept in c.memo across steps: folds in only the entries appended since the
/// last check and compares only the nodes the steps wrote or those entries target (then the map and pointer).
/// Replays from scratch (check_audit_explains_state) at quiescence, after a foreign write, or without a memo.
std::optional<sim::Violation> check_audit_explains_state_incremental(const CheckContext& c);
/// The replay of an empty log over `start` (what an execution's first incremental check folds onto).
void prime_audit_replay(AuditReplay& r, const backend::BackendState& start);

/// capabilities-match-authority (checked at quiescence only: capabilities() depends on nothing but the
/// authority): the backend advertises adapter `memory-<authority>`, that authority, isolated MIG and
/// hardware memory enforcement exactly for managed-mig and dra, cooperative sharing and no enforcement
/// for local, accounting otherwise, elasticity except on managed-mig, and always exclusive devices,
/// multi-device claims and an admission boundary without topology verification (backend/CONTRACT.md §8).
std::optional<sim::Violation> check_capabilities_match_authority(const CheckContext& c);

/// observation-envelope-complete (backend/CONTRACT.md §4 "Observations"): every Known/Unknown answer an actor
/// is told (inventory, observe) is stamped with the fake clock's time of the read; a Known answer carries
/// the generation of the value it wraps; an Unknown answer a reason from the contract's vocabulary
/// (timeout, auth, malformed, unreachable, unsupported) and a detail.
std::optional<sim::Violation> check_observation_envelope_complete(const CheckContext& c);

/// infeasible-plan-names-exclusions (seed `plan`, backend/CONTRACT.md §3): when a plan is infeasible because
/// no node can hold every whole-device request, its reason names each node of the inventory it left out
/// and why: "<node>: owned by <flow>" for a node another flow owns, "<node>: <class> ..." for a node whose
/// cards are shares or slices (time-sliced, mps, unknown, mig), as a caller debugging the refusal reads it.
std::optional<sim::Violation> check_infeasible_plan_names_exclusions(const CheckContext& c);

/// entry-lists-its-nodes (seed `reserve`: `dict.fromkeys(plan.geometry, 1)`): the shared map's entry of a
/// live or releasing claim lists exactly the nodes the claim's plan carves geometry on, the nodes the
/// operator applies that entry to.
std::optional<sim::Violation> check_entry_lists_its_nodes(const CheckContext& c);

}  // namespace allocsim::harness

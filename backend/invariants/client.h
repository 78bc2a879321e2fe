// The client-side invariants (docs/DESIGN.md §5): what a caller of the backend is told, or can
// read back, agrees with the backend's own record of the claim and of its writes.
//
// Contract: like check.h, each check reads a WorldState after a step and returns its first
// violation (nullopt when it holds); none calls the backend through a Caller of the world, so none adds
// a scheduling point or a footprint of its own. bindings-match-grant calls MemoryBackend::bindings on a
// copy of the backend with a SequentialCaller (a read: bindings writes nothing).
// Their rows come late in the check order (InvariantSpec::order), so that a scenario's first violation among the
// older invariants is unchanged.
#pragma once

#include <optional>
#include <vector>

#include "backend/invariants/family.h"

namespace allocsim::harness {

/// The family's rows of the invariant table (invariant_table.h), each with its check below.
std::vector<InvariantSpec> client_invariants();

/// readiness-answers-its-write (ALLOC-003): a claim the stepping actor was told is `prepared` has geometry, and
/// every node of it shows success for this claim's own write; one it was told is `ready` had its workload marked
/// ready.
std::optional<sim::Violation> check_readiness_answers_its_write(const CheckContext& c);
/// partial-inventory-never-idle (ALLOC-007): a plan the stepping actor was told is feasible was not made from an
/// inventory taken while pod reads failed.
std::optional<sim::Violation> check_partial_inventory_never_idle(const CheckContext& c);

/// observation-matches-claim: an observation the actor was told this step (reserve, observe, await,
/// reconcile) of a claim that still exists names that claim's owner and generation (desired and observed:
/// the memory backend answers at once) and grants exactly
/// the devices the claim's plan assigns, in assignment order (upstream `_observe_claim`'s grant).
std::optional<sim::Violation> check_observation_matches_claim(const CheckContext& c);

/// bindings-match-grant: once the actor was told its claim is `ready` (when a client builds its pod),
/// `bindings(claim, workload)` for every workload of the claim's plan gives GPU limit and VF_GPU_COUNT =
/// the number of devices assigned, CUDA_VISIBLE_DEVICES = their MIG uuid or uuid (else ordinal) joined
/// by ',', node constraints = the sorted set of their nodes, and the node selector = the first of them.
std::optional<sim::Violation> check_bindings_match_grant(const CheckContext& c);

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

/// infeasible-plan-names-exclusions (upstream `plan`, backend/CONTRACT.md §3): when a plan is infeasible because
/// no node can hold every whole-device request, its reason names each node of the inventory it left out
/// and why: "<node>: owned by <flow>" for a node another flow owns, "<node>: <class> ..." for a node whose
/// cards are shares or slices (time-sliced, mps, unknown, mig), as a caller debugging the refusal reads it.
std::optional<sim::Violation> check_infeasible_plan_names_exclusions(const CheckContext& c);

}  // namespace allocsim::harness

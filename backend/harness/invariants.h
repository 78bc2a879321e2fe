// The invariants of docs/DESIGN.md §5, each a named function over a BackendWorld after a step.
//
// Contract: each returns the first violation it finds (nullopt when it holds), with a message naming
// the objects involved and a `state` rendering of the fields that broke it. They read only; they are
// run in invariant_catalog() order, after every step and again at quiescence. Where a property allows,
// it is checked per object (per node, per claim) so that footprints stay narrow (DPOR).
#pragma once

#include <optional>

#include "backend/harness/state_view.h"
#include "backend/harness/world.h"
#include "sim/world.h"

namespace allocsim::harness {

/// Context of one check: the actor that just took a step (kNoActor at quiescence).
struct CheckContext {
  const BackendWorld& world;
  sim::ActorId actor;
  bool quiescent;
};

/// The observation the stepping actor was told in this step and the claim it names; nullopt when no actor
/// stepped, nothing was told, or the claim is gone (what the observation invariants judge).
struct ToldObservation {
  const backend::ClaimObservation& obs;
  const backend::Claim& claim;
};
std::optional<ToldObservation> told_observation(const CheckContext& c);

std::optional<sim::Violation> check_single_ownership(const CheckContext& c);
std::optional<sim::Violation> check_no_double_grant(const CheckContext& c);
std::optional<sim::Violation> check_no_orphaned_geometry(const CheckContext& c);
std::optional<sim::Violation> check_shared_map_never_deleted(const CheckContext& c);
std::optional<sim::Violation> check_geometry_stable_under_workloads(const CheckContext& c);
std::optional<sim::Violation> check_readiness_answers_its_write(const CheckContext& c);
std::optional<sim::Violation> check_partial_inventory_never_idle(const CheckContext& c);
std::optional<sim::Violation> check_stale_plan_writes_nothing(const CheckContext& c);
std::optional<sim::Violation> check_rollback_keeps_newer_owner(const CheckContext& c);
std::optional<sim::Violation> check_quiescent_clean(const CheckContext& c);
/// recovery-converges (ALLOC-033): right after a `recover` op of flow F completed (every claim found was
/// released, or none was found), F owns no node, no claim of F remains, no map entry of F remains, and
/// every node no claim covers has no restore record and is back on its recorded config. A cleanup that
/// cannot converge (an owner stamp with no claim to release it) is a finding about the seed.
std::optional<sim::Violation> check_recovery_converges(const CheckContext& c);

/// Runs the enabled invariants in catalog order (invariant_catalog(), catalog.h); the quiescent-only ones
/// only at quiescence. Then advances the
/// world's shadow state (audit position, owner epochs) that per-step invariants compare against.
std::optional<sim::Violation> check_invariants(BackendWorld& world, sim::ActorId actor, bool quiescent);

}  // namespace allocsim::harness

// The backend world's canonical state (docs/DESIGN.md §2 "Canonical states"; sim/world.h World::canonical_state):
// digests of everything in a WorldState that can decide the rest of an execution, for state caching
// (`dfs --reduction states`).
//
// What splits states, and what does not (the rule: whatever a later step, an invariant or an expectation can
// observe is in; what none can is out):
//   1. In, as objects a step can touch (their footprint ids, backend/world/object_ids.h), each digested whole:
//      every node, all nodes at once, every claim, the claim table, the shared map, the pointer, the clock,
//      the pending geometry writes, the failed-read flags, the failing-geometry hooks per node, each actor's last
//      plan (`plan_from` reads it), the armed read faults, the faults-fired counter, the backend lock and the
//      actors' life locks; where a scenario has them, the armed bind refusals, the leased flows' leases, the bound
//      pods' resources and the newest claim of each actor whose claim another actor's bind names
//      (kubelet_admission.h).
//   2. In, beside them: what the invariants and expectations keep between steps (owner-epoch shadows, geometry
//      writes, bound workloads, the audit base after a foreign write, stale reserves, the object histories, the
//      read-fault history).
//   3. The audit log as a multiset: appends commute (no invariant reads their order, which is why DPOR does not
//      order them either, backend/ops/actor_caller.cpp), and expectations count kinds. History versions name
//      their audit entry by its content, not its index.
//   4. Out: barrier fire counts (reports count them; the `reach` expectation asks only whether a barrier fired,
//      and which barriers have fired is in: a path cut at a visited state is never tallied, so the state must
//      carry what it fired), step numbers inside the histories (explanations only),
//      the incremental checks' memo and the digests' own memos (caches of the state), scratch buffers, and what an actor was told during the
//      step just checked (ActorState::told, reset after the check).
// An actor's local state is its ActorState at the start of each script op (actor_digest(), given to the engine
// with ActorContext::local_state); within an op the engine adds what it touches and draws.
// A field added to a struct digested here (the backend's state, node, claim, plan, inventory and device; the
// world's storage, actor state, read faults, object histories and the invariants' records) breaks a static_assert
// in state_digest.cpp until it is placed in or out here.
#pragma once

#include <cstdint>

#include "backend/world/world_state.h"
#include "sim/world.h"

namespace allocsim::harness {

/// The digest of `a` as the local state of its actor at an op boundary: every field but scratch and `told`.
uint64_t actor_digest(const ActorState& a);

/// Fills `out` (World::canonical_state) for world `w`: its objects sorted by footprint id, and `out.world`.
void canonical_state(const WorldState& w, sim::CanonicalState& out);

/// Symmetry (sim/symmetry.h, `dfs --reduction symmetry`; defined in symmetric_digest.cpp): fills `out` (World::symmetric_state) for world `w`, the
/// state canonical_state() digests as digests with holes for the names of the interchangeable actors
/// (CompiledScenario::symmetry()). Marks `w` symmetric: from then on its actors call record_op_start() where they
/// give their local state, and note_touched_claim() where a step touches a claim.
void symmetric_state(WorldState& w, sim::SymmetricState& out);
/// Marks `w` symmetric, as symmetric_state() does, without building a state, and tells its actors that the engine
/// reads their local states from symmetric states alone (World::begin_symmetric_states, WorldState::symmetric_engine).
void begin_symmetric_states(WorldState& w);
/// Keeps `a`'s state at an op start, with holes, for symmetric_state(). REQUIRES: `a` is one of w.actors().
void record_op_start(WorldState& w, const ActorState& a);
/// Keeps claim id `id`, touched by a step, for symmetric_state() (a claim that does not exist yet, or any more).
void note_touched_claim(WorldState& w, std::string_view id);

}  // namespace allocsim::harness

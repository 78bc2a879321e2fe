// Footprint ids (DPOR, docs/DESIGN.md §2): the stable 64-bit name of every object an actor's step reads or
// writes, the backend's objects (backend/model/caller.h Obj) and the harness's own: an actor's last plan, the
// state the invariants check, the armed read faults (read_faults.h), the armed admission rejections
// (admission_faults.h), each leased flow's lease (leases.h) and the faults-fired counter (backend/ops/actor_caller.h).
// Ids hash names, never addresses, so they are the same on every run and machine.
#pragma once

#include <cstdint>
#include <string_view>

#include "backend/model/caller.h"

namespace allocsim::harness {

/// The footprint id of backend object (`what`, `name`): XXH3-64 of the kind byte and the name, so ids
/// are stable across runs and machines (no addresses).
uint64_t object_id(backend::Obj what, std::string_view name);

/// The object every write to a node, claim, the shared map or the pointer also writes (DPOR's visibility
/// condition: invariants read several of them after every step; see ActorCaller::touch in actor_caller.cpp).
uint64_t invariant_visible_id();

/// The footprint id of actor `actor`'s last plan, which `plan_from` reserves of other actors read.
uint64_t actor_plan_id(std::string_view actor);

/// The footprint id of the world's faults-fired counter (WorldState::faults_fired). Every fault-eligible
/// draw point reads it (the bound check) and every fired fault writes it, so that with two or more eligible
/// actors DPOR orders a fault against the other actors' bound checks: whether a later point may draw at all
/// depends on it (tests/scenarios/dpor_matches_dfs.cpp). A harness kind byte outside backend::Obj (0xF0 is
/// actor_plan_id, 0xF1 read_faults_id, 0xF3 admission_faults_id, 0xF4 lease_id in leases.h). Defined here, beside
/// the other harness ids, so that the canonical state (state_digest.h) can list it; ActorCaller reads and writes it
/// (backend/ops/actor_caller.h).
uint64_t faults_fired_id();

}  // namespace allocsim::harness

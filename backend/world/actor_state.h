// The state a world keeps per actor (ActorState), and what an actor was told during the current step (Told),
// which the invariants on received values judge at the end of the step (docs/DESIGN.md §2). The script runner
// (backend/ops/script_runner.h) writes both; the world resets them per execution (world_state.h).
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/model/memory_backend.h"

namespace allocsim::harness {

/// What an actor was told during the current step, for invariants on received values.
struct Told {
  // plan results: feasible?, and whether the inventory they came from was taken while pod reads failed
  std::optional<bool> plan_feasible;
  bool plan_from_failed_pods = false;
  // observation results
  std::optional<backend::ClaimObservation> observation;
  // recover: the flow whose cleanup just completed (released every claim found, or found none)
  std::optional<std::string> recovered_flow;
  // The envelope of the last Known/Unknown answer (inventory, observe) and what it must say
  // (observation-envelope-complete, backend/CONTRACT.md §4 "Observations").
  struct Envelope {
    const char* call;  // "inventory" | "observe" (static)
    bool known;
    std::optional<std::string> generation;  // as told
    std::string value_generation;           // the generation inside the value (known only)
    std::string reason, detail;             // as told (unknown only)
    double observed_at;                     // as told
    double value_observed_at;               // the value's own stamp (an inventory snapshot's), else observed_at
    double now;                             // the fake clock when the answer came back
  };
  std::optional<Envelope> envelope;
  /// Whether the step told anything (the rows marked kReadsTold judge nothing otherwise).
  bool any() const {
    static_assert(sizeof(Told) == 456, "Told changed: a new field must count in any() (and be reset in reset_told)");
    return plan_feasible || observation || recovered_flow || envelope;
  }
};

/// Storage kept across an optional's emptying (docs/DESIGN.md §5, "Storage reused across executions"): an ActorState
/// field such as `plan` has a scratch twin holding buffers while it is empty. stash() empties `slot` into `spare`;
/// install() makes the freshly filled `fresh` the slot's value and leaves the old value's buffers in `fresh` for the
/// next fill.
template <class T>
void stash(std::optional<T>& slot, T& spare) {
  if (!slot) return;
  std::swap(spare, *slot);
  slot.reset();
}
template <class T>
void install(std::optional<T>& slot, T& fresh) {
  if (slot)
    std::swap(*slot, fresh);
  else
    slot.emplace(std::move(fresh));
}

/// Per-actor harness state.
struct ActorState {
  std::string name;
  std::string owner;  // the owner identity the backend sees (ActorSpec::identity(); the name unless shared)
  long id_counter = 0;
  int reserves = 0;  // operation ids <actor>:op<k> (<owner>:<actor>.op<k> under another identity)
  int releases = 0;
  int recovers = 0;               // releases made by recover ops: operation ids <actor>:recover<k>
  size_t op_index = 0;            // the script op running now
  const char* crashed = nullptr;  // the barrier a crash fault ended this actor at
  std::optional<backend::InventorySnapshot> inventory;  // the last known inventory
  bool inventory_with_failed_pods = false;              // pod reads failed when it was taken
  std::optional<backend::PlanOutcome> plan;             // the last plan
  bool plan_with_failed_pods = false;
  std::optional<std::string> claim_id;  // the newest claim still held (observe, await, mark_ready, reconcile)
  std::string claim_generation;
  // Claims held, oldest first, as (claim id, generation). `release` releases the oldest (upstream ALLOC-022
  // releases a flow's first claim while its second stays observable); once none is held, a further
  // `release` repeats the last released one, as upstream's duplicate release does ("already released").
  std::vector<std::pair<std::string, std::string>> held;
  /// Whether claim `claim_id` is among those it holds.
  bool holds(std::string_view claim_id) const {
    return std::any_of(held.begin(), held.end(), [&](const auto& h) { return h.first == claim_id; });
  }
  std::optional<std::pair<std::string, std::string>> last_released;
  int claims_held = 0;  // claimed minus released
  int claims_made = 0;
  std::string op_epoch;               // generation of the reserve/release running now (rollback-keeps-newer-owner)
  std::vector<const char*> outcomes;  // per script op: the outcome it ended in (nullptr = not reached)
  Told told;
  // -- scratch storage reused across executions (world_state.cpp reset_actor keeps it; never read as state) --
  backend::Observation<backend::InventorySnapshot> inventory_scratch;  // inventory_into's answer
  std::vector<backend::WorkloadRequest> requests_scratch;              // a plan's requests
  backend::PlanOutcome plan_scratch;              // plan_into's storage while `plan` is empty (ScriptRunner::plan)
  backend::ClaimObservation observation_scratch;  // try_reserve_into's answer (ScriptRunner::reserve)
  backend::ReserveLoss loss_scratch;              // try_reserve_into's lost CAS (ScriptRunner::reserve)
  backend::FeasiblePlan
      borrowed_plan_scratch;  // a plan_from reserve's copy of another actor's plan (backend/ops/op_claims.cpp)
  backend::ReleaseObservation release_scratch;  // release_into's answer (backend/ops/: release, recover)
  std::string detail_scratch;                   // the detail of the barrier being fired (ActorCaller::detail_buffer)
};

/// `t` as a fresh Told, its observation's storage kept in `spare` (ScriptRunner::reserve installs it back).
void reset_told(Told& t, backend::ClaimObservation& spare);

}  // namespace allocsim::harness

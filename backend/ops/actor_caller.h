// ActorCaller: the backend::Caller an actor hands the memory backend (docs/DESIGN.md §1). Barriers and the
// backend lock become scheduling points of the actor's fiber, object touches become its footprint (DPOR),
// ids come from the actor's own counter, and barrier faults (FaultSpec, scenario.h) are drawn here.
//
// Contract: barrier() fires a PointKind::Barrier named after its row of the barrier table, counts it in the world's
// barrier_hits, then draws the barrier's fault while under FaultSpec::max: crash throws sim::ActorCrash
// (after recording `crashed` as the running op's outcome), raise throws InjectedError, drop_response sets
// `dropped` and returns {.drop_response = true}. An unknown barrier name throws std::invalid_argument.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

#include "backend/world/world_state.h"

namespace allocsim::harness {

/// A `raise` fault (backend/CONTRACT.md §2 RaiseError): thrown from a barrier through the backend call, which
/// fails after its effects so far; the script runner turns it into outcome `error`.
struct InjectedError : std::runtime_error {
  explicit InjectedError(const std::string& barrier) : std::runtime_error("injected error at " + barrier) {}
};

class ActorCaller final : public backend::Caller {
 public:
  ActorCaller(WorldState& w, sim::ActorContext& ctx, ActorState& st) : w_(w), ctx_(ctx), st_(st) {
    // ActorContext::records_footprints(), read once: without footprints a touch skips hashing the object's id,
    // and the backend's per-node read loops (inventory, reserve's generation) skip the calls.
    records_reads_ = ctx.records_footprints();
  }

  backend::BarrierHit barrier(std::string_view name, std::string detail) override;
  /// The actor's reused buffer (ActorState::detail_scratch): compiled-format details allocate nothing once it
  /// has grown to the longest detail.
  std::string& detail_buffer() override;
  backend::BarrierHit barrier_detail(std::string_view name, const std::string& detail) override;
  void lock() override;
  void unlock() override;
  void touch(backend::Obj what, std::string_view name, bool write) override;
  void note(std::string_view text) override { ctx_.note(text); }
  std::string next_id(std::string_view kind) override;

  /// Set when a drop_response fault fired during the current op (the script runner clears it per op).
  bool dropped = false;

  /// Op-level executions: takes back the stand-in update of the reserve that ended (actor_caller.cpp,
  /// op_level_barrier), if it drew one. Nothing otherwise.
  void undo_concurrent_update();

  /// Whether FaultSpec::max allows one more fault in this execution. Reads the faults-fired counter's
  /// footprint object (faults_fired_id()): call it only where the answer decides whether a fault is drawn.
  bool fault_budget_left();
  /// Counts a fault that fired; writes the counter's footprint object.
  void count_fault();

 private:
  backend::BarrierHit fault_at(size_t index);  // index: into barrier_table()
  backend::BarrierHit fire(std::string_view name, const std::string& detail);
  void op_level_barrier(std::string_view name, const std::string& detail);
  void shift_uncounted(const std::string& node, int64_t by);

  WorldState& w_;
  sim::ActorContext& ctx_;
  ActorState& st_;
  std::string concurrent_node_;  // op-level executions: the node whose version the running reserve's stand-in shifted
  uint64_t op_level_barriers_ = 0;  // op-level executions: barriers this actor has passed
};

}  // namespace allocsim::harness

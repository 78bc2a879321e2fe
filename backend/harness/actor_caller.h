// ActorCaller: the backend::Caller an actor hands the memory backend (docs/DESIGN.md §1). Barriers and the
// backend lock become scheduling points of the actor's fiber, object touches become its footprint (DPOR),
// ids come from the actor's own counter, and barrier faults (FaultSpec, scenario.h) are drawn here.
//
// Contract: barrier() fires a PointKind::Barrier named after the catalog entry, counts it in the world's
// barrier_hits, then draws the barrier's fault while under FaultSpec::max: crash throws sim::ActorCrash
// (after recording `crashed` as the running op's outcome), raise throws InjectedError, drop_response sets
// `dropped` and returns {.drop_response = true}. An unknown barrier name throws std::invalid_argument.
#pragma once

#include <string>
#include <string_view>

#include "backend/harness/world.h"

namespace allocsim::harness {

class ActorCaller final : public backend::Caller {
 public:
  ActorCaller(BackendWorld& w, sim::ActorContext& ctx, ActorState& st) : w_(w), ctx_(ctx), st_(st) {}

  backend::BarrierHit barrier(std::string_view name, std::string detail) override;
  void lock() override;
  void unlock() override;
  void touch(backend::Obj what, std::string_view name, bool write) override;
  std::string next_id(std::string_view kind) override;

  /// Set when a drop_response fault fired during the current op (the script runner clears it per op).
  bool dropped = false;

 private:
  backend::BarrierHit fault_at(const char* barrier);

  BackendWorld& w_;
  sim::ActorContext& ctx_;
  ActorState& st_;
};

}  // namespace allocsim::harness

// ScriptRunner: one actor's script, run inside the actor's fiber (world.h's contract). It runs each op
// through its behaviour row (op_behaviour.h) and gives the rows the actor's primitives: a Call scheduling point with
// its environment fault, and the inventory, plan, reserve and observe steps several ops share.
//
// Contract: every backend call is preceded by call(); an op's outcome is recorded in ActorState::outcomes
// (a raise fault ends the op with `error`, a dropped response with `unknown`); a crash (sim::ActorCrash)
// unwinds the backend's frames up to run_op(), which reports it (ActorContext::crashed) and ends the op as
// `crashed`; run() then returns without another op.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend/ops/actor_caller.h"
#include "backend/world/world_state.h"

namespace allocsim::harness {

class ScriptRunner {
 public:
  // The backend as a friend, not through mutable_backend(): an actor's writes all reach ActorCaller::touch, so
  // the world reset may restore only what they wrote (world.h reset_world_storage).
  ScriptRunner(WorldState& w, sim::ActorContext& ctx, ActorState& st, const ActorSpec& spec)
      : w_(w), b_(w.backend_), ctx_(ctx), st_(st), spec_(spec), caller_(w, ctx, st) {}

  /// Runs every op of the script in order.
  void run();

  // -- primitives for the op table (ops.cpp) --

  /// A Call scheduling point named `what`, then the environment fault drawn at it (FaultSpec).
  void call(const char* what, std::string detail = {});
  /// An inventory read into the actor's state: "complete", "partial" or "unknown".
  const char* inventory(const std::optional<std::vector<std::string>>& scope);
  /// A plan over the last inventory (which must exist): "feasible" or "infeasible".
  const char* plan(const std::vector<RequestSpec>& requests);
  /// reserve() of `plan` with a fresh operation id: "claimed", "conflict" or "unknown".
  const char* reserve(const backend::FeasiblePlan& plan);
  /// One observe of the newest claim (which must exist): its status word, or "unknown".
  const char* observe_once();
  /// The static status word equal to `s`. Throws std::logic_error for a status the backend cannot give.
  static const char* status_word(const std::string& s);
  /// Blocks (a LockWait) until the actor named `flow` has finished or crashed; returns at once when no
  /// recover names it. Throws std::logic_error for a name that is not an actor (the loader resolves it).
  void wait_for_end(const std::string& flow);
  /// Renews the actor's lease when some leased recover names it (backend/world/leases.h): at every op start, and
  /// right after its own advance_clock.
  void renew_lease();
  /// The actor's newest claim held changed (a reserve claimed, a release forgot one): when another actor's bind names
  /// this actor's claim (CompiledScenario::claims_named), writes its claims object (kubelet_admission.h).
  void claims_changed();

  WorldState& world() { return w_; }
  backend::MemoryBackend& backend() { return b_; }
  sim::ActorContext& ctx() { return ctx_; }
  ActorState& state() { return st_; }
  ActorCaller& caller() { return caller_; }

 private:
  /// State caching: the actor's state at an op start, to the engine (and, under symmetry, to the world).
  void give_local_state();
  /// The actor's index in the world.
  size_t me() const;
  /// Op `k`, a write-behind (conditional_ops.h): marks it issued for its background actor; returns "issued".
  const char* issue(size_t k);
  /// The actor has passed op `k`, a write-behind, issued or skipped: it lets go of its background actor's gate.
  void pass_gate(size_t k);
  const char* run_op(const Op& op);
  void environment_fault();
  /// inventory / observe with an armed read fault applied (faulted_reads.cpp), when the scenario has read-fault
  /// ops: the backend lock first, then the live backend's answer or a faulted copy's.
  backend::Observation<backend::InventorySnapshot> faulted_inventory(
      const std::optional<std::vector<std::string>>& scope);
  backend::Observation<backend::ClaimObservation> faulted_observe(const std::string& claim_id);
  /// Keeps the envelope of answer `obs` of `call` for observation-envelope-complete; `value_gen` and
  /// `value_at` are the generation and time stamp inside the value ("" and the envelope's when it has none).
  template <class T>
  void remember_envelope(const char* call, const backend::Observation<T>& obs, std::string value_gen, double value_at);

  WorldState& w_;
  backend::MemoryBackend& b_;
  sim::ActorContext& ctx_;
  ActorState& st_;
  const ActorSpec& spec_;
  ActorCaller caller_;
  int retry_ = 0;  // the running op's retry (conditional_ops.h); 0 on its first attempt
};

}  // namespace allocsim::harness

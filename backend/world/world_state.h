// BackendWorld: the memory backend as a simulated world for sim/ (docs/DESIGN.md §1). One instance per
// execution, built from a compiled scenario: a copy of the prototype backend, the simulated backend lock,
// and one scripted actor per scenario actor.
//
// Contract:
// - Every op begins with a scheduling point (PointKind::Call) named after the call it makes, except ops
//   the actor already knows it must skip (no claim, no inventory, no plan): they record `skipped` without
//   calling anything. `reserve` with `requests` makes three calls (inventory, plan, reserve); `await`
//   makes one call per poll.
// - An actor may hold several claims (one per successful reserve). observe, await, mark_ready and
//   reconcile use the newest; release releases the oldest; with none held, release repeats the last
//   released claim (a duplicate release, backend/CONTRACT.md §1: released, "already released"); with none ever
//   released it is skipped.
// - Each backend barrier is a scheduling point (PointKind::Barrier); the backend's lock is a SimMutex.
// - Ids per actor: "<kind>-<actor>-<n>" from the actor's own counter (docs/DESIGN.md §3).
// - What an actor is told (a plan, an observation) is remembered until the end of the step, when
//   the invariants look at it (docs/DESIGN.md §2).
// - Faults (FaultSpec, scenario.h) are drawn right after the scheduling point they belong to, at the
//   start of the step: at a barrier, crash (sim::ActorCrash: the actor's stack unwinds, so a backend lock
//   it held is released by its LockGuard, as a real API server is not left locked by a dead client; the op
//   records `crashed`, later ops never run, and the actor returns, reported crashed, from the op's frame),
//   raise (InjectedError through the backend call: the op records `error`, the actor keeps what it knew
//   before the call and goes on) or drop_response (the call completes; the op records `unknown` and the
//   actor learns nothing from it). At a Call point, an
//   environment fault (fail_reads kind / fail_geometry node) applied through the backend's test hooks.
// - `recover` (ALLOC-033) waits for the recovered actor to end through a per-actor "life" SimMutex the
//   actor holds from its prologue until it finishes or crashes (RAII), so the wait is an ordinary LockWait.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/invariants/catalog.h"
#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"
#include "backend/world/dirty.h"
#include "backend/world/read_faults.h"
#include "sim/world.h"

namespace allocsim::harness {

struct WorldStorage;  // below

/// A scenario compiled once per run: the prototype backend every execution copies, and the enabled
/// invariants as catalog indices (in catalog order).
/// REQUIRES: used by one thread at a time (campaign::Compiled's contract): its worlds reuse the storage of
/// worlds that ended (`spare`), which is not synchronised.
struct CompiledScenario {
  const Scenario* scenario = nullptr;
  backend::MemoryBackend prototype;
  /// The prototype's state without its nodes: what a world reset copies whole (reset_world_storage); the nodes
  /// it restores one by one, those the previous execution wrote.
  backend::BackendState prototype_rest;
  std::vector<size_t> invariants;  // indices into invariant_catalog(), ascending; set through set_invariants()
  /// Of `invariants`, the rows a check after a step (not at quiescence) may run, in the same order, with the
  /// function an incremental check calls: check_incremental's per-step loop reads these few bytes a row
  /// rather than the catalog's rows. set_invariants() keeps the two in step.
  struct StepRow {
    InvariantSpec::Check check;
    uint32_t reads_kinds;
    bool per_node;
  };
  std::vector<StepRow> step_rows;
  /// Whether the invariants that read what check_invariants records after every step are checked: geometry
  /// writes (no-apply-under-later-workload, geometry-converges) and bound workloads (bound-workload-covered).
  /// Without them the recording is skipped.
  bool records_geometry_writes = false, records_bound_workloads = false;
  /// Sets `invariants` (indices into invariant_catalog(), ascending) and, from them, `step_rows` and the two
  /// flags above.
  void set_invariants(std::vector<size_t> rows);
  NodeIndex node_index;  // of the prototype's nodes (dirty.h: incremental invariants)
  StartMemo start_memo;  // the start state's verdict (dirty.h; invariants.h start_memo())
  bool checks(std::string_view invariant) const;
  /// The storage of worlds that have ended, reset in place by the next world (its containers keep their
  /// capacity, so an execution after the first few allocates little); one per world alive at once.
  mutable std::vector<std::unique_ptr<WorldStorage>> spare;
  /// Per actor: the footprint id of its "life" mutex when some `recover` op names it (world.h), else nullopt.
  std::vector<std::optional<uint64_t>> life_ids;
  bool read_fault_ops = false;  // some script has a stale_reads or partial_reads op
  CompiledScenario(const Scenario* sc, backend::MemoryBackend proto);
  ~CompiledScenario();
  CompiledScenario(const CompiledScenario&) = delete;
  CompiledScenario& operator=(const CompiledScenario&) = delete;
};

/// Builds the prototype. `extra_mutants` (from the command line) are added to the scenario's.
/// Throws ScenarioError for an unknown mutant name.
std::unique_ptr<CompiledScenario> compile(const Scenario& scenario, const std::vector<std::string>& extra_mutants);

/// The footprint id of backend object (`what`, `name`): XXH3-64 of the kind byte and the name, so ids
/// are stable across runs and machines (no addresses).
uint64_t object_id(backend::Obj what, std::string_view name);

/// The object every write to a node, claim, the shared map or the pointer also writes (DPOR's visibility
/// condition: invariants read several of them after every step; see ActorCaller::touch in actor_caller.cpp).
uint64_t invariant_visible_id();

/// The footprint id of actor `actor`'s last plan, which `plan_from` reserves of other actors read.
uint64_t actor_plan_id(std::string_view actor);

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

/// A `raise` fault (backend/CONTRACT.md §2 RaiseError): thrown from a barrier through the backend call, which
/// fails after its effects so far; the script runner turns it into outcome `error`.
struct InjectedError : std::runtime_error {
  explicit InjectedError(const std::string& barrier) : std::runtime_error("injected error at " + barrier) {}
};

/// Storage kept across an optional's emptying (issue 16): an ActorState field such as `plan` has a scratch
/// twin holding buffers while it is empty. stash() empties `slot` into `spare`; install() makes the freshly
/// filled `fresh` the slot's value and leaves the old value's buffers in `fresh` for the next fill.
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
  long id_counter = 0;
  int reserves = 0;  // operation ids <actor>:op<k>
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
  std::optional<std::pair<std::string, std::string>> last_released;
  int claims_held = 0;  // claimed minus released
  int claims_made = 0;
  std::string op_epoch;               // generation of the reserve/release running now (rollback-keeps-newer-owner)
  std::vector<const char*> outcomes;  // per script op: the outcome it ended in (nullptr = not reached)
  Told told;
  // -- scratch storage reused across executions (world.cpp reset_actor keeps it; never read as state) --
  backend::Observation<backend::InventorySnapshot> inventory_scratch;  // inventory_into's answer
  std::vector<backend::WorkloadRequest> requests_scratch;              // a plan's requests
  backend::PlanOutcome plan_scratch;              // plan_into's storage while `plan` is empty (ScriptRunner::plan)
  backend::ClaimObservation observation_scratch;  // try_reserve_into's answer (ScriptRunner::reserve)
  backend::ReserveLoss loss_scratch;              // try_reserve_into's lost CAS (ScriptRunner::reserve)
  backend::FeasiblePlan borrowed_plan_scratch;    // a plan_from reserve's copy of another actor's plan (ops.cpp)
  backend::ReleaseObservation release_scratch;    // release_into's answer (ops.cpp, release and recover)
  std::string detail_scratch;                     // the detail of the barrier being fired (ActorCaller::detail_buffer)
};

// -- per-execution harness state the invariants keep (invariants.cpp); BackendWorld names them too --

/// A node's owner epoch as of the previous check.
struct NodeShadow {
  std::optional<std::string> owner_epoch;
};
/// One label geometry write (invariants_geometry.cpp: no-apply-under-later-workload, geometry-converges).
struct GeometryWrite {
  std::string node;
  int64_t version = 0;                 // the node's resourceVersion right after the write
  double written_at = 0;               // fake clock then
  std::vector<std::string> workloads;  // workload ids holding the node then
  std::optional<double> applied_at;    // fake clock when its apply ran (success or failed); nullopt: not yet
};
/// A flow workload bound at the previous check (bound-workload-covered, invariants_capacity.cpp).
struct BoundWorkload {
  std::string node;
  std::string workload;
  bool covered = false;
};

/// Everything of a BackendWorld that owns heap memory, kept across executions in CompiledScenario::spare and
/// reset in place (reset_world_storage, below): a reset world equals a freshly built one, field for field.
struct WorldStorage {
  explicit WorldStorage(const backend::MemoryBackend& prototype) : backend(prototype) {}
  backend::MemoryBackend backend;
  /// The backend may hold writes the dirty set did not see (BackendWorld::mutable_backend() was handed out, or
  /// the storage is new): the next reset copies the whole prototype.
  bool untracked = true;
  std::vector<ActorState> actors;
  std::vector<uint32_t> barrier_hits;
  std::vector<std::string> original_configs;
  std::vector<NodeShadow> shadow;
  std::vector<GeometryWrite> geometry_writes;
  std::vector<BoundWorkload> bound_workloads;
  std::optional<backend::BackendState> audit_base;
  std::vector<std::string> stale_reserves;
  ReadFaults read_faults;
  InvariantMemo memo;
  // Per actor: held by the actor from its prologue until it ends, when some `recover` op names it; else null.
  // unique_ptr: a waiter keeps a pointer to the mutex, so it must not move.
  std::vector<std::unique_ptr<sim::SimMutex>> life;
};

/// Resets `s` to the state a world of `c` starts in: the backend as the prototype, fresh actors, empty invariant
/// bookkeeping. The backend costs what the previous execution wrote, not the size of the state: the prototype's
/// state apart from the nodes is copied whole (CompiledScenario::prototype_rest; claims, map, audit, clock, ... are
/// small at the start), the nodes only where the execution wrote (InvariantMemo::dirty.execution_nodes(), fed by
/// ActorCaller::touch), with their owner-epoch shadows. A full copy instead when unsure: `s.untracked`, a node
/// write no index resolved, or a node count other than the prototype's.
/// REQUIRES: `s` was made from `c.prototype` (storages are per compiled scenario); an execution changes no member
/// of MemoryBackend outside state() (the options never change after compile()).
void reset_world_storage(WorldStorage& s, const CompiledScenario& c);

class BackendWorld final : public sim::World {
  // First: the references below bind into the storage, so it is initialised before them.
  const CompiledScenario& c_;
  std::unique_ptr<WorldStorage> storage_;  // taken from c_.spare (or new), given back by the destructor

 public:
  explicit BackendWorld(const CompiledScenario& compiled);
  ~BackendWorld() override;
  BackendWorld(const BackendWorld&) = delete;
  BackendWorld& operator=(const BackendWorld&) = delete;
  /// The world object itself is recycled per thread (one spare block): explore() builds and destroys one
  /// per execution.
  static void* operator new(size_t bytes);
  static void operator delete(void* p, size_t bytes) noexcept;

  size_t actor_count() const override { return actors_.size(); }
  std::string_view actor_name(sim::ActorId id) const override { return actors_[id].name; }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override;
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override;
  /// check_step() without the invariant checks: what a step needs done whatever is checked (the read faults'
  /// views, what the actor was told). For a bench that measures the checks' share of a step.
  void end_step_unchecked(sim::ActorId actor);
  std::optional<sim::Violation> check_quiescent() override;
  const sim::OrderSpec* order() const override { return c_.scenario->order.empty() ? nullptr : &c_.scenario->order; }

  const backend::MemoryBackend& backend() const { return backend_; }
  /// For tests that edit the state by hand: the next world built from this one's storage copies the whole
  /// prototype (reset_world_storage), since such edits bypass the dirty set. The world's own actors reach the
  /// backend without it (ScriptRunner), so that their writes are tracked.
  backend::MemoryBackend& mutable_backend() {
    storage_->untracked = true;
    return backend_;
  }
  const std::vector<ActorState>& actors() const { return actors_; }
  std::vector<ActorState>& mutable_actors() { return actors_; }
  /// Fire counts per barrier, indexed like barrier_catalog().
  const std::vector<uint32_t>& barrier_hits() const { return barrier_hits_; }
  const CompiledScenario& compiled() const { return c_; }

  // -- used by the invariants (invariants.cpp) --
  using NodeShadow = harness::NodeShadow;
  using GeometryWrite = harness::GeometryWrite;
  using BoundWorkload = harness::BoundWorkload;
  /// Node owner epochs as of the previous check, and the audit length then.
  std::vector<NodeShadow>& shadow;
  size_t audit_seen = 0;
  /// Every label geometry write seen so far, in audit order (invariants_geometry.cpp: what
  /// no-apply-under-later-workload and geometry-converges judge); kept only while either is enabled.
  std::vector<GeometryWrite>& geometry_writes;
  /// Flow workloads (ids some script requests) bound at the previous check, and whether a live claim has
  /// granted each a device on its node since it was bound (bound-workload-covered, invariants_capacity.cpp).
  std::vector<BoundWorkload>& bound_workloads;
  /// The backend's state right after the latest foreign write (ops_foreign.cpp), if any. A foreign write is
  /// another controller's, never in the backend's audit log, so audit-explains-state replays the log from
  /// here rather than from the start state.
  std::optional<backend::BackendState>& audit_base;
  /// Reserve op ids whose expected generation was stale when called (stale-plan-writes-nothing).
  std::vector<std::string>& stale_reserves;
  /// The scenario's node configs at the start (no-orphaned-geometry's "recorded config").
  const std::vector<std::string>& original_configs() const { return original_configs_; }
  /// Faults fired so far in this execution (bounded by FaultSpec::max).
  int faults_fired() const { return faults_fired_; }
  /// stale_reads / partial_reads (read_faults.h): the armed faults and the history of read states.
  ReadFaults& read_faults;
  /// What the steps since the last check wrote, and the incremental checks' memo (dirty.h); in the storage,
  /// so its buffers are reused across executions.
  InvariantMemo& memo;

 private:
  friend class ActorCaller;
  friend class ScriptRunner;
  backend::MemoryBackend& backend_;
  sim::SimMutex lock_;
  std::vector<ActorState>& actors_;
  std::vector<uint32_t>& barrier_hits_;
  std::vector<std::string>& original_configs_;
  int faults_fired_ = 0;
  std::vector<std::unique_ptr<sim::SimMutex>>& life_;
};

}  // namespace allocsim::harness

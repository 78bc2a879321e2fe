// WorldState: the state of one execution of a compiled scenario (docs/DESIGN.md §1): a copy of the prototype
// backend, the simulated backend lock, one ActorState per scenario actor, and the shadows the invariants keep
// between checks. It has no sim::World behaviour: the actors' primitives (backend/ops/) write it, the
// invariants (backend/invariants/) read it, and the sim::World adapter that runs scripts and checks invariants
// (backend/system/backend_world.h BackendWorld) derives from it.
//
// Contract: a WorldState built from a compiled scenario equals a fresh one field for field, whether its storage
// is new or a spare reset in place (reset_world_storage); every write its actors make to the backend reaches
// ActorCaller::touch (so the next reset restores only what was written), except through mutable_backend().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"
#include "backend/world/actor_state.h"
#include "backend/world/admission_faults.h"
#include "backend/world/compiled_scenario.h"
#include "backend/world/dirty.h"
#include "backend/world/kubelet_admission.h"
#include "backend/world/leases.h"
#include "backend/world/name_split_memo.h"
#include "backend/world/object_history.h"
#include "backend/world/read_faults.h"
#include "sim/world.h"

namespace allocsim::harness {

// -- per-execution harness state the invariants keep (backend/invariants/); WorldState names them too --

/// A node's owner epoch as of the previous check.
struct NodeShadow {
  std::optional<std::string> owner_epoch;
};
/// One label geometry write (backend/invariants/geometry.cpp: no-apply-under-later-workload, geometry-converges).
struct GeometryWrite {
  std::string node;
  int64_t version = 0;                 // the node's resourceVersion right after the write
  double written_at = 0;               // fake clock then
  std::vector<std::string> workloads;  // workload ids holding the node then
  std::optional<double> applied_at;    // fake clock when its apply ran (success or failed); nullopt: not yet
};
/// A flow workload bound at the previous check (bound-workload-covered, backend/invariants/capacity.cpp).
struct BoundWorkload {
  std::string node;
  std::string workload;
  bool covered = false;
};

/// The config a start node had before the protocol carved it: its restore record when it starts on an allocsim
/// entry with one (a leftover claim's node, docs/DESIGN.md §4 "Start claims"), which is what a release puts
/// back; otherwise its start config.
inline std::string recorded_config(const backend::NodeFixture& n) {
  if (n.restore_record && n.mig_config.starts_with(backend::kEntryPrefix)) return *n.restore_record;
  return n.mig_config;
}

/// Everything of a world that owns heap memory, kept across executions in CompiledScenario::spare and
/// reset in place (reset_world_storage, below): a reset world equals a freshly built one, field for field.
struct WorldStorage {
  explicit WorldStorage(const backend::MemoryBackend& prototype) : backend(prototype) {}
  backend::MemoryBackend backend;
  /// The backend may hold writes the dirty set did not see (WorldState::mutable_backend() was handed out, or
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
  AdmissionFaults admission;
  Leases leases;
  PodResources pod_resources;
  ObjectHistories histories;
  InvariantMemo memo;
  // Per actor: held by the actor from its prologue until it ends, when some `recover` op names it; else null.
  // unique_ptr: a waiter keeps a pointer to the mutex, so it must not move.
  std::vector<std::unique_ptr<sim::SimMutex>> life;
  // Per actor: a write-behind's background actor's gate (conditional_ops.h), held by its issuer from its prologue
  // until it has passed the op; else null. unique_ptr, as `life`. And whether the issuer issued the op.
  std::vector<std::unique_ptr<sim::SimMutex>> gates;
  std::vector<char> issued;
  // Canonical states (state_digest.h), a cache only: per node, its object ids (node, failing-geometry hooks) and
  // the digest of its labels under the stamp they had (StampedLabels: equal stamps mean equal labels).
  struct NodeDigestMemo {
    uint64_t node_id = 0, hooks_id = 0;
    uint64_t label_stamp = 0, label_digest = 0;
    bool ids = false;
    // The same for the symmetric state: the labels' digest with holes, and the actors of its holes.
    uint64_t sym_label_stamp = 0, sym_label_digest = 0;
    std::vector<sim::ActorId> sym_label_refs;
  };
  std::vector<NodeDigestMemo> digest_memo;
  // The audit log's multiset digest over its first audit_digested entries (appends only within an execution;
  // reset_world_storage starts it again).
  uint64_t audit_digest = 0;
  size_t audit_digested = 0;
  // Symmetry (`dfs --reduction symmetry`, state_digest.h), recorded only while `symmetric`: each actor's state at
  // its latest op start as a digest with holes (sim/symmetry.h), and the claim ids steps touched (a claim touched
  // before it exists, or after its release, is named by them).
  struct OpStart {
    uint64_t h = 0;
    std::vector<sim::ActorId> refs;
  };
  bool symmetric = false;
  bool symmetric_engine = false;  // begin_symmetric_states: the engine reads local states from symmetric states
  std::vector<OpStart> op_starts;
  std::vector<OpStart> audit_parts;  // each audit entry's digest with holes, as far as computed (appends only)
  std::vector<std::string> touched_claims;
  NameSplitMemo name_splits;  // a cache only, kept across executions (its texts' digests never change)
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

class WorldState {
  // First: the references below bind into the storage, so it is initialised before them.
  const CompiledScenario& c_;
  std::unique_ptr<WorldStorage> storage_;  // taken from c_.spare (or new), given back by the destructor

 public:
  /// A fresh world of `compiled`: storage taken from its spare (or new) and reset (reset_world_storage).
  explicit WorldState(const CompiledScenario& compiled);
  ~WorldState();
  WorldState(const WorldState&) = delete;
  WorldState& operator=(const WorldState&) = delete;

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
  /// Fire counts per barrier, indexed like barrier_table().
  const std::vector<uint32_t>& barrier_hits() const { return barrier_hits_; }
  const CompiledScenario& compiled() const { return c_; }
  /// Whether the exploration takes states up to symmetry (symmetric_state(), state_digest.h, has been called).
  bool symmetric() const { return storage_->symmetric; }
  /// Whether the engine exploring this execution takes states up to symmetry (begin_symmetric_states(),
  /// state_digest.h): it then reads each actor's local state from the symmetric state alone (sim/world.h).
  bool symmetric_engine() const { return storage_->symmetric_engine; }

  // -- used by the invariants (backend/invariants/) --
  using NodeShadow = harness::NodeShadow;
  using GeometryWrite = harness::GeometryWrite;
  using BoundWorkload = harness::BoundWorkload;
  /// Node owner epochs as of the previous check, and the audit length then.
  std::vector<NodeShadow>& shadow;
  size_t audit_seen = 0;
  /// Every label geometry write seen so far, in audit order (backend/invariants/geometry.cpp: what
  /// no-apply-under-later-workload and geometry-converges judge); kept only while either is enabled.
  std::vector<GeometryWrite>& geometry_writes;
  /// Flow workloads (ids some script requests) bound at the previous check, and whether a live claim has
  /// granted each a device on its node since it was bound (bound-workload-covered, backend/invariants/capacity.cpp).
  std::vector<BoundWorkload>& bound_workloads;
  /// The backend's state right after the latest foreign write (backend/ops/op_foreign.cpp), if any. A foreign write is
  /// another controller's, never in the backend's audit log, so audit-explains-state replays the log from
  /// here rather than from the start state.
  std::optional<backend::BackendState>& audit_base;
  /// Reserve op ids whose expected generation was stale when called (stale-plan-writes-nothing).
  std::vector<std::string>& stale_reserves;
  /// recorded_config() of each node of the start state (no-orphaned-geometry's "recorded config").
  const std::vector<std::string>& original_configs() const { return original_configs_; }
  /// Faults fired so far in this execution (bounded by FaultSpec::max).
  int faults_fired() const { return faults_fired_; }
  /// stale_reads / partial_reads (read_faults.h): the armed faults and the history of read states.
  ReadFaults& read_faults;
  /// reject_binds (admission_faults.h): the binds each node's kubelet still refuses.
  AdmissionFaults& admission;
  /// recover with lease_seconds (leases.h): each leased flow's last renewal.
  Leases& leases;
  /// bind_workload with resource or claim (kubelet_admission.h): the pods that hold something other than whole cards.
  PodResources& pod_resources;
  /// The version history of the shared objects (object_history.h: no-lost-update, write-advances-version); kept only
  /// while one of them is checked.
  ObjectHistories& histories;
  /// What the steps since the last check wrote, and the incremental checks' memo (dirty.h); in the storage,
  /// so its buffers are reused across executions.
  InvariantMemo& memo;

 protected:
  // The actor's primitives (backend/ops/) reach these as friends, the sim::World adapter
  // (backend/system/backend_world.h) as the derived class.
  friend class ActorCaller;
  friend class ScriptRunner;
  friend void canonical_state(const WorldState& w, sim::CanonicalState& out);  // state_digest.h
  friend void symmetric_state(WorldState& w, sim::SymmetricState& out);        // state_digest.h
  friend void record_op_start(WorldState& w, const ActorState& a);             // state_digest.h
  friend void begin_symmetric_states(WorldState& w);                           // state_digest.h
  friend void note_touched_claim(WorldState& w, std::string_view id);          // state_digest.h
  backend::MemoryBackend& backend_;
  sim::SimMutex lock_;
  std::vector<ActorState>& actors_;
  std::vector<uint32_t>& barrier_hits_;
  std::vector<std::string>& original_configs_;
  int faults_fired_ = 0;
  std::vector<std::unique_ptr<sim::SimMutex>>& life_;
  std::vector<std::unique_ptr<sim::SimMutex>>& gates_;
  std::vector<char>& issued_;
};

}  // namespace allocsim::harness

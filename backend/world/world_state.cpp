#include "backend/world/world_state.h"

#include <utility>

#include "backend/model/barriers.h"
#include "backend/world/object_ids.h"

namespace allocsim::harness {

// Here rather than in compiled_scenario.cpp: both destroy the spare storages, which needs WorldStorage whole.
CompiledScenario::CompiledScenario(const Scenario* sc, backend::MemoryBackend proto)
    : scenario(sc), prototype(std::move(proto)) {}
CompiledScenario::~CompiledScenario() = default;

void reset_told(Told& t, backend::ClaimObservation& spare) {
  static_assert(sizeof(Told) == 456, "Told changed: reset the new field in reset_told");
  t.plan_feasible.reset();
  t.plan_from_failed_pods = false;
  stash(t.observation, spare);
  t.recovered_flow.reset();
  t.envelope.reset();
}

namespace {

/// `a` as a fresh ActorState for actor `spec`, field by field: every field gets the value ActorState{} gives
/// it, and the scratch fields, its name, held claims and outcomes keep their buffers. Not `a = ActorState{}`:
/// building and move-assigning a whole ActorState cost more than the rest of a world reset (docs/DESIGN.md §2:
/// the reset costs what the previous execution wrote).
void reset_actor(ActorState& a, const ActorSpec& spec) {
  static_assert(sizeof(ActorState) == 2232, "ActorState changed: reset the new field in reset_actor");
  a.name.assign(spec.name);
  a.owner.assign(spec.identity());
  a.id_counter = 0;
  a.reserves = 0;
  a.releases = 0;
  a.recovers = 0;
  a.op_index = 0;
  a.crashed = nullptr;
  stash(a.inventory, a.inventory_scratch.value);  // ScriptRunner::inventory installs it back
  a.inventory_with_failed_pods = false;
  stash(a.plan, a.plan_scratch);  // ScriptRunner::plan takes it back
  a.plan_with_failed_pods = false;
  a.claim_id.reset();
  a.claim_generation.clear();
  a.held.clear();
  a.last_released.reset();
  a.claims_held = 0;
  a.claims_made = 0;
  a.op_epoch.clear();
  a.outcomes.assign(spec.script.size(), nullptr);
  reset_told(a.told, a.observation_scratch);
}

/// The backend as the prototype (copy-assigned, so containers keep their capacity), with the owner-epoch shadows
/// and recorded configs of its nodes: only the nodes the previous execution wrote, unless unsure (world_state.h).
void reset_backend(WorldStorage& s, const CompiledScenario& c) {
  const auto& proto = c.prototype.state().nodes;
  backend::BackendState& st = s.backend.mutable_state();
  const DirtySet& written = s.memo.dirty;
  if (s.untracked || written.execution_unresolved() || st.nodes.size() != proto.size()) {
    s.backend = c.prototype;
    s.shadow.resize(proto.size());
    s.original_configs.resize(proto.size());
    for (size_t i = 0; i < proto.size(); ++i) {
      s.shadow[i].owner_epoch = proto[i].owner_epoch;
      s.original_configs[i] = recorded_config(proto[i]);
    }
    s.untracked = false;
    return;
  }
  // Everything but the nodes whole (any field BackendState gains is reset too), the nodes kept in place.
  std::vector<backend::NodeFixture> nodes = std::move(st.nodes);
  s.backend.recycle_state();  // the buffers of claims, audit and map entries serve the next execution's
  st = c.prototype_rest;
  st.nodes = std::move(nodes);
  // A node no step wrote still equals the prototype's, and so does its shadow (check_invariants copies a node's
  // owner epoch only from the state). The recorded configs never change.
  written.execution_nodes().each([&](uint32_t i) {
    st.nodes[i] = proto[i];
    s.shadow[i].owner_epoch = proto[i].owner_epoch;
  });
}

/// Per actor, an unlocked SimMutex with its footprint id where `ids` has one, and none elsewhere; a mutex kept from
/// the last execution is reset in place (a waiter keeps a pointer to it, so it never moves).
void reset_mutexes(std::vector<std::unique_ptr<sim::SimMutex>>& mutexes,
                   const std::vector<std::optional<uint64_t>>& ids) {
  mutexes.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i])
      mutexes[i].reset();
    else if (!mutexes[i])
      mutexes[i] = std::make_unique<sim::SimMutex>(*ids[i]);
    else
      *mutexes[i] = sim::SimMutex(*ids[i]);  // unlocked, as new
  }
}

}  // namespace

void reset_world_storage(WorldStorage& s, const CompiledScenario& c) {
  const Scenario& sc = *c.scenario;
  reset_backend(s, c);
  s.actors.resize(sc.actors.size());
  for (size_t i = 0; i < sc.actors.size(); ++i) reset_actor(s.actors[i], sc.actors[i]);
  s.barrier_hits.assign(backend::barrier_table().size(), 0);
  s.audit_digest = 0, s.audit_digested = 0;
  s.symmetric = false;
  s.symmetric_engine = false;
  s.op_starts.resize(sc.actors.size());
  for (WorldStorage::OpStart& o : s.op_starts) o.h = 0, o.refs.clear();
  s.touched_claims.clear();
  s.audit_parts.clear();
  reset_mutexes(s.life, c.life_ids);
  reset_mutexes(s.gates, c.gate_ids);
  s.issued.assign(sc.actors.size(), 0);
  s.geometry_writes.clear();
  s.bound_workloads.clear();
  s.audit_base.reset();
  s.stale_reserves.clear();
  // ReadFaults{} field by field: a fresh std::deque allocates its map even when empty.
  ReadFaults& f = s.read_faults;
  f.enabled = c.read_fault_ops;
  f.writes = f.recorded = 0;
  f.history.clear();
  f.stale_writes = f.stale_reads = 0;
  f.partial_workloads.clear();
  f.partial_devices.clear();
  f.partial_reads = 0;
  if (f.enabled) f.start(s.backend.state());
  s.admission.enabled = c.admission_fault_ops;
  s.admission.refused.clear();
  s.leases.enabled = !c.leased.empty();
  s.leases.leased = c.leased;
  s.leases.renewed_at.assign(c.leased.size(), s.backend.state().clock.monotonic());
  s.pod_resources.held.clear();
  s.histories.reset(c.records_histories, s.backend.state(), s.actors);
  s.memo.reset(s.backend.state().nodes.size());  // last: the backend's reset read what the execution wrote
}

namespace {

std::unique_ptr<WorldStorage> take_storage(const CompiledScenario& c) {
  std::unique_ptr<WorldStorage> s;
  if (c.spare.empty()) {
    s = std::make_unique<WorldStorage>(c.prototype);
  } else {
    s = std::move(c.spare.back());
    c.spare.pop_back();
  }
  reset_world_storage(*s, c);
  return s;
}

uint64_t backend_lock_id() {
  static const uint64_t id = object_id(backend::Obj::Lock, "backend");
  return id;
}

}  // namespace

WorldState::WorldState(const CompiledScenario& c)
    : c_(c),
      storage_(take_storage(c)),
      shadow(storage_->shadow),
      geometry_writes(storage_->geometry_writes),
      bound_workloads(storage_->bound_workloads),
      audit_base(storage_->audit_base),
      stale_reserves(storage_->stale_reserves),
      read_faults(storage_->read_faults),
      admission(storage_->admission),
      leases(storage_->leases),
      pod_resources(storage_->pod_resources),
      histories(storage_->histories),
      memo(storage_->memo),
      backend_(storage_->backend),
      lock_(backend_lock_id()),
      actors_(storage_->actors),
      barrier_hits_(storage_->barrier_hits),
      original_configs_(storage_->original_configs),
      life_(storage_->life),
      gates_(storage_->gates),
      issued_(storage_->issued) {
  audit_seen = backend_.state().audit.size();
}

WorldState::~WorldState() { c_.spare.push_back(std::move(storage_)); }

}  // namespace allocsim::harness

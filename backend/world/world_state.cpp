#include "backend/world/world_state.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <utility>

#include <xxhash.h>
#include "backend/invariants/catalog.h"
#include "backend/invariants/check.h"
#include "backend/model/barriers.h"
#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_state.h"

namespace allocsim::harness {

bool CompiledScenario::checks(std::string_view invariant) const {
  for (size_t i : invariants)
    if (invariant == invariant_catalog()[i].name) return true;
  return false;
}

std::unique_ptr<CompiledScenario> compile(const Scenario& sc, const std::vector<std::string>& extra_mutants) {
  backend::BackendOptions opt;
  opt.authority = sc.authority;
  opt.mig_apply_seconds = sc.mig_apply_seconds;
  std::vector<std::string> names = sc.mutants;
  names.insert(names.end(), extra_mutants.begin(), extra_mutants.end());
  for (const std::string& m : names) {
    auto id = backend::mutant_by_name(m);
    if (!id) throw ScenarioError(sc.path, "/backend/mutants", fmt::format("unknown mutant \"{}\"", m));
    opt.mutants.add(*id);
  }
  std::vector<backend::NodeFixture> nodes;
  for (const NodeSpec& n : sc.nodes) {
    backend::NodeFixture f;
    f.name = n.name;
    f.product = n.product;
    f.gpu_count = n.gpu_count;
    f.memory_gib = n.memory_gib;
    f.labels = n.labels;
    f.workloads = n.workloads;
    f.mig_config = n.mig_config;
    nodes.push_back(std::move(f));
  }
  auto c = std::make_unique<CompiledScenario>(&sc, backend::MemoryBackend(std::move(nodes), opt));
  apply_start_state(sc, c->prototype.mutable_state());  // scenario_state.h: harness-only, after the seed's init
  c->node_index = NodeIndex(c->prototype.state().nodes);
  c->prototype_rest = c->prototype.state();
  c->prototype_rest.nodes.clear();
  const auto& cat = invariant_catalog();
  std::vector<size_t> chosen;
  for (size_t i = 0; i < cat.size(); ++i) {
    bool on = sc.invariants.empty();
    for (const std::string& name : sc.invariants) on |= name == cat[i].name;
    if (on) chosen.push_back(i);
  }
  c->set_invariants(std::move(chosen));
  c->life_ids.resize(sc.actors.size());
  for (const ActorSpec& a : sc.actors)
    for (const Op& op : a.script) {
      c->read_fault_ops |= op.kind == OpKind::StaleReads || op.kind == OpKind::PartialReads;
      if (op.kind != OpKind::Recover) continue;
      for (size_t i = 0; i < sc.actors.size(); ++i)
        if (sc.actors[i].name == op.flow && !c->life_ids[i])
          c->life_ids[i] = object_id(backend::Obj::Lock, "life:" + op.flow);
    }
  c->start_memo = start_memo(*c);  // invariants.h: after the invariants are chosen
  return c;
}

CompiledScenario::CompiledScenario(const Scenario* sc, backend::MemoryBackend proto)
    : scenario(sc), prototype(std::move(proto)) {}
CompiledScenario::~CompiledScenario() = default;

void CompiledScenario::set_invariants(std::vector<size_t> rows) {
  const auto& cat = invariant_catalog();
  invariants = std::move(rows);
  step_rows.clear();
  for (const size_t i : invariants)
    if (cat[i].check != nullptr && !cat[i].quiescent_only)
      step_rows.push_back(
          {cat[i].incremental ? cat[i].incremental : cat[i].check, cat[i].reads_kinds, cat[i].per_node});
  records_geometry_writes = checks("no-apply-under-later-workload") || checks("geometry-converges");
  records_bound_workloads = checks("bound-workload-covered");
}

uint64_t object_id(backend::Obj what, std::string_view name) {
  // XXH3-64 of the kind byte followed by the name, in one shot from a stack buffer: the same value as
  // streaming the two parts, without the heap-allocated streaming state (touch() runs several times a step).
  const auto kind = static_cast<unsigned char>(what);
  char buf[128];
  if (name.size() < sizeof buf) {
    buf[0] = static_cast<char>(kind);
    if (!name.empty()) std::memcpy(buf + 1, name.data(), name.size());
    return XXH3_64bits(buf, 1 + name.size());
  }
  std::string joined(1, static_cast<char>(kind));
  joined += name;
  return XXH3_64bits(joined.data(), joined.size());
}

uint64_t invariant_visible_id() {
  static const uint64_t id = object_id(backend::Obj::AllNodes, "\x1finvariant-visible");
  return id;
}

namespace {
uint64_t backend_lock_id() {
  static const uint64_t id = object_id(backend::Obj::Lock, "backend");
  return id;
}
}  // namespace

uint64_t actor_plan_id(std::string_view actor) {
  // Harness-side state other actors read (`plan_from`): a kind byte outside backend::Obj, so no clash.
  return object_id(static_cast<backend::Obj>(0xF0), actor);
}

namespace {

/// `t` as a fresh Told, its observation's storage kept in `spare` (ScriptRunner::reserve installs it back).
void reset_told(Told& t, backend::ClaimObservation& spare) {
  static_assert(sizeof(Told) == 456, "Told changed: reset the new field in reset_told");
  t.plan_feasible.reset();
  t.plan_from_failed_pods = false;
  stash(t.observation, spare);
  t.recovered_flow.reset();
  t.envelope.reset();
}

/// `a` as a fresh ActorState for actor `spec`, field by field: every field gets the value ActorState{} gives
/// it, and the scratch fields, its name, held claims and outcomes keep their buffers. Not `a = ActorState{}`:
/// building and move-assigning a whole ActorState cost more than the rest of a world reset (issue 16).
void reset_actor(ActorState& a, const ActorSpec& spec) {
  static_assert(sizeof(ActorState) == 2200, "ActorState changed: reset the new field in reset_actor");
  a.name.assign(spec.name);
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
/// and recorded configs of its nodes: only the nodes the previous execution wrote, unless unsure (world.h).
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
      s.original_configs[i] = proto[i].mig_config;
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

}  // namespace

void reset_world_storage(WorldStorage& s, const CompiledScenario& c) {
  const Scenario& sc = *c.scenario;
  reset_backend(s, c);
  s.actors.resize(sc.actors.size());
  for (size_t i = 0; i < sc.actors.size(); ++i) reset_actor(s.actors[i], sc.actors[i]);
  s.barrier_hits.assign(backend::barrier_catalog().size(), 0);
  s.life.resize(sc.actors.size());
  for (size_t i = 0; i < sc.actors.size(); ++i) {
    if (!c.life_ids[i])
      s.life[i].reset();
    else if (!s.life[i])
      s.life[i] = std::make_unique<sim::SimMutex>(*c.life_ids[i]);
    else
      *s.life[i] = sim::SimMutex(*c.life_ids[i]);  // unlocked, as new
  }
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
  f.partial_reads = 0;
  if (f.enabled) f.start(s.backend.state());
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

/// One spare block per thread for the world object itself (BackendWorld::operator new).
struct SpareBlock {
  void* p = nullptr;
  size_t bytes = 0;
  // Unsized: clang (the fuzz build) declares the sized global delete only with -fsized-deallocation.
  ~SpareBlock() { ::operator delete(p); }
};
thread_local SpareBlock spare_block;

}  // namespace

BackendWorld::BackendWorld(const CompiledScenario& c)
    : c_(c),
      storage_(take_storage(c)),
      shadow(storage_->shadow),
      geometry_writes(storage_->geometry_writes),
      bound_workloads(storage_->bound_workloads),
      audit_base(storage_->audit_base),
      stale_reserves(storage_->stale_reserves),
      read_faults(storage_->read_faults),
      memo(storage_->memo),
      backend_(storage_->backend),
      lock_(backend_lock_id()),
      actors_(storage_->actors),
      barrier_hits_(storage_->barrier_hits),
      original_configs_(storage_->original_configs),
      life_(storage_->life) {
  audit_seen = backend_.state().audit.size();
}

BackendWorld::~BackendWorld() { c_.spare.push_back(std::move(storage_)); }

void* BackendWorld::operator new(size_t bytes) {
  if (spare_block.p != nullptr && spare_block.bytes == bytes) return std::exchange(spare_block.p, nullptr);
  return ::operator new(bytes);
}

void BackendWorld::operator delete(void* p, size_t bytes) noexcept {
  if (spare_block.p == nullptr) {
    spare_block.p = p;
    spare_block.bytes = bytes;
    return;
  }
  ::operator delete(p);
}

namespace {

/// Holds an actor's life mutex for the actor's whole run; released on return and on a crash's unwinding.
class LifeGuard {
 public:
  LifeGuard(sim::SimMutex* m, sim::ActorContext& ctx) : m_(m) {
    if (m_) m_->lock(ctx);  // in the prologue: uncontended, so not a scheduling point
  }
  ~LifeGuard() {
    if (m_) m_->unlock();
  }
  LifeGuard(const LifeGuard&) = delete;
  LifeGuard& operator=(const LifeGuard&) = delete;

 private:
  sim::SimMutex* m_;
};

}  // namespace

void BackendWorld::run_actor(sim::ActorId id, sim::ActorContext& ctx) {
  const LifeGuard life(life_[id].get(), ctx);
  ScriptRunner(*this, ctx, actors_[id], c_.scenario->actors[id]).run();
}

std::optional<sim::Violation> BackendWorld::check_step(uint64_t, sim::ActorId actor) {
  if (read_faults.enabled) read_faults.after_step(backend_.state());
  auto v = check_invariants(*this, actor, false);
  ActorState& a = actors_[actor];
  reset_told(a.told, a.observation_scratch);  // what it was told answered this step only
  return v;
}

void BackendWorld::end_step_unchecked(sim::ActorId actor) {
  if (read_faults.enabled) read_faults.after_step(backend_.state());
  ActorState& a = actors_[actor];
  reset_told(a.told, a.observation_scratch);
}

std::optional<sim::Violation> BackendWorld::check_quiescent() { return check_invariants(*this, sim::kNoActor, true); }

}  // namespace allocsim::harness

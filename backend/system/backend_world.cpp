#include "backend/system/backend_world.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "backend/invariants/check.h"
#include "backend/invariants/invariant_table.h"
#include "backend/ops/script_runner.h"
#include "backend/system/op_level.h"
#include "backend/world/state_digest.h"

namespace allocsim::harness {

namespace {

bool chosen(const Scenario& sc, std::string_view invariant) {
  if (sc.invariants.empty()) return true;
  return std::find(sc.invariants.begin(), sc.invariants.end(), invariant) != sc.invariants.end();
}

}  // namespace

bool checks_ops_atomic(const Scenario& sc) { return chosen(sc, "ops-atomic"); }

std::unique_ptr<CompiledScenario> compile(const Scenario& sc, const std::vector<std::string>& extra_mutants) {
  std::unique_ptr<CompiledScenario> c = compile_prototype(sc, extra_mutants);
  const auto& cat = invariant_table();
  std::vector<size_t> rows;
  for (size_t i = 0; i < cat.size(); ++i)
    if (chosen(sc, cat[i].name)) rows.push_back(i);
  set_invariants(*c, std::move(rows));
  c->start_memo = start_memo(*c);  // backend/invariants/check.h: after the invariants are chosen
  if (checks_ops_atomic(sc)) c->op_level = op_level_results(sc, extra_mutants, sc.op_level_bound);
  return c;
}

namespace {

/// One spare block per thread for the world object itself (BackendWorld::operator new).
struct SpareBlock {
  void* p = nullptr;
  size_t bytes = 0;
  // Unsized delete: valid whatever size the block was allocated with.
  ~SpareBlock() { ::operator delete(p); }
};
thread_local SpareBlock spare_block;

}  // namespace

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

/// Holds the gates of an actor's write-behind ops (backend/scenario/conditional_ops.h) from its prologue; the script
/// runner lets each go once the actor has passed its op, and this lets go of the rest when the actor ends or crashes
/// (its background actors then find their ops not issued).
class GatesGuard {
 public:
  GatesGuard(const std::vector<size_t>& held, std::vector<std::unique_ptr<sim::SimMutex>>& gates, sim::ActorId id,
             sim::ActorContext& ctx)
      : held_(held), gates_(gates), id_(id) {
    for (const size_t b : held_) gates_[b]->lock(ctx);  // in the prologue, before any background actor: uncontended
  }
  ~GatesGuard() {
    for (const size_t b : held_)
      if (gates_[b]->holder() == id_) gates_[b]->unlock();
  }
  GatesGuard(const GatesGuard&) = delete;
  GatesGuard& operator=(const GatesGuard&) = delete;

 private:
  const std::vector<size_t>& held_;
  std::vector<std::unique_ptr<sim::SimMutex>>& gates_;
  sim::ActorId id_;
};

}  // namespace

void BackendWorld::run_actor(sim::ActorId id, sim::ActorContext& ctx) {
  const LifeGuard life(life_[id].get(), ctx);
  const GatesGuard gates(compiled().gates_held[id], gates_, id, ctx);
  if (sim::SimMutex* gate = gates_[id].get()) {  // a background actor: waits (a lock wait) for its issuer to pass
    gate->lock(ctx);
    gate->unlock();
  }
  ScriptRunner(*this, ctx, actors_[id], compiled().scenario->actors[id]).run();
}

std::optional<sim::Violation> BackendWorld::check_step(uint64_t step, sim::ActorId actor) {
  if (read_faults.enabled) read_faults.after_step(backend().state());
  if (histories.enabled) histories.after_step(backend().state(), compiled().node_index, actors(), step);
  auto v = check_invariants(*this, actor, false);
  ActorState& a = mutable_actors()[actor];
  reset_told(a.told, a.observation_scratch);  // what it was told answered this step only
  return v;
}

void BackendWorld::end_step_unchecked(sim::ActorId actor) {
  if (read_faults.enabled) read_faults.after_step(backend().state());
  ActorState& a = mutable_actors()[actor];
  reset_told(a.told, a.observation_scratch);
}

bool BackendWorld::canonical_state(sim::CanonicalState& out) {
  harness::canonical_state(*this, out);
  return true;
}

std::vector<std::vector<sim::ActorId>> BackendWorld::interchangeable_actors() const {
  if (compiled().atomic_ops) return {};
  return compiled().symmetry().classes;
}

bool BackendWorld::symmetric_state(sim::SymmetricState& out) {
  harness::symmetric_state(*this, out);
  return true;
}

bool BackendWorld::begin_symmetric_states() {
  harness::begin_symmetric_states(*this);
  return true;
}

std::optional<sim::Violation> BackendWorld::check_quiescent() { return check_invariants(*this, sim::kNoActor, true); }

}  // namespace allocsim::harness

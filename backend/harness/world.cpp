#include "backend/harness/world.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include <xxhash.h>
#include "backend/harness/catalog.h"
#include "backend/harness/invariants.h"
#include "backend/harness/scenario_state.h"
#include "backend/harness/script_runner.h"

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
  auto c =
      std::unique_ptr<CompiledScenario>(new CompiledScenario{&sc, backend::MemoryBackend(std::move(nodes), opt), {}});
  apply_start_state(sc, c->prototype.mutable_state());  // scenario_state.h: harness-only, after the seed's init
  const auto& cat = invariant_catalog();
  for (size_t i = 0; i < cat.size(); ++i) {
    bool on = sc.invariants.empty();
    for (const std::string& name : sc.invariants) on |= name == cat[i].name;
    if (on) c->invariants.push_back(i);
  }
  return c;
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

uint64_t actor_plan_id(std::string_view actor) {
  // Harness-side state other actors read (`plan_from`): a kind byte outside backend::Obj, so no clash.
  return object_id(static_cast<backend::Obj>(0xF0), actor);
}

BackendWorld::BackendWorld(const CompiledScenario& c)
    : c_(c), backend_(c.prototype), lock_(object_id(backend::Obj::Lock, "backend")) {
  const Scenario& sc = *c.scenario;
  actors_.resize(sc.actors.size());
  for (size_t i = 0; i < sc.actors.size(); ++i) {
    actors_[i].name = sc.actors[i].name;
    actors_[i].outcomes.assign(sc.actors[i].script.size(), nullptr);
  }
  barrier_hits_.assign(barrier_catalog().size(), 0);
  life_.resize(sc.actors.size());
  for (const ActorSpec& a : sc.actors)
    for (const Op& op : a.script)
      if (op.kind == OpKind::Recover)
        for (size_t i = 0; i < sc.actors.size(); ++i)
          if (sc.actors[i].name == op.flow && !life_[i])
            life_[i] = std::make_unique<sim::SimMutex>(object_id(backend::Obj::Lock, "life:" + op.flow));
  for (const auto& n : backend_.state().nodes) {
    shadow.push_back({n.owner_epoch});
    original_configs_.push_back(n.mig_config);
  }
  audit_seen = backend_.state().audit.size();
  for (const ActorSpec& a : sc.actors)
    for (const Op& op : a.script)
      read_faults.enabled |= op.kind == OpKind::StaleReads || op.kind == OpKind::PartialReads;
  if (read_faults.enabled) read_faults.start(backend_.state());
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
  actors_[actor].told = Told{};
  return v;
}

std::optional<sim::Violation> BackendWorld::check_quiescent() { return check_invariants(*this, sim::kNoActor, true); }

}  // namespace allocsim::harness

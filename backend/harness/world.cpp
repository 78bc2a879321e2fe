#include "backend/harness/world.h"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "backend/errors.h"
#include "backend/harness/catalog.h"
#include "backend/harness/invariants.h"
#include <xxhash.h>

namespace allocsim::harness {

using backend::ClaimObservation;
using backend::FeasiblePlan;
using backend::OwnershipConflict;
using sim::PointKind;

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
  auto c = std::unique_ptr<CompiledScenario>(
      new CompiledScenario{&sc, backend::MemoryBackend(std::move(nodes), opt), {}});
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

// The Caller an actor hands the backend: barriers and the lock become scheduling points, ids come
// from the actor's own counter.
class ActorCaller final : public backend::Caller {
 public:
  ActorCaller(BackendWorld& w, sim::ActorContext& ctx, ActorState& st) : w_(w), ctx_(ctx), st_(st) {}

  backend::BarrierHit barrier(std::string_view name, std::string detail) override {
    const auto& cat = barrier_catalog();
    for (size_t i = 0; i < cat.size(); ++i) {
      if (name != cat[i].name) continue;
      ++w_.barrier_hits_[i];
      ctx_.point(PointKind::Barrier, cat[i].name, std::move(detail));  // catalog names are static
      return fault_at(cat[i].name);
    }
    // The seed's faults.barrier raises UnknownBarrier for a name outside BARRIERS.
    throw std::invalid_argument(fmt::format("unknown barrier '{}'", name));
  }
  void lock() override { w_.lock_.lock(ctx_); }
  void unlock() override { w_.lock_.unlock(); }
  void touch(backend::Obj what, std::string_view name, bool write) override {
    // Audit appends commute: no invariant reads the log's order, only the entries a step added, so
    // treating appends as conflicting writes would make every pair of mutating steps dependent.
    if (what == backend::Obj::Audit) return;
    ctx_.touch(object_id(what, name), write);
    // The visibility condition (DESIGN.md §2): invariants are checked after every step, and several read more
    // than one object (single-ownership: nodes and claims; no-orphaned-geometry: nodes, claims and the map;
    // shared-map-never-deleted: the map and the pointer; stale-plan-writes-nothing: claims). Two steps that
    // write different ones of those commute in their final state but not in the state checked between them,
    // so a write to any of them also writes one shared object, making such writes dependent. Conservative
    // (soundness over reduction); reads, and writes of the clock, read-failure flags and failing-geometry
    // set (which no invariant reads), stay independent.
    if (write && (what == backend::Obj::Node || what == backend::Obj::Claim || what == backend::Obj::SharedMap ||
                  what == backend::Obj::Pointer))
      ctx_.touch(invariant_visible_id(), true);
  }
  std::string next_id(std::string_view kind) override {
    std::string id = fmt::format("{}-{}-{}", kind, st_.name, ++st_.id_counter);
    if (kind == "gen") st_.op_epoch = id;
    return id;
  }

  /// Set when a drop_response fault fired during the current op (the script runner clears it per op).
  bool dropped = false;

 private:
  /// The fault choice at barrier `barrier` (FaultSpec): a draw over {none, its actions} while under the
  /// bound. Crash and raise throw; drop_response marks the op and lets the call complete.
  backend::BarrierHit fault_at(const char* barrier) {
    const FaultSpec& f = w_.c_.scenario->faults;
    if (w_.faults_fired_ >= f.max || !f.eligible(st_.name)) return {};
    const auto* actions = backend::find_in(f.barriers, std::string_view(barrier));
    if (actions == nullptr) return {};
    const uint64_t v = ctx_.draw(1 + actions->size());
    if (v == 0) return {};
    ++w_.faults_fired_;
    const FaultAction action = (*actions)[v - 1];
    ctx_.note(fmt::format("fault={}", fault_action_name(action)));
    switch (action) {
      case FaultAction::Crash:
        st_.crashed = barrier;
        st_.outcomes[st_.op_index] = "crashed";  // run() never gets to assign this op's outcome
        throw sim::ActorCrash{barrier};
      case FaultAction::Raise: throw InjectedError(barrier);
      case FaultAction::DropResponse: dropped = true; return {.drop_response = true};
    }
    return {};
  }

  BackendWorld& w_;
  sim::ActorContext& ctx_;
  ActorState& st_;
};

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
}

namespace {

std::vector<backend::WorkloadRequest> to_requests(const std::string& flow, const std::vector<RequestSpec>& specs) {
  std::vector<backend::WorkloadRequest> out;
  for (const RequestSpec& r : specs) {
    backend::WorkloadRequest w;
    w.flow_id = flow;
    w.workload_id = r.workload;
    w.device_count = r.devices;
    w.sharing = r.sharing;
    if (r.minimum_usable_memory_gib)
      w.minimum_usable_memory_bytes = static_cast<int64_t>(*r.minimum_usable_memory_gib * double(backend::kGiB));
    out.push_back(std::move(w));
  }
  return out;
}

std::string op_detail(const Op& op) {
  switch (op.kind) {
    case OpKind::BindWorkload: return fmt::format("node={} workload={} units={}", op.node, op.workload, op.units);
    case OpKind::UnbindWorkload: return fmt::format("node={} workload={}", op.node, op.workload);
    case OpKind::FailReads:
    case OpKind::RestoreReads: return fmt::format("kind={}", op.read_kind);
    case OpKind::FailGeometry: return fmt::format("node={}", op.node);
    case OpKind::AdvanceClock: return fmt::format("seconds={:g}", op.seconds);
    case OpKind::Await: return fmt::format("status={}", op.status);
    case OpKind::Reconcile: return fmt::format("desired={}", op.status);
    case OpKind::Release: return op.keep_workloads ? "keep_workloads=true" : "";
    case OpKind::Reserve: return op.plan_from ? fmt::format("plan_from={}", *op.plan_from) : "";
    default: return "";
  }
}

bool pods_failing(const backend::MemoryBackend& b) {
  return backend::find_in(b.state().failed_reads, std::string("pods")) != nullptr;
}

}  // namespace

// One actor's script. Runs inside the actor's fiber; every backend call is preceded by a point.
class ScriptRunner {
 public:
  ScriptRunner(BackendWorld& w, sim::ActorContext& ctx, ActorState& st, const ActorSpec& spec)
      : w_(w), b_(w.mutable_backend()), ctx_(ctx), st_(st), spec_(spec), caller_(w, ctx, st) {}

  void run() {
    for (size_t k = 0; k < spec_.script.size(); ++k) {
      st_.op_index = k;
      st_.outcomes[k] = run_op(spec_.script[k]);
    }
  }

 private:
  /// One op with its faults: a raise ends it with `error`, a dropped response with `unknown` (the op's own
  /// code has already kept the result from the actor). A crash (sim::ActorCrash) is never caught here.
  const char* run_op(const Op& op) {
    caller_.dropped = false;
    try {
      const char* out = execute(op);
      return caller_.dropped ? "unknown" : out;
    } catch (const InjectedError&) {
      return "error";
    }
  }

  void call(const char* what, std::string detail = {}) {
    ctx_.point(PointKind::Call, what, std::move(detail));
    environment_fault();
  }

  /// The fault choice at a Call point (FaultSpec): a draw over {none, each fail_reads kind not failing yet,
  /// each fail_geometry node not failing yet} while under the bound; the choice is applied through the
  /// backend's test hooks, which take the backend lock (so it may wait for it, as any caller would).
  void environment_fault() {
    const FaultSpec& f = w_.c_.scenario->faults;
    if (f.fail_reads.empty() && f.fail_geometry.empty()) return;
    if (w_.faults_fired_ >= f.max || !f.eligible(st_.name)) return;
    const auto& state = b_.state();
    std::vector<const std::string*> reads, nodes;
    for (const std::string& kind : f.fail_reads) {
      caller_.touch(backend::Obj::FailedReads, kind, false);
      if (backend::find_in(state.failed_reads, kind) == nullptr) reads.push_back(&kind);
    }
    for (const std::string& node : f.fail_geometry) {
      caller_.touch(backend::Obj::FailingGeometry, node, false);
      if (std::find(state.failing_geometry.begin(), state.failing_geometry.end(), node) == state.failing_geometry.end())
        nodes.push_back(&node);
    }
    if (reads.empty() && nodes.empty()) return;
    const uint64_t v = ctx_.draw(1 + reads.size() + nodes.size());
    if (v == 0) return;
    ++w_.faults_fired_;
    if (v <= reads.size()) {
      const std::string kind = *reads[v - 1];
      ctx_.note(fmt::format("fault=fail_reads:{}", kind));
      b_.fail_reads(caller_, kind, "timeout");
    } else {
      const std::string node = *nodes[v - 1 - reads.size()];
      ctx_.note(fmt::format("fault=fail_geometry:{}", node));
      b_.fail_geometry(caller_, node);
    }
  }

  /// `recover` (scenario.h): wait for the flow's actor to end, read back its claims, release each by claim
  /// id and generation, as a restarted controller would (ALLOC-033).
  const char* recover(const Op& op) {
    call("recover", "flow=" + op.flow);
    sim::ActorId flow = 0;
    while (flow < w_.actors_.size() && w_.actors_[flow].name != op.flow) ++flow;
    if (flow == w_.actors_.size()) throw std::logic_error("recover names no actor: " + op.flow);  // the loader resolves it
    if (sim::SimMutex* life = w_.life_[flow].get()) {
      life->lock(ctx_);  // blocks (LockWait) until the flow's actor has finished or crashed
      life->unlock();
    }
    const auto claims = b_.claims_of(caller_, op.flow);
    const char* out = claims.empty() ? "none" : backend::kReleaseReleased;
    for (const auto& [claim_id, generation] : claims) {
      call("release", fmt::format("recover={} claim={}", op.flow, claim_id));
      const std::string op_id = fmt::format("{}:recover{}", st_.name, ++st_.recovers);
      st_.op_epoch = generation;
      const auto r = b_.release(caller_, claim_id, op_id, generation, false);
      if (r.status != backend::kReleaseReleased && out == backend::kReleaseReleased)
        out = r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
    }
    if (!caller_.dropped && (claims.empty() || out == backend::kReleaseReleased)) st_.told.recovered_flow = op.flow;
    return out;
  }

  const char* inventory(const std::optional<std::vector<std::string>>& scope) {
    auto obs = b_.inventory(caller_, scope);
    // Read after the call: inventory() may block on the lock, and while it waits another actor may fail or
    // restore pod reads. From its lock acquisition to here nothing yields, so this is the state it read.
    const bool failed_pods = pods_failing(b_);
    if (!obs.known) {
      st_.inventory.reset();
      return "unknown";
    }
    st_.inventory = std::move(obs.value);
    st_.inventory_with_failed_pods = failed_pods;
    return st_.inventory->completeness == backend::kCompletenessPartial ? "partial" : "complete";
  }

  const char* plan(const std::vector<RequestSpec>& requests) {
    ctx_.touch(actor_plan_id(st_.name), true);  // `plan_from` reserves of other actors read it
    st_.plan = b_.plan(caller_, to_requests(st_.name, requests), *st_.inventory);
    st_.plan_with_failed_pods = st_.inventory_with_failed_pods;
    const bool feasible = std::holds_alternative<FeasiblePlan>(*st_.plan);
    st_.told.plan_feasible = feasible;
    st_.told.plan_from_failed_pods = st_.plan_with_failed_pods;
    return feasible ? "feasible" : "infeasible";
  }

  const char* reserve(const FeasiblePlan& plan) {
    const std::string op_id = fmt::format("{}:op{}", st_.name, ++st_.reserves);
    // The seed's generation check compares against every node's version; remember a stale reserve so
    // that stale-plan-writes-nothing can hold it to writing nothing.
    int64_t sum = 0;
    ctx_.touch(object_id(backend::Obj::AllNodes, ""), false);  // the backend's convention for whole reads
    for (const auto& n : b_.state().nodes) {
      sum += n.resource_version;
      ctx_.touch(object_id(backend::Obj::Node, n.name), false);
    }
    if (plan.snapshot_generation != std::to_string(sum)) w_.stale_reserves.push_back(op_id);
    st_.op_epoch.clear();
    // try_reserve: reserve() minus the throw of its OwnershipConflict (unwinding dominated the profile).
    std::optional<OwnershipConflict> conflict;
    ClaimObservation obs = b_.try_reserve(caller_, plan, op_id, plan.snapshot_generation, conflict);
    if (conflict) return "conflict";
    if (caller_.dropped) return "unknown";  // the claim exists, but the actor never learns its id
    st_.claim_id = obs.claim_id;
    st_.claim_generation = obs.desired_generation;
    st_.held.emplace_back(obs.claim_id, obs.desired_generation);
    ++st_.claims_held;
    ++st_.claims_made;
    st_.told.observation = std::move(obs);
    return "claimed";
  }

  const char* observe_once() {
    auto obs = b_.observe(caller_, *st_.claim_id);
    if (!obs.known) return "unknown";
    st_.told.observation = obs.value;
    return status_word(obs.value.status);
  }

  static const char* status_word(const std::string& s) {
    for (const char* w : {backend::kClaimPending, backend::kClaimAllocated, backend::kClaimPrepared,
                          backend::kClaimReady, backend::kClaimFailed, backend::kClaimReleasing})
      if (s == w) return w;
    throw std::logic_error("unknown claim status " + s);
  }

  const char* execute(const Op& op) {
    switch (op.kind) {
      case OpKind::Inventory:
        call("inventory");
        return inventory(op.nodes);
      case OpKind::Plan:
        if (!st_.inventory) return "skipped";
        call("plan");
        return plan(op.requests);
      case OpKind::Reserve: return execute_reserve(op);
      case OpKind::Observe:
        if (!st_.claim_id) return "skipped";
        call("observe");
        return observe_once();
      case OpKind::Await: {
        if (!st_.claim_id) return "skipped";
        for (int i = 0; i < op.polls_max; ++i) {
          call("observe", fmt::format("await={} poll={}", op.status, i + 1));
          const char* got = observe_once();
          if (got == op.status || std::string_view(got) == backend::kClaimFailed) return got;
        }
        return "timeout";
      }
      case OpKind::MarkReady:
        if (!st_.claim_id) return "skipped";
        call("mark_ready");
        b_.mark_workload_ready(caller_, *st_.claim_id);
        return "done";
      case OpKind::Reconcile:
        if (!st_.claim_id) return "skipped";
        call("reconcile", op_detail(op));
        try {
          auto obs = b_.reconcile(caller_, *st_.claim_id, op.status, st_.claim_generation);
          st_.told.observation = obs;
          return status_word(obs.status);
        } catch (const OwnershipConflict&) {
          return "conflict";
        }
      case OpKind::Release: {
        // The oldest claim held; with none held, the last released one again (a duplicate release).
        const bool duplicate = st_.held.empty();
        if (duplicate && !st_.last_released) return "skipped";
        const auto [claim_id, generation] = duplicate ? *st_.last_released : st_.held.front();
        std::string detail = op_detail(op);
        if (duplicate) detail += detail.empty() ? "duplicate=true" : " duplicate=true";
        call("release", std::move(detail));
        const std::string op_id = fmt::format("{}:release{}", st_.name, ++st_.releases);
        st_.op_epoch = generation;
        auto r = b_.release(caller_, claim_id, op_id, generation, op.keep_workloads);
        if (caller_.dropped) return "unknown";  // it may have released; the actor keeps the claim and may retry
        if (r.status == backend::kReleaseReleased) {
          if (!duplicate) {
            st_.held.erase(st_.held.begin());
            st_.last_released.emplace(claim_id, generation);
            --st_.claims_held;
            if (st_.held.empty()) {
              st_.claim_id.reset();
              st_.claim_generation.clear();
            } else {
              st_.claim_id = st_.held.back().first;
              st_.claim_generation = st_.held.back().second;
            }
          }
          return backend::kReleaseReleased;
        }
        return r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
      }
      case OpKind::BindWorkload:
        call("bind_workload", op_detail(op));
        b_.bind_workload(caller_, op.node, op.workload, op.units);
        return "done";
      case OpKind::UnbindWorkload:
        call("unbind_workload", op_detail(op));
        b_.unbind_workload(caller_, op.node, op.workload);
        return "done";
      case OpKind::FailReads:
        call("fail_reads", op_detail(op));
        b_.fail_reads(caller_, op.read_kind, "timeout");
        return "done";
      case OpKind::RestoreReads:
        call("restore_reads", op_detail(op));
        b_.fail_reads(caller_, op.read_kind, std::nullopt);
        return "done";
      case OpKind::FailGeometry:
        call("fail_geometry", op_detail(op));
        b_.fail_geometry(caller_, op.node);
        return "done";
      case OpKind::AdvanceClock:
        call("advance_clock", op_detail(op));
        b_.advance_clock(caller_, op.seconds);
        b_.apply_pending_geometry(caller_);
        return "done";
      case OpKind::Recover: return recover(op);
    }
    throw std::logic_error("unhandled op");
  }

  const char* execute_reserve(const Op& op) {
    if (op.has_requests) {
      call("inventory", "reserve=1");
      if (std::string_view(inventory(std::nullopt)) == "unknown") return "unknown";
      call("plan", "reserve=1");
      if (std::string_view(plan(op.requests)) == "infeasible") return "infeasible";
      call("reserve");
      return reserve(std::get<FeasiblePlan>(*st_.plan));
    }
    if (op.plan_from) {
      // Another actor's plan is only known at the time of the call: the point comes first.
      call("reserve", op_detail(op));
      ctx_.touch(actor_plan_id(*op.plan_from), false);
      const ActorState* from = nullptr;
      for (const ActorState& a : w_.actors())
        if (a.name == *op.plan_from) from = &a;
      if (!from || !from->plan) return "skipped";
      if (!std::holds_alternative<FeasiblePlan>(*from->plan)) return "infeasible";
      const FeasiblePlan plan = std::get<FeasiblePlan>(*from->plan);  // a copy: the owner may re-plan
      return reserve(plan);
    }
    if (!st_.plan) return "skipped";
    if (!std::holds_alternative<FeasiblePlan>(*st_.plan)) return "infeasible";
    call("reserve");
    const FeasiblePlan plan = std::get<FeasiblePlan>(*st_.plan);
    return reserve(plan);
  }

  BackendWorld& w_;
  backend::MemoryBackend& b_;
  sim::ActorContext& ctx_;
  ActorState& st_;
  const ActorSpec& spec_;
  ActorCaller caller_;
};

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
  auto v = check_invariants(*this, actor, false);
  actors_[actor].told = Told{};
  return v;
}

std::optional<sim::Violation> BackendWorld::check_quiescent() { return check_invariants(*this, sim::kNoActor, true); }

}  // namespace allocsim::harness

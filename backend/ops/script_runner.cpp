#include "backend/ops/script_runner.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "backend/ops/op_behaviour.h"
#include "backend/world/leases.h"
#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"
#include "backend/world/state_digest.h"

namespace allocsim::harness {

using backend::ClaimObservation;
using backend::FeasiblePlan;
using sim::PointKind;

namespace {

/// `specs` as the backend's requests of flow `flow`, written into `out` (reused: its strings keep their buffers).
void fill_requests(std::vector<backend::WorkloadRequest>& out, const std::string& flow,
                   const std::vector<RequestSpec>& specs) {
  out.resize(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const RequestSpec& r = specs[i];
    backend::WorkloadRequest& w = out[i];
    w.flow_id = flow;
    w.workload_id = r.workload;
    w.device_count = r.devices;
    w.sharing = r.sharing;
    if (r.minimum_usable_memory_gib)
      w.minimum_usable_memory_bytes = static_cast<int64_t>(*r.minimum_usable_memory_gib * double(backend::kGiB));
    else
      w.minimum_usable_memory_bytes.reset();
  }
}

/// Whether `op`'s `when` holds for `st` (true without a `when`; conditional_ops.h).
bool when_met(const Op& op, const ActorState& st) {
  if (!op.when) return true;
  const char* got = st.outcomes.at(op.when->op);
  return got != nullptr && op.when->outcome == got;
}

/// Whether an attempt of `op` that ended in `outcome` is retried (attempts made so far: `retries` retries).
bool retry_wanted(const Op& op, const char* outcome, int retries) {
  if (!op.retry || retries >= op.retry->max) return false;
  return std::find(op.retry->on.begin(), op.retry->on.end(), std::string_view(outcome)) != op.retry->on.end();
}

/// Whether pod reads fail, read without a footprint: its one caller reads it in the step of the inventory that has
/// just read (FailedReads, "pods") itself.
bool pods_failing(const backend::MemoryBackend& b) {
  return backend::find_in(b.state().failed_reads, std::string("pods")) != nullptr;
}

}  // namespace

void ScriptRunner::run() {
  // State caching: at each op's start the actor's whole state is its ActorState (the runner and the caller keep
  // nothing across ops: run_op resets them), so executions that reach it by different reads share a state.
  const bool tracks = ctx_.tracks_states();
  for (size_t k = 0; k < spec_.script.size(); ++k) {
    st_.op_index = k;
    renew_lease();
    if (tracks) give_local_state();
    // `when` (conditional_ops.h): an unmet condition records `skipped` and makes no call.
    const Op& op = spec_.script[k];
    if (op.behind) {
      st_.outcomes[k] = when_met(op, st_) ? issue(k) : "skipped";
      pass_gate(k);
      continue;
    }
    // A write-behind's background actor runs its op only if its issuer issued it.
    if (spec_.behind_of && !w_.issued_[me()]) {
      st_.outcomes[k] = "skipped";
      continue;
    }
    st_.outcomes[k] = when_met(op, st_) ? run_op(op) : "skipped";
    if (st_.crashed) break;  // the actor died in that op (fault_at): nothing of it runs any more
  }
  if (tracks) give_local_state();
}

/// A leased flow renews its lease at every op start and right after its own advance_clock (backend/world/leases.h): the
/// clock's time, read and written with their footprints so that DPOR orders the renewal against the sweepers' checks.
void ScriptRunner::renew_lease() {
  Leases& leases = w_.leases;
  if (!leases.enabled || !leases.leased[me()]) return;
  leases.renewed_at[me()] = b_.footprinted().clock(caller_).monotonic();
  ctx_.touch(lease_id(st_.name), true);
}

size_t ScriptRunner::me() const { return static_cast<size_t>(&st_ - w_.actors_.data()); }

const char* ScriptRunner::issue(size_t k) {
  // conditional_ops.h: the actor only hands the op to its background actor, which the gate then lets go.
  for (const size_t b : w_.compiled().gates_held[me()])
    if (w_.compiled().scenario->actors[b].behind_of->op == k) w_.issued_[b] = 1;
  return "issued";
}

void ScriptRunner::pass_gate(size_t k) {
  for (const size_t b : w_.compiled().gates_held[me()])
    if (w_.compiled().scenario->actors[b].behind_of->op == k) w_.gates_[b]->unlock();
}

void ScriptRunner::claims_changed() {
  const std::vector<char>& named = w_.compiled().claims_named;
  if (!named.empty() && named[me()]) ctx_.touch(actor_claims_id(st_.name), true);
}

void ScriptRunner::give_local_state() {
  if (w_.symmetric()) record_op_start(w_, st_);  // before local_state(), which drops the steps the engine logged
  // An engine exploring up to symmetry reads the actor's state from there (sim/world.h local_state), not this digest.
  if (w_.symmetric_engine()) return ctx_.local_state(0);
  ctx_.local_state(actor_digest(st_));
}

/// One op with its faults: a raise ends it with `error`, a dropped response with `unknown` (the op's own
/// code has already kept the result from the actor). A crash (sim::ActorCrash, thrown by fault_at) ends it with
/// `crashed`, reported to the engine here rather than unwound up to it: the frames between here and the engine
/// would run nothing but destructors, at about a third of a crash's cost.
const char* ScriptRunner::run_op(const Op& op) {
  caller_.dropped = false;
  retry_ = 0;
  try {
    const char* out = op_behaviour(op.kind).execute(*this, op);
    // `retry` (conditional_ops.h): bounded by its max; a dropped response ends the op as `unknown` first.
    while (!caller_.dropped && retry_wanted(op, out, retry_)) {
      ++retry_;
      out = op_behaviour(op.kind).execute(*this, op);
    }
    return caller_.dropped ? "unknown" : out;
  } catch (const InjectedError&) {
    caller_.undo_concurrent_update();  // a raise inside a reserve of an op-level execution
    return "error";
  } catch (const sim::ActorCrash& c) {
    // The same, for a crash, before the actor is reported ended: it runs nothing of the actor's own (sim/world.h,
    // ActorCrash), only takes back the harness's stand-in, and in an op-level execution no other actor holds the lock.
    caller_.undo_concurrent_update();
    ctx_.crashed(c.where);
    return "crashed";
  }
}

void ScriptRunner::call(const char* what, std::string detail) {
  if (retry_ > 0) detail += fmt::format("{}retry={}", detail.empty() ? "" : " ", retry_);
  ctx_.point(PointKind::Call, what, std::move(detail));
  environment_fault();
}

/// The fault choice at a Call point (FaultSpec): a draw over {none, each fail_reads kind not failing yet,
/// each fail_geometry node not failing yet} while under the bound; the choice is applied through the
/// backend's test hooks, which take the backend lock (so it may wait for it, as any caller would).
void ScriptRunner::environment_fault() {
  const FaultSpec& f = w_.c_.scenario->faults;
  if (f.fail_reads.empty() && f.fail_geometry.empty()) return;
  if (!f.eligible(st_.name) || !caller_.fault_budget_left()) return;
  backend::FootprintedState& state = b_.footprinted();
  std::vector<const std::string*> reads, nodes;
  for (const std::string& kind : f.fail_reads)
    if (state.failed_read(caller_, kind) == nullptr) reads.push_back(&kind);
  for (const std::string& node : f.fail_geometry) {
    const std::vector<std::string>& failing = state.geometry_faults(caller_, node).failing;
    if (std::find(failing.begin(), failing.end(), node) == failing.end()) nodes.push_back(&node);
  }
  if (reads.empty() && nodes.empty()) return;
  const uint64_t v = ctx_.draw(1 + reads.size() + nodes.size());
  if (v == 0) return;
  caller_.count_fault();
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

void ScriptRunner::wait_for_end(const std::string& flow_name) {
  sim::ActorId flow = 0;
  while (flow < w_.actors_.size() && w_.actors_[flow].name != flow_name) ++flow;
  if (flow == w_.actors_.size())
    throw std::logic_error("recover names no actor: " + flow_name);  // the loader resolves it
  if (sim::SimMutex* life = w_.life_[flow].get()) {
    life->lock(ctx_);  // blocks (LockWait) until the flow's actor has finished or crashed
    life->unlock();
  }
}

const char* ScriptRunner::inventory(const std::optional<std::vector<std::string>>& scope) {
  // Into the actor's scratch observation (reused across executions), then swapped into st_.inventory.
  backend::Observation<backend::InventorySnapshot>& obs = st_.inventory_scratch;
  if (w_.read_faults.enabled)
    obs = faulted_inventory(scope);
  else
    b_.inventory_into(caller_, scope, obs);
  // Read after the call: inventory() may block on the lock, and while it waits another actor may fail or
  // restore pod reads. From its lock acquisition to here nothing yields, so this is the state it read.
  const bool failed_pods = pods_failing(b_);
  remember_envelope("inventory", obs, obs.known ? obs.value.generation : std::string(),
                    obs.known ? obs.value.observed_at : obs.observed_at);
  if (!obs.known) {
    st_.inventory.reset();
    return "unknown";
  }
  install(st_.inventory, obs.value);  // the old inventory's storage becomes the next read's scratch
  st_.inventory_with_failed_pods = failed_pods;
  return st_.inventory->completeness == backend::kCompletenessPartial ? "partial" : "complete";
}

const char* ScriptRunner::plan(const std::vector<RequestSpec>& requests) {
  ctx_.touch(actor_plan_id(st_.name), true);  // `plan_from` reserves of other actors read it
  fill_requests(st_.requests_scratch, st_.owner, requests);
  // Into the last plan's storage (or the previous execution's, kept by reset_actor): a warm plan allocates
  // nothing. Only this actor's plan op replaces its plan; a reserve from it copies it first (ops.cpp).
  if (!st_.plan) st_.plan.emplace(std::move(st_.plan_scratch));
  b_.plan_into(caller_, st_.requests_scratch, *st_.inventory, *st_.plan);
  st_.plan_with_failed_pods = st_.inventory_with_failed_pods;
  const bool feasible = std::holds_alternative<FeasiblePlan>(*st_.plan);
  st_.told.plan_feasible = feasible;
  st_.told.plan_from_failed_pods = st_.plan_with_failed_pods;
  return feasible ? "feasible" : "infeasible";
}

const char* ScriptRunner::reserve(const FeasiblePlan& plan) {
  // Upstream takes the owner from the text before the first ':' (backend/CONTRACT.md §5). An actor under a shared
  // identity puts its own name after it, so that replicas' operation ids differ (object_history.h: principals).
  const std::string op_id = st_.owner == st_.name
                                ? fmt::format(FMT_COMPILE("{}:op{}"), st_.name, ++st_.reserves)
                                : fmt::format(FMT_COMPILE("{}:{}.op{}"), st_.owner, st_.name, ++st_.reserves);
  // Upstream's generation check compares against every node's version; remember a stale reserve so
  // that stale-plan-writes-nothing can hold it to writing nothing.
  int64_t sum = 0;
  for (const auto& n : b_.footprinted().nodes(caller_)) sum += n.resource_version;
  if (plan.snapshot_generation != std::to_string(sum)) w_.stale_reserves.push_back(op_id);
  st_.op_epoch.clear();
  // reserve() without the throw of its OwnershipConflict (unwinding dominated the profile) and without its words
  // (the actor only learns that it lost), into the actor's scratch observation and loss.
  ClaimObservation& obs = st_.observation_scratch;
  b_.try_reserve_into(caller_, plan, op_id, plan.snapshot_generation, st_.loss_scratch, obs);
  caller_.undo_concurrent_update();  // op-level executions (actor_caller.cpp, op_level_barrier); else nothing
  if (st_.loss_scratch) return "conflict";
  if (caller_.dropped) return "unknown";  // the claim exists, but the actor never learns its id
  st_.claim_id = obs.claim_id;
  st_.claim_generation = obs.desired_generation;
  st_.held.emplace_back(obs.claim_id, obs.desired_generation);
  claims_changed();
  ++st_.claims_held;
  ++st_.claims_made;
  install(st_.told.observation, obs);
  return "claimed";
}

const char* ScriptRunner::observe_once() {
  auto obs = w_.read_faults.enabled ? faulted_observe(*st_.claim_id) : b_.observe(caller_, *st_.claim_id);
  remember_envelope("observe", obs, obs.known ? obs.value.desired_generation : std::string(), obs.observed_at);
  if (!obs.known) return "unknown";
  st_.told.observation = obs.value;
  return status_word(obs.value.status);
}

template <class T>
void ScriptRunner::remember_envelope(const char* call, const backend::Observation<T>& obs, std::string value_gen,
                                     double value_at) {
  // Nothing yields between the backend stamping the answer and here: the clock is the one it read, and that call
  // recorded the read (so no footprint here).
  st_.told.envelope = Told::Envelope{call,       obs.known,       obs.generation, std::move(value_gen),  obs.reason,
                                     obs.detail, obs.observed_at, value_at,       b_.state().clock.now()};
}

const char* ScriptRunner::status_word(const std::string& s) {
  for (const char* w : {backend::kClaimPending, backend::kClaimAllocated, backend::kClaimPrepared, backend::kClaimReady,
                        backend::kClaimFailed, backend::kClaimReleasing})
    if (s == w) return w;
  throw std::logic_error("unknown claim status " + s);
}

}  // namespace allocsim::harness

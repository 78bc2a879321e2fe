// The op table (ops.h): per op, its parse, resolve, to_json, detail and execute functions, then the rows.
#include "backend/scenario/op_syntax.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <string_view>

#include "backend/ops/script_runner.h"
#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using backend::FeasiblePlan;
using support::child;
using support::quote;

// -- shared pieces ---------------------------------------------------------------------------------

Json requests_json(const std::vector<RequestSpec>& requests) {
  Json out = Json::array();
  for (const RequestSpec& r : requests) {
    Json j = {{"workload", r.workload}, {"devices", r.devices}, {"sharing", r.sharing}};
    if (r.minimum_usable_memory_gib) j["minimum_usable_memory_gib"] = *r.minimum_usable_memory_gib;
    out.push_back(std::move(j));
  }
  return out;
}

void parse_nothing(const ScenarioReader&, const Json&, const std::string&, Op&) {}
void json_nothing(const Op&, Json&) {}
std::string no_detail(const Op&) { return ""; }

// -- inventory -------------------------------------------------------------------------------------

void parse_inventory(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* n = r.find(v, "nodes")) op.nodes = r.node_scope(*n, child(ptr, "nodes"));
}
void json_inventory(const Op& op, Json& j) {
  if (op.nodes) j["nodes"] = *op.nodes;
}
const char* run_inventory(ScriptRunner& run, const Op& op) {
  run.call("inventory");
  return run.inventory(op.nodes);
}

// -- plan ------------------------------------------------------------------------------------------

void parse_plan(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.has_requests = true;
  op.requests = r.requests(r.require(v, ptr, "requests"), child(ptr, "requests"));
}
void json_plan(const Op& op, Json& j) { j["requests"] = requests_json(op.requests); }
const char* run_plan(ScriptRunner& run, const Op& op) {
  if (!run.state().inventory) return "skipped";
  run.call("plan");
  return run.plan(op.requests);
}

// -- reserve ---------------------------------------------------------------------------------------

void parse_reserve(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (r.find(v, "requests") != nullptr && r.find(v, "plan_from") != nullptr)
    r.fail(ptr, "reserve takes \"requests\" or \"plan_from\", not both");
  if (const Json* q = r.find(v, "requests")) {
    op.has_requests = true;
    op.requests = r.requests(*q, child(ptr, "requests"));
  }
  if (const Json* p = r.find(v, "plan_from")) op.plan_from = r.nonempty_string(*p, child(ptr, "plan_from"));
}
void resolve_reserve(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  if (!op.plan_from) return;
  const std::string ptr = child(op.pointer, "plan_from");
  if (*op.plan_from == self)
    r.fail(ptr,
           fmt::format("plan_from names the actor itself ({}); omit plan_from to reserve its own plan", quote(self)));
  if (std::find(actors.begin(), actors.end(), *op.plan_from) == actors.end())
    r.fail(ptr, fmt::format("actor {} is not in /actors", quote(*op.plan_from)));
}
void json_reserve(const Op& op, Json& j) {
  if (op.has_requests) j["requests"] = requests_json(op.requests);
  if (op.plan_from) j["plan_from"] = *op.plan_from;
}
std::string detail_reserve(const Op& op) { return op.plan_from ? fmt::format("plan_from={}", *op.plan_from) : ""; }

/// reserve with `plan_from`: another actor's plan is only known at the time of the call, so the point
/// comes first.
const char* run_reserve_from(ScriptRunner& run, const Op& op) {
  run.call("reserve", detail_reserve(op));
  run.ctx().touch(actor_plan_id(*op.plan_from), false);
  const ActorState* from = nullptr;
  for (const ActorState& a : run.world().actors())
    if (a.name == *op.plan_from) from = &a;
  if (!from || !from->plan) return "skipped";
  if (!std::holds_alternative<FeasiblePlan>(*from->plan)) return "infeasible";
  // A copy: the owner may re-plan while this reserve waits at a barrier. Copy-assigned into this actor's scratch,
  // whose strings and lists keep their capacity across executions.
  FeasiblePlan& plan = run.state().borrowed_plan_scratch;
  plan = std::get<FeasiblePlan>(*from->plan);
  return run.reserve(plan);
}

/// Every Call point of a reserve with `requests` (run_reserve below, retries included); one without calls
/// only "reserve". A function, not a namespace-scope constant: the table may be built during another file's
/// static initialisation.
std::vector<const char*> reserve_all_calls() { return {"inventory", "plan", "reserve"}; }

std::vector<const char*> reserve_calls(const Op& op) {
  if (op.has_requests) return reserve_all_calls();
  return {"reserve"};
}

const char* run_reserve(ScriptRunner& run, const Op& op) {
  if (op.has_requests) {
    run.call("inventory", "reserve=1");
    if (std::string_view(run.inventory(std::nullopt)) == "unknown") return "unknown";
    run.call("plan", "reserve=1");
    if (std::string_view(run.plan(op.requests)) == "infeasible") return "infeasible";
    run.call("reserve");
    return run.reserve(std::get<FeasiblePlan>(*run.state().plan));
  }
  if (op.plan_from) return run_reserve_from(run, op);
  const ActorState& st = run.state();
  if (!st.plan) return "skipped";
  if (!std::holds_alternative<FeasiblePlan>(*st.plan)) return "infeasible";
  run.call("reserve");
  return run.reserve(std::get<FeasiblePlan>(*st.plan));  // no copy: only this actor's own plan op replaces it
}

// -- observe, await, mark_ready, reconcile ---------------------------------------------------------

const char* run_observe(ScriptRunner& run, const Op&) {
  if (!run.state().claim_id) return "skipped";
  run.call("observe");
  return run.observe_once();
}

void parse_await(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.status = r.choice(r.require(v, ptr, "status"), child(ptr, "status"), claim_statuses());
  if (const Json* p = r.find(v, "polls_max")) op.polls_max = r.int_value(*p, child(ptr, "polls_max"), 1, 1000);
}
void json_await(const Op& op, Json& j) {
  j["status"] = op.status;
  j["polls_max"] = op.polls_max;
}
std::string detail_await(const Op& op) { return fmt::format("status={}", op.status); }
const char* run_await(ScriptRunner& run, const Op& op) {
  if (!run.state().claim_id) return "skipped";
  for (int i = 0; i < op.polls_max; ++i) {
    run.call("observe", fmt::format("await={} poll={}", op.status, i + 1));
    const char* got = run.observe_once();
    if (got == op.status || std::string_view(got) == backend::kClaimFailed) return got;
  }
  return "timeout";
}

const char* run_mark_ready(ScriptRunner& run, const Op&) {
  if (!run.state().claim_id) return "skipped";
  run.call("mark_ready");
  run.backend().mark_workload_ready(run.caller(), *run.state().claim_id);
  return "done";
}

void parse_reconcile(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.status = r.choice(r.require(v, ptr, "status"), child(ptr, "status"), claim_statuses());
}
void json_reconcile(const Op& op, Json& j) { j["status"] = op.status; }
std::string detail_reconcile(const Op& op) { return fmt::format("desired={}", op.status); }
const char* run_reconcile(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  if (!st.claim_id) return "skipped";
  run.call("reconcile", detail_reconcile(op));
  try {
    auto obs = run.backend().reconcile(run.caller(), *st.claim_id, op.status, st.claim_generation);
    st.told.observation = obs;
    return ScriptRunner::status_word(obs.status);
  } catch (const backend::OwnershipConflict&) {
    return "conflict";
  }
}

// -- release, recover ------------------------------------------------------------------------------

void parse_release(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  if (const Json* k = r.find(v, "keep_workloads")) op.keep_workloads = r.bool_value(*k, child(ptr, "keep_workloads"));
}
void json_release(const Op& op, Json& j) { j["keep_workloads"] = op.keep_workloads; }
std::string detail_release(const Op& op) { return op.keep_workloads ? "keep_workloads=true" : ""; }

/// A released claim leaves the held list; the newest remaining one becomes the claim observed.
void forget_claim(ActorState& st, const std::string& claim_id, const std::string& generation) {
  st.held.erase(st.held.begin());
  st.last_released.emplace(claim_id, generation);
  --st.claims_held;
  if (st.held.empty()) {
    st.claim_id.reset();
    st.claim_generation.clear();
  } else {
    st.claim_id = st.held.back().first;
    st.claim_generation = st.held.back().second;
  }
}

const char* run_release(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  // The oldest claim held; with none held, the last released one again (a duplicate release).
  const bool duplicate = st.held.empty();
  if (duplicate && !st.last_released) return "skipped";
  const auto [claim_id, generation] = duplicate ? *st.last_released : st.held.front();
  std::string detail = detail_release(op);
  if (duplicate) detail += detail.empty() ? "duplicate=true" : " duplicate=true";
  run.call("release", std::move(detail));
  const std::string op_id = fmt::format(FMT_COMPILE("{}:release{}"), st.name, ++st.releases);
  st.op_epoch = generation;
  backend::ReleaseObservation& r = st.release_scratch;
  run.backend().release_into(run.caller(), claim_id, op_id, generation, op.keep_workloads, r);
  if (run.caller().dropped) return "unknown";  // it may have released; the actor keeps the claim and may retry
  if (r.status == backend::kReleaseReleased) {
    if (!duplicate) forget_claim(st, claim_id, generation);
    return backend::kReleaseReleased;
  }
  return r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
}

void parse_recover(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.flow = r.nonempty_string(r.require(v, ptr, "flow"), child(ptr, "flow"));
}
void resolve_recover(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  const std::string ptr = child(op.pointer, "flow");
  if (op.flow == self)
    r.fail(ptr, fmt::format("recover names the actor itself ({}); a flow's own cleanup is \"release\"", quote(self)));
  std::vector<const char*> known;
  for (const std::string& n : actors) known.push_back(n.c_str());
  if (!support::contains(known, op.flow))
    r.fail(ptr, fmt::format("actor {} is not in /actors{}", quote(op.flow), support::did_you_mean(op.flow, known)));
}
void json_recover(const Op& op, Json& j) { j["flow"] = op.flow; }

/// `recover` (scenario.h): wait for the flow's actor to end, read back its claims, release each by claim
/// id and generation, as a restarted controller would (ALLOC-033).
const char* run_recover(ScriptRunner& run, const Op& op) {
  ActorState& st = run.state();
  run.call("recover", "flow=" + op.flow);
  run.wait_for_end(op.flow);
  const auto claims = run.backend().claims_of(run.caller(), op.flow);
  const char* out = claims.empty() ? "none" : backend::kReleaseReleased;
  for (const auto& [claim_id, generation] : claims) {
    run.call("release", fmt::format("recover={} claim={}", op.flow, claim_id));
    const std::string op_id = fmt::format(FMT_COMPILE("{}:recover{}"), st.name, ++st.recovers);
    st.op_epoch = generation;
    backend::ReleaseObservation& r = st.release_scratch;
    run.backend().release_into(run.caller(), claim_id, op_id, generation, false, r);
    if (r.status != backend::kReleaseReleased && out == backend::kReleaseReleased)
      out = r.status == backend::kReleaseStale ? backend::kReleaseStale : backend::kReleasePendingRecovery;
  }
  if (!run.caller().dropped && (claims.empty() || out == backend::kReleaseReleased)) st.told.recovered_flow = op.flow;
  return out;
}

// -- environment ops: workloads, read failures, geometry failures, the clock -------------------------

void parse_bind(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
  op.workload = r.nonempty_string(r.require(v, ptr, "workload"), child(ptr, "workload"));
  const Json* u = r.find(v, "units");
  if (u == nullptr) return;
  op.units = r.int_value(*u, child(ptr, "units"), 1, kMaxGpus);
  // A bind larger than the whole node can never succeed; a smaller one may, depending on what else holds it.
  for (const NodeSpec& n : r.scenario().nodes)
    if (n.name == op.node && op.units > n.gpu_count)
      r.fail(child(ptr, "units"),
             fmt::format("{} units can never fit node {} (gpu_count {})", op.units, quote(op.node), n.gpu_count));
}
void json_bind(const Op& op, Json& j) {
  j["node"] = op.node;
  j["workload"] = op.workload;
  j["units"] = op.units;
}
std::string detail_bind(const Op& op) {
  return fmt::format("node={} workload={} units={}", op.node, op.workload, op.units);
}
const char* run_bind(ScriptRunner& run, const Op& op) {
  run.call("bind_workload", detail_bind(op));
  run.backend().bind_workload(run.caller(), op.node, op.workload, op.units);
  return "done";
}

void json_unbind(const Op& op, Json& j) {
  j["node"] = op.node;
  j["workload"] = op.workload;
}
std::string detail_unbind(const Op& op) { return fmt::format("node={} workload={}", op.node, op.workload); }
const char* run_unbind(ScriptRunner& run, const Op& op) {
  run.call("unbind_workload", detail_unbind(op));
  run.backend().unbind_workload(run.caller(), op.node, op.workload);
  return "done";
}

void parse_reads(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.read_kind = r.choice(r.require(v, ptr, "kind"), child(ptr, "kind"), read_kinds());
}
void json_reads(const Op& op, Json& j) { j["kind"] = op.read_kind; }
std::string detail_reads(const Op& op) { return fmt::format("kind={}", op.read_kind); }
const char* run_fail_reads(ScriptRunner& run, const Op& op) {
  run.call("fail_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, "timeout");
  return "done";
}
const char* run_restore_reads(ScriptRunner& run, const Op& op) {
  run.call("restore_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, std::nullopt);
  return "done";
}

void parse_geometry(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.node = r.node_ref(r.require(v, ptr, "node"), child(ptr, "node"));
}
void json_geometry(const Op& op, Json& j) { j["node"] = op.node; }
std::string detail_geometry(const Op& op) { return fmt::format("node={}", op.node); }
const char* run_fail_geometry(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry", detail_geometry(op));
  run.backend().fail_geometry(run.caller(), op.node);
  return "done";
}

void parse_clock(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.seconds = r.number_value(r.require(v, ptr, "seconds"), child(ptr, "seconds"), 0, kMaxSeconds);
}
void json_clock(const Op& op, Json& j) { j["seconds"] = op.seconds; }
std::string detail_clock(const Op& op) { return fmt::format("seconds={:g}", op.seconds); }
const char* run_clock(ScriptRunner& run, const Op& op) {
  run.call("advance_clock", detail_clock(op));
  run.backend().advance_clock(run.caller(), op.seconds);
  run.backend().apply_pending_geometry(run.caller());
  return "done";
}

// -- the table -------------------------------------------------------------------------------------

// `error` (a raise fault), `unknown` (a dropped response, or a failed read) and `crashed` (a crash fault)
// are the words of the ops that fire barriers (faults, FaultSpec).
const std::vector<OpSpec>& table() {
  static const std::vector<OpSpec> k = with_foreign_ops({
      {OpKind::Inventory,
       "inventory",
       {"op", "nodes"},
       {"complete", "partial", "unknown"},  //
       parse_inventory,
       nullptr,
       json_inventory,
       no_detail,
       run_inventory},
      {OpKind::Plan,
       "plan",
       {"op", "requests"},
       {"feasible", "infeasible", "skipped"},  //
       parse_plan,
       nullptr,
       json_plan,
       no_detail,
       run_plan},
      {OpKind::Reserve,
       "reserve",
       {"op", "requests", "plan_from"},
       {"claimed", "conflict", "infeasible", "unknown", "skipped", "error", "crashed"},  //
       parse_reserve,
       resolve_reserve,
       json_reserve,
       detail_reserve,
       run_reserve,
       nullptr,
       reserve_all_calls(),
       reserve_calls},
      {OpKind::Observe,
       "observe",
       {"op"},
       {"pending", "allocated", "prepared", "ready", "failed", "unknown", "skipped"},
       parse_nothing,
       nullptr,
       json_nothing,
       no_detail,
       run_observe},
      {OpKind::Await,
       "await",
       {"op", "status", "polls_max"},
       {"pending", "allocated", "prepared", "ready", "failed", "timeout", "skipped"},  //
       parse_await,
       nullptr,
       json_await,
       detail_await,
       run_await,
       nullptr,
       {"observe"}},
      {OpKind::MarkReady,
       "mark_ready",
       {"op"},
       {"done", "skipped", "error", "unknown", "crashed"},  //
       parse_nothing,
       nullptr,
       json_nothing,
       no_detail,
       run_mark_ready},
      {OpKind::Reconcile,
       "reconcile",
       {"op", "status"},
       {"pending", "allocated", "prepared", "ready", "failed", "conflict", "skipped"},  //
       parse_reconcile,
       nullptr,
       json_reconcile,
       detail_reconcile,
       run_reconcile},
      {OpKind::Release,
       "release",
       {"op", "keep_workloads"},
       {"released", "pending_recovery", "stale", "skipped", "error", "unknown", "crashed"},  //
       parse_release,
       nullptr,
       json_release,
       detail_release,
       run_release},
      {OpKind::BindWorkload,
       "bind_workload",
       {"op", "node", "workload", "units"},
       {"done"},  //
       parse_bind,
       nullptr,
       json_bind,
       detail_bind,
       run_bind},
      {OpKind::UnbindWorkload,
       "unbind_workload",
       {"op", "node", "workload"},
       {"done"},  //
       parse_bind,
       nullptr,
       json_unbind,
       detail_unbind,
       run_unbind},
      {OpKind::FailReads,
       "fail_reads",
       {"op", "kind"},
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads,
       detail_reads,
       run_fail_reads},
      {OpKind::RestoreReads,
       "restore_reads",
       {"op", "kind"},
       {"done"},  //
       parse_reads,
       nullptr,
       json_reads,
       detail_reads,
       run_restore_reads},
      {OpKind::FailGeometry,
       "fail_geometry",
       {"op", "node"},
       {"done"},  //
       parse_geometry,
       nullptr,
       json_geometry,
       detail_geometry,
       run_fail_geometry},
      {OpKind::AdvanceClock,
       "advance_clock",
       {"op", "seconds"},
       {"done"},  //
       parse_clock,
       nullptr,
       json_clock,
       detail_clock,
       run_clock},
      {OpKind::Recover,
       "recover",
       {"op", "flow"},
       {"released", "none", "pending_recovery", "stale", "error", "unknown", "crashed"},  //
       parse_recover,
       resolve_recover,
       json_recover,
       no_detail,
       run_recover,
       nullptr,
       {"recover", "release"}},
  });
  return k;
}

}  // namespace

const std::vector<OpSpec>& core_op_rows() { return table(); }

}  // namespace allocsim::harness

#include "backend/invariants/client.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "backend/invariants/state_view.h"

namespace allocsim::harness {

using backend::Claim;
using backend::DeviceIdentity;
using backend::NodeFixture;
using sim::Violation;

namespace {

std::string render_grant(const std::vector<DeviceIdentity>& devices) {
  std::string out;
  for (const auto& d : devices)
    out += fmt::format("{}{}", out.empty() ? "" : ",", d.mig_uuid ? *d.mig_uuid : d.uuid ? *d.uuid : "-");
  return "[" + out + "]";
}

std::vector<DeviceIdentity> assigned(const Claim& cl) {
  std::vector<DeviceIdentity> out;
  for (const auto& [workload, devices] : cl.plan.assignments) out.insert(out.end(), devices.begin(), devices.end());
  return out;
}

/// The grant is the claim's devices in assignment order, every field of every device (not only its uuid).
bool same_grant(const std::vector<DeviceIdentity>& grant, const Claim& cl) {
  size_t k = 0;
  for (const auto& [workload, devices] : cl.plan.assignments)
    for (const auto& d : devices)
      if (k >= grant.size() || !(grant[k++] == d)) return false;
  return k == grant.size();
}

// "observation claim-flowA-1: owner=flowA generation=gen-flowA-2 grant=[GPU-n1-0]": what the actor was told.
std::string render_observation(const std::string& actor, const backend::ClaimObservation& o) {
  return fmt::format("actor {} told: observation {} owner={} generation={} status={} grant={}\n", actor, o.claim_id,
                     o.owner, o.desired_generation, o.status, render_grant(o.grant));
}

}  // namespace

std::optional<Violation> check_readiness_answers_its_write(const CheckContext& c) {
  const auto told = told_observation(c);
  if (!told) return std::nullopt;
  const auto& obs = told->obs;
  const Claim* cl = &told->claim;
  const ActorState& a = c.world.actors()[c.actor];
  if (obs.status == backend::kClaimReady && !cl->workload_ready)
    return violation("readiness-answers-its-write",
                     fmt::format("{} was told claim {} is ready, but its workload was never marked ready", a.name,
                                 cl->claim_id),
                     render_claim(*cl, ClaimFields::Readiness));
  if (obs.status != backend::kClaimPrepared) return std::nullopt;
  if (cl->entry_name.empty())
    return violation("readiness-answers-its-write",
                     fmt::format("{} was told claim {} is prepared, but it has no geometry to prepare", a.name,
                                 cl->claim_id),
                     render_claim(*cl, ClaimFields::Readiness));
  for (const auto& e : obs.evidence) {
    const int64_t* written = backend::find_in(cl->label_versions, e.node);
    const bool answers =
        e.mig_config == cl->entry_name && e.state == "success" && written && e.state_generation >= *written;
    if (!answers)
      return violation(
          "readiness-answers-its-write",
          fmt::format("{} was told claim {} is prepared, but node {} shows {} state {}@{} (this claim wrote {} at "
                      "version {})",
                      a.name, cl->claim_id, e.node, e.mig_config, e.state, e.state_generation, cl->entry_name,
                      written ? std::to_string(*written) : "never"),
          render_claim(*cl, ClaimFields::Readiness));
  }
  return std::nullopt;
}

std::optional<Violation> check_partial_inventory_never_idle(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (a.told.plan_feasible.value_or(false) && a.told.plan_from_failed_pods)
    return violation("partial-inventory-never-idle",
                     fmt::format("{} got a feasible plan from an inventory taken while pod reads failed", a.name),
                     render_failed_reads(c.world.backend().state()));
  return std::nullopt;
}

std::optional<Violation> check_observation_matches_claim(const CheckContext& c) {
  const auto told = told_observation(c);
  if (!told) return std::nullopt;
  const auto& obs = told->obs;
  const Claim* cl = &told->claim;
  const ActorState& a = c.world.actors()[c.actor];
  // Compared first, rendered only when broken: this runs after every step that tells an observation. The
  // memory backend answers at once, so the generation it observed is the one desired.
  const bool grant_ok = same_grant(obs.grant, *cl);
  if (grant_ok && obs.owner == cl->owner && obs.desired_generation == cl->generation &&
      obs.observed_generation == cl->generation)
    return std::nullopt;
  // (field, what the actor was told, what the claim has)
  const std::string gen = cl->generation;
  const std::vector<std::array<std::string, 3>> fields = {{"owner", obs.owner, cl->owner},
                                                          {"generation", obs.desired_generation, gen},
                                                          {"observed generation", or_dash(obs.observed_generation),
                                                           gen},
                                                          {"grant", render_grant(obs.grant),
                                                           render_grant(assigned(*cl))}};
  for (const auto& [field, told, has] : fields) {
    if (field == "grant" ? grant_ok : told == has) continue;
    return Violation{"observation-matches-claim",
                     fmt::format("{} was told claim {} with {} {}, but the claim has {}", a.name, cl->claim_id, told,
                                 field, has),
                     render_claim(*cl, ClaimFields::Devices) + render_observation(a.name, obs)};
  }
  return std::nullopt;
}

namespace {

/// The bindings a client must get for `devices` (upstream `bindings`), computed here independently.
backend::WorkloadBindings expected_bindings(const std::vector<DeviceIdentity>& devices) {
  const auto truthy = [](const std::optional<std::string>& s) { return s && !s->empty(); };
  std::string visible;
  std::set<std::string> nodes;
  for (const auto& d : devices) {
    const std::string id = truthy(d.mig_uuid) ? *d.mig_uuid
                           : truthy(d.uuid)   ? *d.uuid
                           : d.ordinal        ? std::to_string(*d.ordinal)
                                              : "None";
    visible += (visible.empty() ? "" : ",") + id;
    if (truthy(d.node)) nodes.insert(*d.node);
  }
  backend::WorkloadBindings b;
  b.env = {{"CUDA_VISIBLE_DEVICES", visible}, {"VF_GPU_COUNT", std::to_string(devices.size())}};
  b.nodes.assign(nodes.begin(), nodes.end());
  if (!b.nodes.empty()) b.node_selector_hostname = b.nodes.front();
  b.gpu_limit = static_cast<int>(devices.size());
  return b;
}

std::string render_bindings(const std::string& workload, const backend::WorkloadBindings& b) {
  std::string env, nodes;
  for (const auto& [k, v] : b.env) env += fmt::format("{}{}={}", env.empty() ? "" : " ", k, v);
  for (const auto& n : b.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  return fmt::format("bindings {}: gpu_limit={} node_selector={} nodes=[{}] env={{{}}}", workload, b.gpu_limit,
                     or_dash(b.node_selector_hostname), nodes, env);
}

}  // namespace

std::optional<Violation> check_bindings_match_grant(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.observation || a.told.observation->status != backend::kClaimReady) return std::nullopt;
  const Claim* cl = c.world.backend().state().claim(a.told.observation->claim_id);
  if (!cl) return std::nullopt;
  // A copy, so that the world's backend is only read; bindings() takes the lock of the caller it is given.
  backend::MemoryBackend copy = c.world.backend();
  backend::SequentialCaller caller;
  for (const auto& [workload, devices] : cl->plan.assignments) {
    const backend::WorkloadBindings got = copy.bindings(caller, cl->claim_id, workload);
    const backend::WorkloadBindings want = expected_bindings(devices);
    if (got.env != want.env || got.node_selector_hostname != want.node_selector_hostname ||
        got.gpu_limit != want.gpu_limit || got.nodes != want.nodes)
      return Violation{"bindings-match-grant",
                       fmt::format("{}'s ready claim {} binds workload {} as {}; its grant needs {}", a.name,
                                   cl->claim_id, workload, render_bindings(workload, got),
                                   render_bindings(workload, want)),
                       render_claim(*cl, ClaimFields::Devices) + render_bindings(workload, got) + "\n"};
  }
  return std::nullopt;
}

namespace {

/// What backend/CONTRACT.md §8 says the memory backend advertises for `a`, field by field.
/// `with_adapter` false leaves `adapter` empty (the check compares it apart, without building it).
backend::AllocationCapabilities advertised(const std::string& a, bool with_adapter) {
  const bool managed = a == backend::kAuthorityManagedMig;
  const bool isolated = managed || a == backend::kAuthorityDra;
  backend::AllocationCapabilities caps;
  if (with_adapter) caps.adapter = "memory-" + a;
  caps.authority = a;
  caps.isolated_mig = isolated;
  caps.cooperative_sharing = a == backend::kAuthorityLocal;
  caps.memory_enforcement = isolated ? "hardware" : a == backend::kAuthorityLocal ? "none" : "accounting";
  caps.elastic = !managed;
  return caps;  // exclusive_device, multi_device, admission_boundary true; topology_verification false
}

std::string render_caps(const backend::AllocationCapabilities& c) {
  return fmt::format(
      "capabilities: adapter={} authority={} exclusive_device={} isolated_mig={} cooperative_sharing={} "
      "memory_enforcement={} multi_device={} topology_verification={} elastic={} admission_boundary={}",
      c.adapter, c.authority, c.exclusive_device, c.isolated_mig, c.cooperative_sharing, c.memory_enforcement,
      c.multi_device, c.topology_verification, c.elastic, c.admission_boundary);
}

/// advertised(a, false), built once per authority: the check runs at every execution's end, and building it
/// (three texts) was a tenth of that end's cost (tools/bench/README.md, "Session 18"). An authority outside
/// backend::kAuthorities builds it each time.
const backend::AllocationCapabilities& expected_caps(const std::string& a) {
  static const std::vector<backend::AllocationCapabilities> kExpected = [] {
    std::vector<backend::AllocationCapabilities> v;
    for (const char* authority : backend::kAuthorities) v.push_back(advertised(authority, false));
    return v;
  }();
  for (size_t i = 0; i < kExpected.size(); ++i)
    if (a == kExpected[i].authority) return kExpected[i];
  thread_local backend::AllocationCapabilities other;
  return other = advertised(a, false);
}

}  // namespace

std::optional<Violation> check_capabilities_match_authority(const CheckContext& c) {
  const std::string& authority = c.world.compiled().scenario->authority;
  const backend::AllocationCapabilities& got = c.world.backend().advertised();
  const auto fields = [](const backend::AllocationCapabilities& x) {
    return std::tie(x.authority, x.exclusive_device, x.isolated_mig, x.cooperative_sharing, x.memory_enforcement,
                    x.multi_device, x.topology_verification, x.elastic, x.admission_boundary);
  };
  // The adapter name "memory-<authority>" is compared in place: built, it is longer than a short string's buffer
  // and would allocate once per execution. `want` (with the adapter) only for the rendering of a break.
  const std::string_view adapter = got.adapter, prefix = "memory-";
  if (adapter.starts_with(prefix) && adapter.substr(prefix.size()) == authority &&
      fields(got) == fields(expected_caps(authority)))
    return std::nullopt;
  const backend::AllocationCapabilities want = advertised(authority, true);
  const std::string shown = render_caps(got), needed = render_caps(want);
  return Violation{"capabilities-match-authority",
                   fmt::format("the {} backend advertises {}; its authority means {}", authority, shown, needed),
                   shown + "\n"};
}

namespace {

bool known_reason(const std::string& r) {
  for (const char* w : {"timeout", "auth", "malformed", "unreachable", "unsupported"})
    if (r == w) return true;
  return false;
}

/// The first clause of the envelope contract that `e` breaks, or "" (backend/CONTRACT.md §4 "Observations").
std::string broken_clause(const Told::Envelope& e) {
  if (e.observed_at != e.now) return fmt::format("observed_at={} but the clock read {}", e.observed_at, e.now);
  if (e.value_observed_at != e.now)
    return fmt::format("the value's observed_at={} but the clock read {}", e.value_observed_at, e.now);
  if (e.known) {
    if (!e.generation) return "a Known answer without a generation";
    if (*e.generation != e.value_generation)
      return fmt::format("generation={} but the value it stamps has generation {}", *e.generation, e.value_generation);
    return "";
  }
  if (!known_reason(e.reason))
    return fmt::format("an Unknown answer with reason '{}', not one of the contract's", e.reason);
  if (e.detail.empty()) return "an Unknown answer without a detail";
  return "";
}

}  // namespace

std::optional<Violation> check_observation_envelope_complete(const CheckContext& c) {
  if (c.actor >= c.world.actors().size()) return std::nullopt;  // at quiescence no actor stepped
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.envelope) return std::nullopt;
  const Told::Envelope& e = *a.told.envelope;
  const std::string clause = broken_clause(e);
  if (clause.empty()) return std::nullopt;
  return Violation{"observation-envelope-complete",
                   fmt::format("{} was told an answer of {}: {}", a.name, e.call, clause),
                   fmt::format("actor {} told: envelope of {} known={} generation={} reason={} detail={} "
                               "observed_at={} clock={}\n",
                               a.name, e.call, e.known, or_dash(e.generation), e.reason.empty() ? "-" : e.reason,
                               e.detail.empty() ? "-" : e.detail, e.observed_at, e.now)};
}

namespace {

/// Why upstream's plan() leaves node `node` of `snap` out for `flow`, as its reason names it, or "".
std::string exclusion_of(const backend::InventorySnapshot& snap, const std::string& node, const std::string& flow) {
  const std::string* owner = backend::find_in(snap.owners, node);
  if (owner && !owner->empty() && *owner != flow) return fmt::format("{}: owned by {}", node, *owner);
  const std::string* sharing = backend::find_in(snap.sharing, node);
  for (const char* k : {backend::kClassTimeSliced, backend::kClassMps, backend::kClassUnknown, backend::kClassMig})
    if (sharing && *sharing == k) return fmt::format("{}: {}", node, k);
  return "";
}

}  // namespace

std::optional<Violation> check_infeasible_plan_names_exclusions(const CheckContext& c) {
  if (c.actor >= c.world.actors().size()) return std::nullopt;  // at quiescence no actor stepped
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.plan_feasible || *a.told.plan_feasible || !a.plan || !a.inventory) return std::nullopt;
  const auto* no = std::get_if<backend::Infeasible>(&*a.plan);
  if (no == nullptr) return std::nullopt;
  const std::string* packing = nullptr;
  for (const auto& r : no->reasons)
    if (r.starts_with("no per-host packing")) packing = &r;
  if (packing == nullptr) return std::nullopt;  // only the packing reason lists the excluded nodes
  std::vector<std::string> seen;
  for (const auto& d : a.inventory->devices) {
    if (!d.node || std::find(seen.begin(), seen.end(), *d.node) != seen.end()) continue;
    seen.push_back(*d.node);
    const std::string why = exclusion_of(*a.inventory, *d.node, a.owner);
    if (why.empty() || packing->find(why) != std::string::npos) continue;
    return Violation{"infeasible-plan-names-exclusions",
                     fmt::format("{}'s plan is infeasible without saying '{}'", a.name, why),
                     fmt::format("actor {} told: infeasible plan: {}\n", a.name, *packing)};
  }
  return std::nullopt;
}

std::vector<InvariantSpec> client_invariants() {
  // clang-format off
  return {
      {"readiness-answers-its-write", 5, "ALLOC-003", "prepared only when every node's state answers this claim's own write; ready only after the workload was marked ready",
       check_readiness_answers_its_write, false, {"entry=", "workload_ready=", "label_versions="}, kReadsTold, false, nullptr,
       "an actor told `ready` got it for a claim whose workload was marked ready; an actor told `prepared` got it for a claim with geometry, and every node in the evidence shows this claim's entry, state `success`, and a state generation at least the resourceVersion of this claim's own label write"},
      {"partial-inventory-never-idle", 6, "ALLOC-007", "a plan made from an inventory taken while pod reads failed is infeasible",
       check_partial_inventory_never_idle, false, {"failed reads: ["}, kReadsTold, false, nullptr,
       "a plan made from an inventory taken while pod reads failed is infeasible"},
      {"observation-matches-claim", 18, "-", "an observation of a claim names its owner and generation and grants exactly the devices its plan assigns",
       check_observation_matches_claim, false, {"devices=[", "told: observation"}, kReadsTold, false, nullptr,
       "after a step in which the actor was told an observation of a claim (reserve, observe, await, reconcile) that still exists: the observation's owner, desired generation and observed generation are the claim's (the memory backend answers at once), and its grant is the claim's plan's devices, workload by workload in assignment order (upstream `_observe_claim`)"},
      {"bindings-match-grant", 19, "-", "once a claim is ready, bindings() of each of its workloads gives the GPU limit, visible devices and nodes of that workload's grant",
       check_bindings_match_grant, false, {"devices=[", "gpu_limit="}, kReadsTold, false, nullptr,
       "after a step in which the actor was told its claim is `ready` (when a client builds its pod): for every workload of the claim's plan, `bindings()` (called on a copy of the backend, so no scheduling point) gives GPU limit and `VF_GPU_COUNT` = the number of devices assigned to it, `CUDA_VISIBLE_DEVICES` = their MIG uuid, else uuid, else ordinal, joined by `,` in assignment order, node constraints = the sorted set of their nodes, node selector = the first of them"},
      {"capabilities-match-authority", 22, "-", "at quiescence, capabilities() advertises what the backend's authority provides (adapter, isolation, sharing, memory enforcement, elasticity)",
       check_capabilities_match_authority, true, {"capabilities: adapter="}, 0, false, nullptr,
       "checked only at quiescence: `capabilities()` advertises adapter `memory-<authority>` and that authority; isolated MIG and `hardware` memory enforcement exactly for managed-mig and dra; cooperative sharing and enforcement `none` for local, `accounting` for device-plugin; elastic unless managed-mig; exclusive devices, multi-device and an admission boundary always, topology verification never (backend/CONTRACT.md §8)"},
      {"observation-envelope-complete", 23, "-", "every answer an actor is told (inventory, observe) is stamped with the clock's time of the read; a Known one carries its value's generation, an Unknown one a reason from the contract and a detail",
       check_observation_envelope_complete, false, {"told: envelope of"}, kReadsTold, false, nullptr,
       "after every step that told an actor an answer of `inventory` or `observe`: the answer's `observed_at` is the fake clock's time when it came back; a Known answer carries a generation equal to its value's (the snapshot's `generation`, the observation's `desired_generation`); an Unknown answer carries a reason from the contract's vocabulary (`timeout`, `auth`, `malformed`, `unreachable`, `unsupported`) and a non-empty detail (backend/CONTRACT.md §4, Observations)"},
      {"infeasible-plan-names-exclusions", 24, "-", "an infeasible plan whose whole-device requests fit on no node names every node it left out and why (owned by another flow, or shares or slices)",
       check_infeasible_plan_names_exclusions, false, {"told: infeasible plan:"}, kReadsTold, false, nullptr,
       "after a step whose plan came back infeasible with the packing reason (\"no per-host packing places every whole-device request on one node\"): that reason names every node of the plan's inventory that was left out, as `<node>: owned by <flow>` for a node another flow owns and `<node>: <class>` for a time-sliced, mps, unknown or mig node (upstream `plan`)"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

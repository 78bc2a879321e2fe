// Start-state claims (scenario_state.h; docs/DESIGN.md §4 "Start claims"): reading the top-level `claims`,
// checking each against what upstream's reserve could have left, and building the backend's claims from them.
#include <fmt/format.h>

#include <algorithm>

#include "backend/model/mig_geometry.h"
#include "backend/model/pyrepr.h"
#include "backend/scenario/scenario_state.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::quote;

const std::vector<const char*> kClaimKeys = {"id",       "owner",  "generation",    "assignments",
                                             "geometry", "status", "workload_ready"};
const std::vector<const char*> kWholeDeviceKeys = {"node", "ordinal"};
const std::vector<const char*> kSliceDeviceKeys = {"node", "profile", "index"};
// The statuses upstream stores on a claim: `pending` between its creation and its scheduling (a crash at
// claim.create.after leaves it there), `allocated` once reserved, `failed` after reconcile; `prepared` and
// `ready` are only ever computed by _observe.
const std::vector<const char*> kStoredStatuses = {backend::kClaimPending, backend::kClaimAllocated,
                                                  backend::kClaimFailed};
constexpr int kMaxClaims = 64;

const backend::MigProfile* profile_named(const std::string& product, const std::string& name) {
  const backend::MigFamily* family = backend::find_family(product);
  if (family == nullptr) return nullptr;
  for (const auto& p : family->profiles)
    if (p.name == name) return &p;
  return nullptr;
}

/// Rule ids-never-minted: upstream mints `claim-<actor>-<k>` and `gen-<actor>-<k>` (backend_world.h: one id
/// counter per actor) for an actor that reserves, so a start id of that shape could be minted again and two
/// claims (or two owner epochs) would share a name. A plain prefix-and-digits test: names are bounded only by
/// the file's size, and a backtracking matcher's recursion overflowed the stack on a long one.
void check_not_minted(const ScenarioReader& r, const std::string& value, std::string_view kind,
                      const std::string& ptr) {
  for (const ActorSpec& a : r.scenario().actors) {
    if (a.script.empty()) continue;
    const std::string prefix = fmt::format("{}-{}-", kind, a.name);
    if (value.size() <= prefix.size() || value.compare(0, prefix.size(), prefix) != 0) continue;
    if (std::all_of(value.begin() + static_cast<std::ptrdiff_t>(prefix.size()), value.end(),
                    [](char c) { return c >= '0' && c <= '9'; }))
      r.fail(ptr, fmt::format("{} has the shape {}<k> the backend mints for actor {} (rule ids-never-minted: a "
                              "reserve of {} could mint it again)",
                              quote(value), prefix, quote(a.name), a.name));
  }
}

/// A claim's names are written into ids, audit records and trace lines: letters, digits and "._-" only, so
/// that no control character reaches a terminal and no ':' splits an operation id (upstream takes the owner
/// from the text before the first ':').
std::string claim_name(const ScenarioReader& r, const Json& v, const std::string& ptr, const char* noun) {
  std::string name = r.nonempty_string(v, ptr);
  r.check_charset(name, ptr, noun, "._-", "'.', '_' and '-'");
  return name;
}

/// The node of /nodes that `v` (at `ptr`) names (node_ref: did-you-mean otherwise).
const NodeSpec& node_named(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  const std::string name = r.node_ref(v, ptr);
  const auto& nodes = r.scenario().nodes;
  return *std::find_if(nodes.begin(), nodes.end(), [&](const NodeSpec& n) { return n.name == name; });
}

StartDevice read_device(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  r.want_object(v, ptr);
  StartDevice d;
  const NodeSpec& node = node_named(r, r.require(v, ptr, "node"), child(ptr, "node"));
  d.node = node.name;
  if (const Json* o = r.find(v, "ordinal")) {
    r.check_keys(v, ptr, kWholeDeviceKeys);
    d.ordinal = r.int_value(*o, child(ptr, "ordinal"), 0, node.gpu_count - 1, " (a card of the node)");
    return d;
  }
  r.check_keys(v, ptr, kSliceDeviceKeys);
  if (!r.find(v, "profile"))
    r.fail(ptr, "expected \"ordinal\" (a whole card) or \"profile\" and \"index\" (a MIG slice)");
  d.profile = r.nonempty_string(*r.find(v, "profile"), child(ptr, "profile"));
  if (profile_named(node.product, d.profile) == nullptr)
    r.fail(child(ptr, "profile"), fmt::format("{} is not a MIG profile of {}", quote(d.profile), node.product));
  d.index = r.int_value(r.require(v, ptr, "index"), child(ptr, "index"), 1, kMaxGpus, " (the slice's number)");
  return d;
}

StartClaim read_claim(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kClaimKeys);
  StartClaim c;
  c.id = claim_name(r, r.require(v, ptr, "id"), child(ptr, "id"), "claim id");
  check_not_minted(r, c.id, "claim", child(ptr, "id"));
  c.owner = claim_name(r, r.require(v, ptr, "owner"), child(ptr, "owner"), "owner");
  c.generation = claim_name(r, r.require(v, ptr, "generation"), child(ptr, "generation"), "generation");
  check_not_minted(r, c.generation, "gen", child(ptr, "generation"));

  const std::string aptr = child(ptr, "assignments");
  const Json& a = r.require(v, ptr, "assignments");
  r.want_object(a, aptr);
  // Rule claim-has-nodes: a plan places every request, so a claim holds at least one device.
  if (a.empty() || a.size() > static_cast<size_t>(kMaxGpus))
    r.fail(aptr, fmt::format("expected 1 to {} workloads, got {} (rule claim-has-nodes)", kMaxGpus, a.size()));
  for (auto it = a.begin(); it != a.end(); ++it) {
    const std::string wptr = child(aptr, it.key());
    if (it.key().empty()) r.fail(wptr, "workload names must be non-empty");
    r.check_charset(it.key(), wptr, "workload", "._-", "'.', '_' and '-'");
    r.want_array(it.value(), wptr);
    r.want_size(it.value(), wptr, 1, kMaxGpus, "devices");
    std::vector<StartDevice> devices;
    for (size_t i = 0; i < it.value().size(); ++i) {
      const std::string dptr = child(wptr, std::to_string(i));
      StartDevice d = read_device(r, it.value()[i], dptr);
      // Rule devices-granted-once: a plan gives each device to one workload, once.
      for (const auto& [other, granted] : c.assignments)
        if (std::find(granted.begin(), granted.end(), d) != granted.end())
          r.fail(dptr,
                 fmt::format("this device is also granted to workload {} (rule devices-granted-once)", quote(other)));
      if (std::find(devices.begin(), devices.end(), d) != devices.end())
        r.fail(dptr, "the same device twice in one workload's grant (rule devices-granted-once)");
      devices.push_back(std::move(d));
    }
    c.assignments.emplace_back(it.key(), std::move(devices));
  }

  if (const Json* g = r.find(v, "geometry")) {
    const std::string gptr = child(ptr, "geometry");
    // Rule geometry-needs-a-mig-authority: plan() refuses isolated MIG sharers unless the authority provides
    // them (capabilities: managed-mig and dra), so only there can a plan carry geometry.
    const std::string& authority = r.scenario().authority;
    if (authority != backend::kAuthorityManagedMig && authority != backend::kAuthorityDra)
      r.fail(gptr, fmt::format("geometry under the {} authority, which provides no isolated MIG slices (rule "
                               "geometry-needs-a-mig-authority: its plan refuses MIG sharers)",
                               authority));
    r.want_object(*g, gptr);
    for (auto it = g->begin(); it != g->end(); ++it) {
      const std::string nptr = child(gptr, it.key());
      const NodeSpec& node = node_named(r, Json(it.key()), nptr);
      c.geometry.emplace_back(node.name, read_card_layout(r, it.value(), nptr, node.product));
      if (c.geometry.back().second.empty())
        r.fail(nptr, "expected at least one profile (an empty layout carves nothing)");
    }
  }
  // Rule slices-of-the-geometry: a plan numbers a node's slices of a profile 1..count and writes that count
  // into the node's geometry; a whole card is never on a node the claim carves.
  for (const auto& [workload, devices] : c.assignments)
    for (size_t i = 0; i < devices.size(); ++i) {
      const StartDevice& d = devices[i];
      const std::string dptr = child(child(aptr, workload), std::to_string(i));
      const auto* layout = backend::find_in(c.geometry, d.node);
      if (d.ordinal && layout)
        r.fail(dptr, fmt::format("a whole card of {}, which the claim's geometry carves (rule slices-of-the-geometry)",
                                 d.node));
      if (d.ordinal) continue;
      const int* count = layout ? backend::find_in(*layout, d.profile) : nullptr;
      if (count == nullptr || d.index > *count)
        r.fail(dptr, fmt::format("slice {} of {} on {}, which the claim's geometry does not carve (rule "
                                 "slices-of-the-geometry: a plan numbers a node's slices 1..count)",
                                 d.index, d.profile, d.node));
    }
  for (const auto& [node, layout] : c.geometry) {
    bool granted = false;
    for (const auto& [workload, devices] : c.assignments)
      for (const StartDevice& d : devices) granted = granted || d.node == node;
    if (!granted)
      r.fail(child(child(ptr, "geometry"), node),
             fmt::format("geometry for {}, where the claim holds no device (rule slices-of-the-geometry: a plan "
                         "carves only the nodes it places MIG sharers on)",
                         node));
    // A plan counts the slices it hands out: a node's count of a profile is the number of its slices granted,
    // so with the numbering above they are exactly 1..count.
    for (const auto& [profile, count] : layout) {
      int slices = 0;
      for (const auto& [workload, devices] : c.assignments)
        for (const StartDevice& d : devices) slices += !d.ordinal && d.node == node && d.profile == profile;
      if (slices != count)
        r.fail(child(child(child(ptr, "geometry"), node), profile),
               fmt::format("{} slices of {} on {}, but the claim grants {} (rule slices-of-the-geometry: a plan "
                           "counts the slices it grants)",
                           count, profile, node, slices));
    }
  }

  if (const Json* s = r.find(v, "status")) c.status = r.choice(*s, child(ptr, "status"), kStoredStatuses);
  if (const Json* w = r.find(v, "workload_ready")) c.workload_ready = r.bool_value(*w, child(ptr, "workload_ready"));
  // Rule ready-after-allocation: a claim is pending only inside reserve's locked block (a crash there leaves it
  // so), and its flow, the only one that knows the id, never marks it ready afterwards.
  if (c.workload_ready && c.status == backend::kClaimPending)
    r.fail(child(ptr, "workload_ready"),
           "a pending claim marked ready (rule ready-after-allocation: only a flow that "
           "got the claim back marks it ready, and reserve hands it back allocated)");
  return c;
}

}  // namespace

void read_start_claims(const ScenarioReader& r, const Json& v, StartState& out) {
  const std::string ptr = "/claims";
  r.want_array(v, ptr);
  r.want_size(v, ptr, 0, kMaxClaims, "claims");
  std::vector<std::string> ids, generations;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string p = child(ptr, std::to_string(i));
    StartClaim c = read_claim(r, v[i], p);
    r.reject_duplicate(ids, c.id, ptr, child(p, "id"), "claim id");
    r.reject_duplicate(generations, c.generation, ptr, child(p, "generation"), "claim generation");
    ids.push_back(c.id);
    generations.push_back(c.generation);
    out.claims.push_back(std::move(c));
  }
}

void apply_start_claims(const Scenario& sc, backend::BackendState& s) {
  for (const StartClaim& spec : sc.start.claims) {
    backend::Claim c;
    c.claim_id = spec.id;
    c.owner = spec.owner;
    c.generation = spec.generation;
    c.status = spec.status;
    c.workload_ready = spec.workload_ready;
    // What upstream's plan would have built for these devices (memory_backend_plan.cpp): whole cards as the
    // inventory lists them, slices numbered per node and profile.
    c.plan.plan_id = "start";
    for (const auto& [workload, devices] : spec.assignments) {
      std::vector<backend::DeviceIdentity> built;
      for (const StartDevice& d : devices) {
        const backend::NodeFixture* n = s.node(d.node);
        if (d.ordinal) {
          built.push_back(
              backend::DeviceIdentity{d.node, d.ordinal, fmt::format("GPU-{}-{}", d.node, *d.ordinal), std::nullopt,
                                      n->product,
                                      static_cast<int64_t>(n->memory_gib * static_cast<double>(backend::kGiB)),
                                      std::nullopt});
        } else {
          const backend::MigProfile* p = profile_named(n->product, d.profile);
          built.push_back(backend::DeviceIdentity{d.node, std::nullopt, std::nullopt,
                                                  fmt::format("MIG-{}-{}-{}", d.node, d.profile, d.index), n->product,
                                                  int64_t{p->memory_gib} * backend::kGiB, d.profile});
        }
        c.nodes.push_back(d.node);
      }
      c.plan.assignments.emplace_back(workload, std::move(built));
    }
    std::sort(c.nodes.begin(), c.nodes.end());
    c.nodes.erase(std::unique(c.nodes.begin(), c.nodes.end()), c.nodes.end());
    for (const auto& [node, layout] : spec.geometry) {
      OrderedMap<std::string, int> sorted = layout;
      std::sort(sorted.begin(), sorted.end());
      std::string rendered;
      for (const auto& [profile, slices] : sorted)
        rendered += fmt::format("{}{}:{}", rendered.empty() ? "" : ",", profile, slices);
      c.plan.geometry.emplace_back(node, std::move(rendered));
    }
    // Upstream's reserve names an entry and labels the carved nodes only under managed-mig. The port-only
    // label_versions say which write readiness must answer; a leftover's label write is taken to be its node's
    // last write, so the start resourceVersion stands for it (docs/DESIGN.md §4 "Start claims").
    // A claim still `pending` was left between its creation and the block that names the entry (a crash at
    // claim.create.after), so it has none.
    if (!c.plan.geometry.empty() && sc.authority == backend::kAuthorityManagedMig &&
        c.status != backend::kClaimPending) {
      c.entry_name = fmt::format("videoflow-{}-{}", c.owner, c.generation);
      for (const auto& [node, rendered] : c.plan.geometry)
        c.label_versions.emplace_back(node, s.node(node)->resource_version);
    }
    s.claims.push_back(std::move(c));
  }
}

void start_claims_json(const StartState& s, nlohmann::ordered_json& j) {
  if (s.claims.empty()) return;
  nlohmann::ordered_json claims = nlohmann::ordered_json::array();
  for (const StartClaim& c : s.claims) {
    nlohmann::ordered_json o = {{"id", c.id}, {"owner", c.owner}, {"generation", c.generation}};
    nlohmann::ordered_json a = nlohmann::ordered_json::object();
    for (const auto& [workload, devices] : c.assignments) {
      nlohmann::ordered_json ds = nlohmann::ordered_json::array();
      for (const StartDevice& d : devices)
        ds.push_back(d.ordinal ? nlohmann::ordered_json{{"node", d.node}, {"ordinal", *d.ordinal}}
                               : nlohmann::ordered_json{{"node", d.node}, {"profile", d.profile}, {"index", d.index}});
      a[workload] = std::move(ds);
    }
    o["assignments"] = std::move(a);
    if (!c.geometry.empty()) {
      nlohmann::ordered_json g = nlohmann::ordered_json::object();
      for (const auto& [node, layout] : c.geometry) {
        nlohmann::ordered_json l = nlohmann::ordered_json::object();
        for (const auto& [profile, slices] : layout) l[profile] = slices;
        g[node] = std::move(l);
      }
      o["geometry"] = std::move(g);
    }
    if (c.status != backend::kClaimAllocated) o["status"] = c.status;
    if (c.workload_ready) o["workload_ready"] = true;
    claims.push_back(std::move(o));
  }
  j["claims"] = std::move(claims);
}

}  // namespace allocsim::harness

// Start state (scenario_state.h): reading it, checking it against what the backend could be in, applying it.
#include "backend/scenario/scenario_state.h"

#include <fmt/format.h>

#include "backend/model/mig_geometry.h"
#include "backend/model/pyrepr.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::quote;

const std::vector<const char*> kSharedMapKeys = {"entries", "tombstone"};
const std::vector<const char*> kClusterPolicyKeys = {"pointer", "restore"};

}  // namespace

OrderedMap<std::string, int> read_card_layout(const ScenarioReader& r, const Json& v, const std::string& ptr,
                                              const std::string& product) {
  r.want_object(v, ptr);
  OrderedMap<std::string, int> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    if (it.key().empty()) r.fail(p, "MIG profile names must be non-empty");
    out.emplace_back(it.key(), r.int_value(it.value(), p, 1, kMaxGpus, " (slices of the profile)"));
  }
  // Rule layout-fits-the-card: the backend only ever applies a layout its plan checked against the node's
  // product (check_layout, backend/CONTRACT.md §3: one card's profiles, totals, per-profile caps and a
  // placement), so a start layout that fails that check is a state the backend could never be in.
  if (out.empty()) return out;
  std::string why;
  for (const std::string& problem : backend::check_layout(product, out)) why += (why.empty() ? "" : "; ") + problem;
  if (!why.empty())
    r.fail(ptr, fmt::format("{} does not fit one {} card: {} (rule layout-fits-the-card: the backend applies only "
                            "a layout its plan checked against the product's MIG table)",
                            backend::py::dict(out), product, why));
  return out;
}

OrderedMap<std::string, int> read_members(const ScenarioReader& r, const Json& v, const std::string& ptr) {
  r.want_object(v, ptr);
  OrderedMap<std::string, int> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    r.node_ref(Json(it.key()), p);  // entry-members-are-nodes: a member names a node in /nodes
    if (!it.value().is_number_integer() || it.value().get<long long>() != 1)
      r.fail(p, fmt::format("expected 1, got {} (rule entry-members-are-nodes: the backend publishes "
                            "{{node: 1}} for each node of a plan's geometry)",
                            it.value().dump()));
    out.emplace_back(it.key(), 1);
  }
  return out;
}

OrderedMap<std::string, OrderedMap<std::string, int>> read_map_entries(const ScenarioReader& r, const Json& v,
                                                                       const std::string& ptr) {
  r.want_object(v, ptr);
  OrderedMap<std::string, OrderedMap<std::string, int>> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    if (it.key().empty()) r.fail(p, "entry names must be non-empty");
    out.emplace_back(it.key(), read_members(r, it.value(), p));
  }
  return out;
}

const std::vector<const char*>& node_start_keys() {
  static const std::vector<const char*> k = {"resource_version",     "owner",      "owner_epoch",   "mig_state",
                                             "mig_state_generation", "mig_layout", "restore_record"};
  return k;
}

void read_node_start(const ScenarioReader& r, const Json& v, const std::string& ptr, NodeSpec& n) {
  if (const Json* x = r.find(v, "resource_version"))
    n.resource_version = r.int_value(*x, child(ptr, "resource_version"), 1, kMaxVersion);
  if (const Json* x = r.find(v, "owner")) n.owner = r.nonempty_string(*x, child(ptr, "owner"));
  if (const Json* x = r.find(v, "owner_epoch")) n.owner_epoch = r.nonempty_string(*x, child(ptr, "owner_epoch"));
  if (n.owner.has_value() != n.owner_epoch.has_value()) {
    const char* given = n.owner ? "owner" : "owner_epoch";
    const char* missing = n.owner ? "owner_epoch" : "owner";
    r.fail(child(ptr, given), fmt::format("{} without {} (rule owner-with-epoch: the backend stamps, rolls back "
                                          "and releases both together)",
                                          given, missing));
  }
  if (const Json* x = r.find(v, "mig_state")) n.mig_state = r.choice(*x, child(ptr, "mig_state"), mig_state_words());
  if (const Json* x = r.find(v, "mig_state_generation")) {
    const std::string p = child(ptr, "mig_state_generation");
    n.mig_state_generation = r.int_value(*x, p, 0, kMaxVersion);
    if (n.mig_state_generation > n.resource_version)
      r.fail(p, fmt::format("{} is above the node's resource_version {} (rule state-answers-a-write: a state "
                            "answers a write the node has had)",
                            n.mig_state_generation, n.resource_version));
  }
  if (const Json* x = r.find(v, "mig_layout"))
    n.mig_layout = read_card_layout(r, *x, child(ptr, "mig_layout"), n.product);
  if (const Json* x = r.find(v, "restore_record"))
    n.restore_record = r.nonempty_string(*x, child(ptr, "restore_record"));
}

void read_shared_map(const ScenarioReader& r, const Json& v, StartState& out) {
  const std::string ptr = "/shared_map";
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kSharedMapKeys);
  out.has_shared_map = true;
  if (const Json* e = r.find(v, "entries")) out.shared_entries = read_map_entries(r, *e, child(ptr, "entries"));
  if (const Json* t = r.find(v, "tombstone")) {
    out.shared_tombstone = r.bool_value(*t, child(ptr, "tombstone"));
    if (out.shared_tombstone && !out.shared_entries.empty())
      r.fail(ptr, fmt::format("a tombstone with {} entries (rule tombstone-only-when-empty: the backend tombstones the "
                              "map its last release emptied, and publishing an entry clears the tombstone)",
                              out.shared_entries.size()));
  }
}

void read_cluster_policy(const ScenarioReader& r, const Json& v, StartState& out) {
  const std::string ptr = "/cluster_policy";
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kClusterPolicyKeys);
  out.has_cluster_policy = true;
  if (const Json* p = r.find(v, "pointer")) out.pointer = r.nonempty_string(*p, child(ptr, "pointer"));
  if (const Json* x = r.find(v, "restore")) {
    out.pointer_restore = r.nonempty_string(*x, child(ptr, "restore"));
    if (out.pointer != backend::kActivePointer)
      r.fail(ptr, fmt::format("a restore record while the pointer is {} (rule restore-only-while-pointed: the backend "
                              "records the previous pointer exactly when it points the policy at {})",
                              quote(out.pointer), quote(backend::kActivePointer)));
  }
}

void apply_start_state(const Scenario& sc, backend::BackendState& s) {
  for (const NodeSpec& spec : sc.nodes) {
    backend::NodeFixture* n = s.node(spec.name);
    if (n == nullptr) continue;  // cannot happen: the backend was built from sc.nodes
    n->resource_version = spec.resource_version;
    n->owner = spec.owner;
    n->owner_epoch = spec.owner_epoch;
    n->mig_state = spec.mig_state;
    n->mig_state_generation = spec.mig_state_generation;
    n->mig_layout = spec.mig_layout;
    n->restore_record = spec.restore_record;
  }
  s.shared_config = sc.start.shared_entries;
  s.shared_tombstone = sc.start.shared_tombstone;
  s.pointer = sc.start.pointer;
  s.pointer_restore = sc.start.pointer_restore;
  apply_start_claims(sc, s);
}

void node_start_json(const NodeSpec& n, nlohmann::ordered_json& j) {
  if (n.resource_version != 1) j["resource_version"] = n.resource_version;
  if (n.owner) j["owner"] = *n.owner;
  if (n.owner_epoch) j["owner_epoch"] = *n.owner_epoch;
  if (n.mig_state != "success") j["mig_state"] = n.mig_state;
  if (n.mig_state_generation != 0) j["mig_state_generation"] = n.mig_state_generation;
  if (!n.mig_layout.empty()) {
    nlohmann::ordered_json l = nlohmann::ordered_json::object();
    for (const auto& [profile, slices] : n.mig_layout) l[profile] = slices;
    j["mig_layout"] = std::move(l);
  }
  if (n.restore_record) j["restore_record"] = *n.restore_record;
}

void start_state_json(const StartState& s, nlohmann::ordered_json& j) {
  if (s.has_shared_map) {
    nlohmann::ordered_json entries = nlohmann::ordered_json::object();
    for (const auto& [entry, members] : s.shared_entries) {
      nlohmann::ordered_json m = nlohmann::ordered_json::object();
      for (const auto& [node, one] : members) m[node] = one;
      entries[entry] = std::move(m);
    }
    j["shared_map"] = {{"entries", std::move(entries)}, {"tombstone", s.shared_tombstone}};
  }
  if (s.has_cluster_policy) {
    j["cluster_policy"] = {{"pointer", s.pointer}};
    if (s.pointer_restore) j["cluster_policy"]["restore"] = *s.pointer_restore;
  }
  start_claims_json(s, j);
}

const std::vector<const char*>& mig_state_words() {
  static const std::vector<const char*> k = {"pending", "success", "failed"};
  return k;
}

}  // namespace allocsim::harness

#include "backend/harness/invariants.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "backend/harness/catalog.h"

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

std::string opt(const std::optional<std::string>& s) { return s ? *s : "-"; }

template <class V>
std::string render_map(const backend::OrderedMap<std::string, V>& m) {
  std::string out = "{";
  for (size_t i = 0; i < m.size(); ++i) out += fmt::format("{}{}: {}", i ? ", " : "", m[i].first, m[i].second);
  return out + "}";
}

}  // namespace

std::string render_node(const NodeFixture& n) {
  return fmt::format(
      "node {}: owner={} epoch={} resourceVersion={} mig_config={} state={}@{} layout={} workloads={} "
      "restore_record={}\n",
      n.name, opt(n.owner), opt(n.owner_epoch), n.resource_version, n.mig_config, n.mig_state,
      n.mig_state_generation, render_map(n.mig_layout), render_map(n.workloads), opt(n.restore_record));
}

std::string render_claim(const Claim& c) {
  std::string nodes;
  for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  return fmt::format("claim {}: owner={} generation={} nodes=[{}] entry={} {}\n", c.claim_id, c.owner, c.generation,
                     nodes, c.entry_name.empty() ? "-" : c.entry_name, c.releasing ? "releasing" : "live");
}

std::string render_map_state(const backend::BackendState& s) {
  std::string entries;
  for (const auto& [e, _] : s.shared_config) entries += (entries.empty() ? "" : ",") + e;
  return fmt::format("shared map: entries=[{}] tombstone={} deleted={} version={}; pointer={} (restore {})\n", entries,
                     s.shared_tombstone, s.shared_map_deleted, s.shared_config_version, s.pointer,
                     opt(s.pointer_restore));
}

std::string render_failed_reads(const backend::BackendState& s) {
  std::string kinds;
  for (const auto& [kind, reason] : s.failed_reads) kinds += fmt::format("{}{}={}", kinds.empty() ? "" : ",", kind, reason);
  return fmt::format("failed reads: [{}]\n", kinds);
}

namespace {

bool covers(const Claim& c, std::string_view node) {
  for (const auto& n : c.nodes)
    if (n == node) return true;
  return false;
}

Violation violation(const char* name, std::string message, std::string state) {
  return Violation{name, std::move(message), std::move(state)};
}

}  // namespace

std::optional<Violation> check_single_ownership(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const NodeFixture& n : s.nodes) {
    const Claim* first = nullptr;
    for (const Claim& cl : s.claims) {
      if (cl.releasing || !covers(cl, n.name)) continue;
      if (first && first->owner != cl.owner)
        return violation("single-ownership",
                         fmt::format("node {} is covered by live claims of two owners: {} ({}) and {} ({})", n.name,
                                     first->owner, first->claim_id, cl.owner, cl.claim_id),
                         render_node(n) + render_claim(*first) + render_claim(cl));
      if (!first) first = &cl;
      if (n.owner != cl.owner)
        return violation("single-ownership",
                         fmt::format("node {} is covered by live claim {} of {} but its owner is {}", n.name,
                                     cl.claim_id, cl.owner, opt(n.owner)),
                         render_node(n) + render_claim(cl));
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_no_double_grant(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  // device id -> the first live claim granted it. A flat vector searched linearly (a handful of devices; runs
  // after every step): the same first-wins answer as the std::map it replaces, without a string copy per device.
  std::vector<std::pair<std::string_view, const Claim*>> granted;
  for (const Claim& cl : s.claims) {
    if (cl.releasing) continue;
    for (const auto& [workload, devices] : cl.plan.assignments) {
      for (const auto& d : devices) {
        const std::string_view id = d.mig_uuid ? std::string_view(*d.mig_uuid) : d.uuid ? std::string_view(*d.uuid) : "";
        if (id.empty()) continue;
        auto it = std::find_if(granted.begin(), granted.end(), [&](const auto& g) { return g.first == id; });
        if (it == granted.end()) {
          granted.emplace_back(id, &cl);
          continue;
        }
        if (it->second != &cl)
          return violation("no-double-grant",
                           fmt::format("device {} is granted to live claims {} and {}", id, it->second->claim_id,
                                       cl.claim_id),
                           render_claim(*it->second) + render_claim(cl));
      }
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_no_orphaned_geometry(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  const auto claim_with_entry = [&](std::string_view entry) -> const Claim* {
    for (const Claim& cl : s.claims)
      if (cl.entry_name == entry) return &cl;
    return nullptr;
  };
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const NodeFixture& n = s.nodes[i];
    if (n.mig_config.starts_with(backend::kEntryPrefix)) {
      if (!backend::find_in(s.shared_config, n.mig_config))
        return violation("no-orphaned-geometry",
                         fmt::format("node {} is configured with {}, which is not in the shared map", n.name,
                                     n.mig_config),
                         render_node(n) + render_map_state(s));
      if (!claim_with_entry(n.mig_config))
        return violation("no-orphaned-geometry",
                         fmt::format("node {} is configured with {}, which no live or releasing claim owns", n.name,
                                     n.mig_config),
                         render_node(n) + render_map_state(s));
    }
    bool covered = false;
    for (const Claim& cl : s.claims) covered |= covers(cl, n.name);
    if (!covered && n.mig_config != c.world.original_configs()[i])
      return violation("no-orphaned-geometry",
                       fmt::format("node {} has no claim but is on {}, not its recorded config {}", n.name,
                                   n.mig_config, c.world.original_configs()[i]),
                       render_node(n));
  }
  for (const auto& [entry, _] : s.shared_config)
    if (!claim_with_entry(entry))
      return violation("no-orphaned-geometry",
                       fmt::format("shared map entry {} belongs to no live or releasing claim", entry),
                       render_map_state(s));
  return std::nullopt;
}

std::optional<Violation> check_shared_map_never_deleted(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  if (s.shared_map_deleted)
    return violation("shared-map-never-deleted", "the shared mig-parted map was deleted", render_map_state(s));
  if (!s.shared_config.empty() && s.pointer != backend::kActivePointer)
    return violation("shared-map-never-deleted",
                     fmt::format("the pointer names {} while the shared map still holds {} entr{}", s.pointer,
                                 s.shared_config.size(), s.shared_config.size() == 1 ? "y" : "ies"),
                     render_map_state(s));
  if (s.shared_config.empty() && s.pointer != backend::kDefaultPointer)
    return violation("shared-map-never-deleted",
                     fmt::format("the shared map has no entry but the pointer still names {}", s.pointer),
                     render_map_state(s));
  return std::nullopt;
}

std::optional<Violation> check_geometry_stable_under_workloads(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (size_t i = c.world.audit_seen; i < s.audit.size(); ++i) {
    const auto& m = s.audit[i];
    if (m.kind != "label-geometry" && m.kind != "restore-geometry") continue;
    const NodeFixture* n = s.node(m.target);
    if (n && !n->workloads.empty())
      return violation("geometry-stable-under-workloads",
                       fmt::format("{} wrote {} on node {} while workloads hold it", m.op_id, m.kind, n->name),
                       render_node(*n));
  }
  return std::nullopt;
}

std::optional<Violation> check_readiness_answers_its_write(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.observation) return std::nullopt;
  const auto& obs = *a.told.observation;
  const Claim* cl = c.world.backend().state().claim(obs.claim_id);
  if (!cl) return std::nullopt;
  if (obs.status == backend::kClaimReady && !cl->workload_ready)
    return violation("readiness-answers-its-write",
                     fmt::format("{} was told claim {} is ready, but its workload was never marked ready", a.name,
                                 cl->claim_id),
                     render_claim(*cl));
  if (obs.status != backend::kClaimPrepared) return std::nullopt;
  if (cl->entry_name.empty())
    return violation("readiness-answers-its-write",
                     fmt::format("{} was told claim {} is prepared, but it has no geometry to prepare", a.name,
                                 cl->claim_id),
                     render_claim(*cl));
  for (const auto& e : obs.evidence) {
    const int64_t* written = backend::find_in(cl->label_versions, e.node);
    const bool answers = e.mig_config == cl->entry_name && e.state == "success" && written &&
                         e.state_generation >= *written;
    if (!answers)
      return violation(
          "readiness-answers-its-write",
          fmt::format("{} was told claim {} is prepared, but node {} shows {} state {}@{} (this claim wrote {} at "
                      "version {})",
                      a.name, cl->claim_id, e.node, e.mig_config, e.state, e.state_generation, cl->entry_name,
                      written ? std::to_string(*written) : "never"),
          render_claim(*cl));
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

std::optional<Violation> check_stale_plan_writes_nothing(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const std::string& op : c.world.stale_reserves) {
    for (size_t i = c.world.audit_seen; i < s.audit.size(); ++i)
      if (s.audit[i].op_id == op)
        return violation("stale-plan-writes-nothing",
                         fmt::format("{} reserved with a stale expected generation yet wrote {} on {}", op,
                                     s.audit[i].kind, s.audit[i].target),
                         s.node(s.audit[i].target) ? render_node(*s.node(s.audit[i].target)) : render_map_state(s));
    for (const Claim& cl : s.claims)
      if (cl.op_id == op)
        return violation("stale-plan-writes-nothing",
                         fmt::format("{} reserved with a stale expected generation yet created claim {}", op,
                                     cl.claim_id),
                         render_claim(cl));
  }
  return std::nullopt;
}

std::optional<Violation> check_rollback_keeps_newer_owner(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const auto& s = c.world.backend().state();
  const ActorState& a = c.world.actors()[c.actor];
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const auto& before = c.world.shadow[i].owner_epoch;
    const NodeFixture& n = s.nodes[i];
    // Only removals: an owner write that replaces another epoch's stamp is a lost CAS, which
    // single-ownership reports once the overwritten claim is live.
    if (before && !n.owner_epoch && *before != a.op_epoch)
      return violation("rollback-keeps-newer-owner",
                       fmt::format("{} (epoch {}) removed node {}'s owner stamp of epoch {}", a.name,
                                   a.op_epoch.empty() ? "-" : a.op_epoch, n.name, *before),
                       render_node(n));
  }
  return std::nullopt;
}

std::optional<Violation> check_quiescent_clean(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const ActorState& a : c.world.actors()) {
    if (a.claims_made == 0 || a.claims_held != 0) continue;
    for (const NodeFixture& n : s.nodes)
      if (n.owner == a.name)
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but still owns node {}", a.name, n.name),
                         render_node(n));
    for (const Claim& cl : s.claims)
      if (cl.owner == a.name)
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but claim {} remains", a.name, cl.claim_id),
                         render_claim(cl));
    const std::string prefix = fmt::format("{}{}-", backend::kEntryPrefix, a.name);
    for (const auto& [entry, _] : s.shared_config)
      if (entry.starts_with(prefix))
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but map entry {} remains", a.name, entry),
                         render_map_state(s));
    if (s.shared_config.empty() && s.pointer != backend::kDefaultPointer)
      return violation("quiescent-clean",
                       fmt::format("no map entry is left but the pointer names {}", s.pointer), render_map_state(s));
  }
  return std::nullopt;
}

std::optional<Violation> check_recovery_converges(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.recovered_flow) return std::nullopt;
  const std::string& flow = *a.told.recovered_flow;
  const auto& s = c.world.backend().state();
  for (const NodeFixture& n : s.nodes)
    if (n.owner == flow)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but {} still owns node {} (epoch {})", a.name, flow, flow, n.name,
                                   opt(n.owner_epoch)),
                       render_node(n));
  for (const Claim& cl : s.claims)
    if (cl.owner == flow)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but claim {} remains", a.name, flow, cl.claim_id),
                       render_claim(cl));
  const std::string prefix = fmt::format("{}{}-", backend::kEntryPrefix, flow);
  for (const auto& [entry, _] : s.shared_config)
    if (entry.starts_with(prefix))
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but map entry {} remains", a.name, flow, entry),
                       render_map_state(s));
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const NodeFixture& n = s.nodes[i];
    bool covered = false;
    for (const Claim& cl : s.claims) covered |= covers(cl, n.name);
    if (covered) continue;
    if (n.restore_record)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but node {} has no claim and keeps restore record {}", a.name,
                                   flow, n.name, *n.restore_record),
                       render_node(n));
    if (n.mig_config != c.world.original_configs()[i])
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but node {} has no claim and is on {}, not its recorded config {}",
                                   a.name, flow, n.name, n.mig_config, c.world.original_configs()[i]),
                       render_node(n));
  }
  return std::nullopt;
}

std::optional<Violation> check_invariants(BackendWorld& world, sim::ActorId actor, bool quiescent) {
  using Check = std::optional<Violation> (*)(const CheckContext&);
  // Indexed like invariant_catalog(); engine-level findings have no world check.
  static constexpr Check kChecks[] = {
      check_single_ownership,        check_no_double_grant,         check_no_orphaned_geometry,
      check_shared_map_never_deleted, check_geometry_stable_under_workloads, check_readiness_answers_its_write,
      check_partial_inventory_never_idle, check_stale_plan_writes_nothing, check_rollback_keeps_newer_owner,
      check_quiescent_clean,         check_recovery_converges,
  };
  static_assert(std::size(kChecks) == 11);
  const CheckContext ctx{world, actor, quiescent};
  for (size_t i : world.compiled().invariants) {
    if (i >= std::size(kChecks)) continue;
    if (kChecks[i] == check_quiescent_clean && !quiescent) continue;
    if (auto v = kChecks[i](ctx)) return v;
  }
  const auto& s = world.backend().state();
  world.audit_seen = s.audit.size();
  for (size_t i = 0; i < s.nodes.size(); ++i) world.shadow[i].owner_epoch = s.nodes[i].owner_epoch;
  return std::nullopt;
}

}  // namespace allocsim::harness

#include "backend/invariants/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "backend/invariants/capacity.h"
#include "backend/invariants/catalog.h"
#include "backend/invariants/client.h"
#include "backend/invariants/geometry.h"
#include "backend/invariants/state_view.h"
#include "backend/world/dirty.h"

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

std::string opt(const std::optional<std::string>& s) { return s ? *s : "-"; }

}  // namespace

namespace {

bool covers(const Claim& c, std::string_view node) {
  for (const auto& n : c.nodes)
    if (n == node) return true;
  return false;
}

/// Whether shared-map entry `entry` is one of `flow`'s: "<entry prefix><flow>-...", compared in place (the
/// prefix is longer than a short string's buffer, so building it would allocate).
bool entry_of(std::string_view entry, std::string_view flow) {
  const std::string_view prefix = backend::kEntryPrefix;
  return entry.starts_with(prefix) && entry.substr(prefix.size()).starts_with(flow) &&
         entry.size() > prefix.size() + flow.size() && entry[prefix.size() + flow.size()] == '-';
}

Violation violation(const char* name, std::string message, std::string state) {
  return Violation{name, std::move(message), std::move(state)};
}

}  // namespace

const NodeFixture* node_named(const BackendWorld& w, std::string_view name) {
  const auto& nodes = w.backend().state().nodes;
  const NodeIndex& index = w.compiled().node_index;
  if (index.size() == nodes.size())
    if (const auto i = index.find(name); i && nodes[*i].name == name) return &nodes[*i];
  return w.backend().state().node(name);
}

std::optional<Violation> check_single_ownership(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const uint32_t i : c.nodes()) {
    const NodeFixture& n = s.nodes[i];
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
  // after every step): the same first-wins answer as the std::map it replaces, without a string copy per device,
  // in the memo's scratch so that it allocates nothing after the first few executions.
  auto& granted = c.scratch().granted;
  granted.clear();
  for (const Claim& cl : s.claims) {
    if (cl.releasing) continue;
    for (const auto& [workload, devices] : cl.plan.assignments) {
      for (const auto& d : devices) {
        const std::string_view id = d.mig_uuid ? std::string_view(*d.mig_uuid)
                                    : d.uuid   ? std::string_view(*d.uuid)
                                               : "";
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
                           render_claim(*it->second, ClaimFields::Devices) + render_claim(cl, ClaimFields::Devices));
        // One plan never hands a device to two of its workloads (seed `plan`: `if d not in assigned`).
        return violation("no-double-grant",
                         fmt::format("device {} is granted twice within live claim {}", id, cl.claim_id),
                         render_claim(cl, ClaimFields::Devices));
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
  for (const uint32_t i : c.nodes()) {
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
                       render_node(n) + render_map_state(s));
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
    const std::string_view kind = m.kind;  // compared as a view: the literals measured at compile time
    if (kind != "label-geometry" && kind != "restore-geometry") continue;
    const NodeFixture* n = node_named(c.world, m.target);
    if (n && !n->workloads.empty())
      return violation("geometry-stable-under-workloads",
                       fmt::format("{} wrote {} on node {} while workloads hold it", m.op_id, m.kind, n->name),
                       render_node(*n));
  }
  return std::nullopt;
}

std::optional<ToldObservation> told_observation(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.observation) return std::nullopt;
  const Claim* cl = c.world.backend().state().claim(a.told.observation->claim_id);
  if (!cl) return std::nullopt;
  return ToldObservation{*a.told.observation, *cl};
}

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

std::optional<Violation> check_stale_plan_writes_nothing(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const std::string& op : c.world.stale_reserves) {
    for (size_t i = c.world.audit_seen; i < s.audit.size(); ++i)
      if (s.audit[i].op_id == op)
        return violation("stale-plan-writes-nothing",
                         fmt::format("{} reserved with a stale expected generation yet wrote {} on {}", op,
                                     s.audit[i].kind, s.audit[i].target),
                         (s.node(s.audit[i].target) ? render_node(*s.node(s.audit[i].target)) : render_map_state(s)) +
                             render_stale_reserves(c.world));
    for (const Claim& cl : s.claims)
      if (cl.op_id == op)
        return violation("stale-plan-writes-nothing",
                         fmt::format("{} reserved with a stale expected generation yet created claim {}", op,
                                     cl.claim_id),
                         render_claim(cl) + render_stale_reserves(c.world));
  }
  return std::nullopt;
}

std::optional<Violation> check_rollback_keeps_newer_owner(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const auto& s = c.world.backend().state();
  const ActorState& a = c.world.actors()[c.actor];
  for (const uint32_t i : c.nodes()) {
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
    // The first node a.name owns, in node order: in an incremental check among the nodes with an owner only.
    const NodeFixture* owned = nullptr;
    const auto visit = [&](size_t i) {
      if (!owned && s.nodes[i].owner == a.name) owned = &s.nodes[i];
    };
    if (c.memo)
      c.memo->owned_nodes.each(visit);
    else
      for (size_t i = 0; i < s.nodes.size(); ++i) visit(i);
    if (owned)
      return violation("quiescent-clean",
                       fmt::format("{} released what it claimed, but still owns node {}", a.name, owned->name),
                       render_node(*owned) + render_actor_claims(a));
    for (const Claim& cl : s.claims)
      if (cl.owner == a.name)
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but claim {} remains", a.name, cl.claim_id),
                         render_claim(cl) + render_actor_claims(a));
    for (const auto& [entry, _] : s.shared_config)
      if (entry_of(entry, a.name))
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but map entry {} remains", a.name, entry),
                         render_map_state(s) + render_actor_claims(a));
    if (s.shared_config.empty() && s.pointer != backend::kDefaultPointer)
      return violation("quiescent-clean", fmt::format("no map entry is left but the pointer names {}", s.pointer),
                       render_map_state(s) + render_actor_claims(a));
  }
  return std::nullopt;
}

std::optional<Violation> check_recovery_converges(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.recovered_flow) return std::nullopt;
  const std::string& flow = *a.told.recovered_flow;
  const auto& s = c.world.backend().state();
  const std::string recovered = fmt::format("actor {}: recovered={}\n", a.name, flow);
  for (const NodeFixture& n : s.nodes)
    if (n.owner == flow)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but {} still owns node {} (epoch {})", a.name, flow, flow, n.name,
                                   opt(n.owner_epoch)),
                       render_node(n) + recovered);
  for (const Claim& cl : s.claims)
    if (cl.owner == flow)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but claim {} remains", a.name, flow, cl.claim_id),
                       render_claim(cl) + recovered);
  for (const auto& [entry, _] : s.shared_config)
    if (entry_of(entry, flow))
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but map entry {} remains", a.name, flow, entry),
                       render_map_state(s) + recovered);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const NodeFixture& n = s.nodes[i];
    bool covered = false;
    for (const Claim& cl : s.claims) covered |= covers(cl, n.name);
    if (covered) continue;
    if (n.restore_record)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but node {} has no claim and keeps restore record {}", a.name,
                                   flow, n.name, *n.restore_record),
                       render_node(n) + recovered);
    if (n.mig_config != c.world.original_configs()[i])
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but node {} has no claim and is on {}, not its recorded config {}",
                                   a.name, flow, n.name, n.mig_config, c.world.original_configs()[i]),
                       render_node(n) + recovered);
  }
  return std::nullopt;
}

const std::vector<InvariantSpec>& invariant_catalog() {
  // clang-format off
  static const std::vector<InvariantSpec> k = {
      {"single-ownership", "ALLOC-004", "every node a live claim covers is owned by that claim's owner; no node under two owners' live claims",
       check_single_ownership, false, {"owner=", "nodes=[", "live"}, kReadsNodes | kReadsClaims, true, nullptr},
      {"no-double-grant", "ALLOC-022", "no GPU or MIG uuid is granted to two live claims",
       check_no_double_grant, false, {"devices=[", "live"}, kReadsClaims, false, nullptr},
      {"no-orphaned-geometry", "ALLOC-005", "allocsim geometry on a node has its map entry and a live or releasing claim; no stray entries; free nodes are back on their recorded config",
       check_no_orphaned_geometry, false, {"entries=["}, kReadsNodes | kReadsClaims | kReadsMap, true, nullptr},
      {"shared-map-never-deleted", "ALLOC-006", "the shared map always exists; the pointer names it while any entry exists, and the original once none does",
       check_shared_map_never_deleted, false, {"entries=[", "deleted=", "pointer="}, kReadsMap | kReadsPointer, false, nullptr},
      {"geometry-stable-under-workloads", "ALLOC-012", "no geometry is written or restored on a node while a workload holds it",
       check_geometry_stable_under_workloads, false, {"workloads=", "mig_config="}, kReadsAudit, false, nullptr},
      {"readiness-answers-its-write", "ALLOC-003", "prepared only when every node's state answers this claim's own write; ready only after the workload was marked ready",
       check_readiness_answers_its_write, false, {"entry=", "workload_ready=", "label_versions="}, kReadsTold, false, nullptr},
      {"partial-inventory-never-idle", "ALLOC-007", "a plan made from an inventory taken while pod reads failed is infeasible",
       check_partial_inventory_never_idle, false, {"failed reads: ["}, kReadsTold, false, nullptr},
      {"stale-plan-writes-nothing", "ALLOC-023", "a reserve whose expected generation is stale adds no audit entry and changes no state",
       check_stale_plan_writes_nothing, false, {"stale reserves: ["}, kReadsStep, false, nullptr},
      {"rollback-keeps-newer-owner", "ALLOC-033", "a rollback or release removes only an owner stamp made by the same claim (epoch)",
       check_rollback_keeps_newer_owner, false, {"owner=", "epoch="}, kReadsNodes, true, nullptr},
      {"quiescent-clean", "ALLOC-033", "at quiescence, actors that released what they claimed leave no owner, claim or entry; the pointer is back when no entry is left",
       check_quiescent_clean, true, {"claims_made=", "claims_held="}, 0, false, nullptr},
      {"recovery-converges", "ALLOC-033", "after a recover op completes, the recovered flow owns no node and has no claim or map entry left, and no node without a claim keeps a restore record or allocsim config (ALLOC-033)",
       check_recovery_converges, false, {"recovered="}, kReadsTold, false, nullptr},
      {"no-deadlock", "ALLOC-013", "some actor can always run while any is unfinished", nullptr, false, {}, 0, false, nullptr},
      {"steps-bounded", "ALLOC-013", "an execution ends within its step limit (--max-steps)", nullptr, false, {}, 0, false, nullptr},
      {"actor-exception", "-", "no actor ends with an unexpected exception", nullptr, false, {}, 0, false, nullptr},
      // Issue 13 item 7 (invariants_capacity.cpp, invariants_geometry.cpp), appended so that earlier rows keep
      // their order and index.
      {"capacity-within-cards", "-", "the cards live claims hold on a node plus the units of workloads no live claim covers never exceed the node's cards",
       check_capacity_within_cards, false, {"cards=", "granted=[", "workloads="}, kReadsNodes | kReadsClaims, true, nullptr},
      {"bound-workload-covered", "ALLOC-013", "a flow's workload bound under a live claim stays covered by one while bound; one bound while its live claims grant it devices is bound on one of their nodes",
       check_bound_workload_covered, false, {"workloads=", "flow workload "}, kReadsNodes | kReadsClaims, true, nullptr},
      {"no-apply-under-later-workload", "ALLOC-012", "no geometry apply runs on a node while a workload bound after that geometry write holds it",
       check_no_apply_under_later_workload, false, {"workloads=", "geometry write ", "workloads_then=["}, kReadsStep, false, nullptr},
      {"geometry-converges", "ALLOC-021", "at quiescence, every geometry write was applied within converge_seconds of fake clock, or the run ended before that much time passed",
       check_geometry_converges, true, {"geometry write ", "written_at=", "converge_seconds="}, 0, false, nullptr},
      // Issue 17's client-side rows: last, so that no older invariant's first violation changes.
      {"observation-matches-claim", "-", "an observation of a claim names its owner and generation and grants exactly the devices its plan assigns",
       check_observation_matches_claim, false, {"devices=[", "told: observation"}, kReadsTold, false, nullptr},
      {"bindings-match-grant", "-", "once a claim is ready, bindings() of each of its workloads gives the GPU limit, visible devices and nodes of that workload's grant",
       check_bindings_match_grant, false, {"devices=[", "gpu_limit="}, kReadsTold, false, nullptr},
      {"mig-layout-matches-grant", "-", "a node that applied a claim's geometry shows a layout counting exactly the MIG devices granted on it",
       check_mig_layout_matches_grant, false, {"layout=", "devices=["}, kReadsNodes | kReadsClaims | kReadsMap, true, nullptr},
      {"audit-explains-state", "-", "the audit log replayed over the start state gives every owner, node config, restore record, map entry and pointer, and the map's and pointer's versions",
       check_audit_explains_state, false, {"audit: ["}, kReadsNodes | kReadsMap | kReadsPointer | kReadsAudit | kReadsQuiescence, true, check_audit_explains_state_incremental},
      {"capabilities-match-authority", "-", "at quiescence, capabilities() advertises what the backend's authority provides (adapter, isolation, sharing, memory enforcement, elasticity)",
       check_capabilities_match_authority, true, {"capabilities: adapter="}, 0, false, nullptr},
      {"observation-envelope-complete", "-", "every answer an actor is told (inventory, observe) is stamped with the clock's time of the read; a Known one carries its value's generation, an Unknown one a reason from the contract and a detail",
       check_observation_envelope_complete, false, {"told: envelope of"}, kReadsTold, false, nullptr},
      {"infeasible-plan-names-exclusions", "-", "an infeasible plan whose whole-device requests fit on no node names every node it left out and why (owned by another flow, or shares or slices)",
       check_infeasible_plan_names_exclusions, false, {"told: infeasible plan:"}, kReadsTold, false, nullptr},
      {"entry-lists-its-nodes", "-", "the shared map's entry of a claim lists exactly the nodes its plan carves geometry on",
       check_entry_lists_its_nodes, false, {"entries=["}, kReadsClaims | kReadsMap, false, nullptr},
  };
  // clang-format on
  return k;
}

}  // namespace allocsim::harness

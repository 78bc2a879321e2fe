// The ownership family (ownership.h): its checks, then its rows of the invariant table.
#include "backend/invariants/ownership.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "backend/invariants/state_view.h"

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

/// Whether shared-map entry `entry` is named for owner `flow`: "<entry prefix><flow>-...", compared in place (the
/// prefix is longer than a short string's buffer, so building it would allocate).
bool named_for(std::string_view entry, std::string_view flow) {
  const std::string_view prefix = backend::kEntryPrefix;
  return entry.starts_with(prefix) && entry.substr(prefix.size()).starts_with(flow) &&
         entry.size() > prefix.size() + flow.size() && entry[prefix.size() + flow.size()] == '-';
}

/// Whether shared-map entry `entry` is one of `flow`'s: named for it, and not for a longer identity of an actor that
/// `flow` and a '-' begin ("videoflow-koord-scheduler-gen-..." is koord-scheduler's, not koord's). Those are looked for
/// only once the name matches, which is rare: a left entry is what the callers report.
bool entry_of(std::string_view entry, std::string_view flow, const std::vector<ActorState>& actors) {
  if (!named_for(entry, flow)) return false;
  return std::none_of(actors.begin(), actors.end(), [&](const ActorState& a) {
    return a.owner.size() > flow.size() && a.owner.starts_with(flow) && a.owner[flow.size()] == '-' &&
           named_for(entry, a.owner);
  });
}

}  // namespace

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
                                     cl.claim_id, cl.owner, or_dash(n.owner)),
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
        // One plan never hands a device to two of its workloads (upstream `plan`: `if d not in assigned`).
        return violation("no-double-grant",
                         fmt::format("device {} is granted twice within live claim {}", id, cl.claim_id),
                         render_claim(cl, ClaimFields::Devices));
      }
    }
  }
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
    // A stamp is one write of two fields (upstream `node.owner, node.owner_epoch = ...`), and so is its removal:
    // half of one is an owner no release or rollback can match, or an epoch that outlives its owner.
    if (n.owner.has_value() != n.owner_epoch.has_value())
      return violation("rollback-keeps-newer-owner",
                       fmt::format("{} left node {} with half an owner stamp: owner {}, epoch {}", a.name, n.name,
                                   or_dash(n.owner), or_dash(n.owner_epoch)),
                       render_node(n));
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
  const auto& actors = c.world.actors();
  for (const ActorState& a : actors) {
    if (a.claims_made == 0 || a.claims_held != 0) continue;
    // What a's owner identity owns is a's to leave clean only once no replica of it (docs/DESIGN.md §4 "Owner
    // identity") holds a claim.
    if (std::any_of(actors.begin(), actors.end(),
                    [&](const ActorState& r) { return r.owner == a.owner && r.claims_held != 0; }))
      continue;
    // Under a shared identity the leftover may be a replica's: the message names the identity (formatted only then).
    const auto identity = [&](const char* words) {
      return a.owner == a.name ? std::string() : fmt::format("{} {}", words, a.owner);
    };
    // The first node a's identity owns, in node order: in an incremental check among the nodes with an owner only.
    const NodeFixture* owned = nullptr;
    const auto visit = [&](size_t i) {
      if (!owned && s.nodes[i].owner == a.owner) owned = &s.nodes[i];
    };
    if (c.memo)
      c.memo->owned_nodes.each(visit);
    else
      for (size_t i = 0; i < s.nodes.size(); ++i) visit(i);
    if (owned)
      return violation("quiescent-clean",
                       fmt::format("{} released what it claimed, but{} still owns node {}", a.name,
                                   identity(" its owner identity"), owned->name),
                       render_node(*owned) + render_actor_claims(a));
    for (const Claim& cl : s.claims)
      if (cl.owner == a.owner)
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but claim {}{} remains", a.name, cl.claim_id,
                                     identity(" of its owner identity")),
                         render_claim(cl) + render_actor_claims(a));
    for (const auto& [entry, _] : s.shared_config)
      if (entry_of(entry, a.owner, actors))
        return violation("quiescent-clean",
                         fmt::format("{} released what it claimed, but map entry {}{} remains", a.name, entry,
                                     identity(" of its owner identity")),
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
                                   or_dash(n.owner_epoch)),
                       render_node(n) + recovered);
  for (const Claim& cl : s.claims)
    if (cl.owner == flow)
      return violation("recovery-converges",
                       fmt::format("{} recovered {}, but claim {} remains", a.name, flow, cl.claim_id),
                       render_claim(cl) + recovered);
  for (const auto& [entry, _] : s.shared_config)
    if (entry_of(entry, flow, c.world.actors()))
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

std::vector<InvariantSpec> ownership_invariants() {
  // clang-format off
  return {
      {"single-ownership", 0, "ALLOC-004", "every node a live claim covers is owned by that claim's owner; no node under two owners' live claims",
       check_single_ownership, false, {"owner=", "nodes=[", "live"}, kReadsNodes | kReadsClaims, true, nullptr,
       "for every node, every live claim covering it has the node's owner as its owner, and no two live claims covering it have different owners"},
      {"no-double-grant", 1, "ALLOC-022", "no GPU or MIG uuid is granted to two live claims",
       check_no_double_grant, false, {"devices=[", "live"}, kReadsClaims, false, nullptr,
       "no device id (the MIG uuid if any, else the GPU uuid) appears in the grants of two different live claims, nor twice in the grant of one (a plan never hands one device to two of its workloads)"},
      {"stale-plan-writes-nothing", 7, "ALLOC-023", "a reserve whose expected generation is stale adds no audit entry and changes no state",
       check_stale_plan_writes_nothing, false, {"stale reserves: ["}, kReadsStep, false, nullptr,
       "a reserve refused by its generation check leaves no audit entry and no claim with its operation id"},
      {"rollback-keeps-newer-owner", 8, "ALLOC-033", "a rollback or release removes only an owner stamp made by the same claim (epoch); no step leaves half a stamp (an owner without its epoch, or an epoch without its owner)",
       check_rollback_keeps_newer_owner, false, {"owner=", "epoch="}, kReadsNodes, true, nullptr,
       "a step of actor A removes an owner stamp only if the stamp's epoch is A's own (a stamp replaced by another is a lost CAS, left to `single-ownership`), and leaves no node with half a stamp: an owner without its epoch, or an epoch without its owner (upstream writes and clears both in one assignment; half a stamp is one no later release or rollback can match)"},
      {"quiescent-clean", 9, "ALLOC-033", "at quiescence, actors that released what they claimed leave no owner, claim or entry; the pointer is back when no entry is left",
       check_quiescent_clean, true, {"claims_made=", "claims_held="}, 0, false, nullptr,
       "checked only at quiescence: an actor that made claims and holds none has no node it owns, no claim and no map entry left; and if the map is empty, the pointer is back to the default"},
      {"recovery-converges", 10, "ALLOC-033", "after a recover op completes, the recovered flow owns no node and has no claim or map entry left, and no node without a claim keeps a restore record or allocsim config (ALLOC-033); not judged for an identity other actors share",
       check_recovery_converges, false, {"recovered="}, kReadsTold, false, nullptr,
       "right after a `recover` op that waited for its flow's end: the recovered flow owns no node and has no claim or map entry left, and no node without a claim keeps a restore record or an allocsim config (ALLOC-033); not judged for an owner identity other actors share (§4 \"Owner identity\")"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

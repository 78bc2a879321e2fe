// heals-after-faults (healing.h): the healing phase, run on a copy of the backend at quiescence, and what the
// healed cluster must look like (docs/DESIGN.md §5, "The healing phase").
#include "backend/invariants/healing.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "backend/invariants/state_view.h"

namespace allocsim::harness {

using backend::BackendState;
using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

constexpr const char* kName = "heals-after-faults";

const ActorState* actor_named(const WorldState& w, std::string_view name) {
  for (const ActorState& a : w.actors())
    if (a.name == name) return &a;
  return nullptr;
}

bool holds(const ActorState& a, std::string_view claim_id) {
  return std::any_of(a.held.begin(), a.held.end(), [&](const auto& h) { return h.first == claim_id; });
}

/// "[n1, n2]".
std::string node_list(const Claim& cl) { return fmt::format("[{}]", fmt::join(cl.nodes, ", ")); }

/// What the healing did, as the state block's first line tells it.
struct HealingLog {
  std::string text;
  void add(std::string_view what) {
    if (!text.empty()) text += "; ";
    text += what;
  }
  std::string line() const { return fmt::format("healing: {}\n", text.empty() ? "nothing to do" : text); }
};

/// Lands every queued geometry apply: the fake clock moves to the last one due.
void land_applies(backend::MemoryBackend& b, backend::Caller& caller, HealingLog& log) {
  const auto& pending = b.state().pending_geometry;
  if (pending.empty()) return;
  double last = b.state().clock.now();
  for (const auto& p : pending) last = std::max(last, p.due);
  const size_t n = pending.size();
  b.advance_clock(caller, last - b.state().clock.now());
  b.apply_pending_geometry(caller);
  log.add(fmt::format("{} queued appl{} landed at {}s", n, n == 1 ? "y" : "ies", last));
}

/// Steps 2 of healing.h on `b`, a copy of the world's backend.
void heal(backend::MemoryBackend& b, const WorldState& w, HealingLog& log) {
  backend::SequentialCaller caller;
  BackendState& s = b.mutable_state();
  // Every fault stops: what a fault armed is gone (the port-only geometry hooks with it).
  if (!s.failed_reads.empty() || !s.failing_geometry.empty() || !s.failing_geometry_until.empty() ||
      !s.hollow_geometry.empty())
    log.add("faults stopped");
  s.failed_reads.clear();
  s.failing_geometry.clear();
  s.failing_geometry_until.clear();
  s.hollow_geometry.clear();
  land_applies(b, caller, log);
  // Each crashed flow, in actor order, recovered as a restarted controller does (op_recover.cpp).
  for (const ActorState& a : w.actors()) {
    if (!a.crashed) continue;
    const auto claims = b.claims_of(caller, a.name);
    int k = 0;
    for (const auto& [claim_id, generation] : claims) {
      const backend::ReleaseObservation r =
          b.release(caller, claim_id, fmt::format("healing:recover-{}-{}", a.name, ++k), generation, false);
      log.add(fmt::format("recovered {} (crashed at {}): {} {}{}{}", a.name, a.crashed, claim_id, r.status,
                          r.reason.empty() ? "" : ": ", r.reason));
    }
    if (claims.empty()) log.add(fmt::format("recovered {} (crashed at {}): no claim", a.name, a.crashed));
  }
  land_applies(b, caller, log);
}

/// Whether a claim left after healing is one the cluster may keep: its owner ended alive and holds it, or
/// workloads still hold one of its nodes (its release would answer pending_recovery).
bool kept(const WorldState& w, const BackendState& s, const Claim& cl) {
  const ActorState* owner = actor_named(w, cl.owner);
  if (owner && !owner->crashed && holds(*owner, cl.claim_id)) return true;
  return std::any_of(cl.nodes.begin(), cl.nodes.end(), [&](const std::string& n) {
    const NodeFixture* node = s.node(n);
    return node && !node->workloads.empty();
  });
}

/// The state block's first line when step 1 reports: nothing was healed.
std::string healing_not_run() {
  HealingLog log;
  log.add("not run (a claim its alive flow cannot name is judged first)");
  return log.line();
}

std::string render_healed(const NodeFixture& n) { return "healed " + render_node(n); }
std::string render_healed(const Claim& cl) { return "healed " + render_claim(cl); }

/// Step 3 of healing.h on the healed state `s`.
std::optional<Violation> converged(const WorldState& w, const BackendState& s, const HealingLog& log) {
  // Nothing here allocates unless it reports: the check runs at the end of every execution.
  const auto fire = [&](std::string message, std::string state) {
    return violation(kName, fmt::format("after healing, {}", message), log.line() + state);
  };
  for (const Claim& cl : s.claims)
    if (!kept(w, s, cl))
      return fire(fmt::format("claim {} of {} remains on {}, though no workload holds it and its owner {}", cl.claim_id,
                              cl.owner, node_list(cl),
                              actor_named(w, cl.owner) ? "does not hold it" : "is no flow of the scenario"),
                  render_healed(cl));
  // Every claim is kept now: a leftover is explained when some claim satisfies `pred`.
  const auto explained_by = [&](auto pred) { return std::any_of(s.claims.begin(), s.claims.end(), pred); };
  for (const NodeFixture& n : s.nodes) {
    if (n.owner && !explained_by([&](const Claim& cl) { return cl.owner == *n.owner && covers(cl, n.name); }))
      return fire(fmt::format("node {} keeps {}'s owner stamp (epoch {}), which no claim left carries: release works "
                              "only through a claim, so no recovery clears it",
                              n.name, *n.owner, or_dash(n.owner_epoch)),
                  render_healed(n));
    const bool on_entry = n.mig_config.starts_with(backend::kEntryPrefix);
    // A claim left with geometry on the node explains its restore record, and a layout its config no longer
    // asks for (another writer relabelled the node under the claim: F12's shape, not a leftover).
    const bool under_geometry =
        explained_by([&](const Claim& cl) { return !cl.entry_name.empty() && covers(cl, n.name); });
    const auto carries_config = [&](const Claim& cl) { return cl.entry_name == n.mig_config && covers(cl, n.name); };
    if (on_entry && !explained_by(carries_config))
      return fire(fmt::format("node {} is on allocsim config {}, which no claim left carries", n.name, n.mig_config),
                  render_healed(n));
    if (n.restore_record && !under_geometry)
      return fire(fmt::format("node {} keeps restore record {}, though no claim with geometry covers it", n.name,
                              *n.restore_record),
                  render_healed(n));
    if (!n.mig_layout.empty() && n.mig_config == backend::kDefaultMigConfig && !under_geometry)
      return fire(fmt::format("node {} is carved on config {}: no claim explains its layout, and inventory classifies "
                              "a carved node as mig, so no plan uses it again",
                              n.name, n.mig_config),
                  render_healed(n));
    // A pending state is judged only under a claim left with geometry there, whose readiness waits on it
    // (upstream `_observe`); elsewhere it is the other writer's business.
    if (n.mig_state == "pending" && under_geometry &&
        std::none_of(s.pending_geometry.begin(), s.pending_geometry.end(),
                     [&](const auto& p) { return p.node == n.name; }))
      return fire(fmt::format("node {} waits in MIG state pending (generation {}) with no apply queued: the write it "
                              "waits for never lands",
                              n.name, n.mig_state_generation),
                  render_healed(n));
  }
  for (const auto& [entry, nodes] : s.shared_config)
    if (!explained_by([&](const Claim& cl) { return cl.entry_name == entry; }))
      return fire(fmt::format("map entry {} remains, though no claim left carries it", entry),
                  "healed " + render_map_state(s));
  if (s.shared_config.empty() != (s.pointer != backend::kActivePointer))
    return fire(fmt::format("the pointer names {} while the map holds {} entr{}", s.pointer, s.shared_config.size(),
                            s.shared_config.size() == 1 ? "y" : "ies"),
                "healed " + render_map_state(s));
  return std::nullopt;
}

}  // namespace

std::optional<Violation> check_heals_after_faults(const CheckContext& c) {
  const WorldState& w = c.world;
  const BackendState& s = w.backend().state();
  // 1. A claim its alive owner cannot name: no step of that flow will ever release it.
  for (const Claim& cl : s.claims) {
    const ActorState* a = actor_named(w, cl.owner);
    if (!a || a->crashed || holds(*a, cl.claim_id)) continue;
    return violation(kName,
                     fmt::format("{} ended without a crash, but claim {} (made by {}) is its and it was never told so: "
                                 "only a restarted controller's recover of {} could release it; until then it holds {}",
                                 a->name, cl.claim_id, cl.op_id, a->name, node_list(cl)),
                     healing_not_run() + render_claim(cl) + render_actor_claims(*a));
  }
  // 2. Heal a copy, unless nothing would move: no apply is queued and no crashed flow owns a claim (then stopping
  // the faults changes nothing the convergence reads).
  bool moves = !s.pending_geometry.empty();
  for (const Claim& cl : s.claims)
    if (const ActorState* a = actor_named(w, cl.owner); a && a->crashed) moves = true;
  HealingLog log;
  if (!moves) return converged(w, s, log);
  backend::MemoryBackend copy = w.backend();
  heal(copy, w, log);
  return converged(w, copy.state(), log);
}

std::vector<InvariantSpec> healing_invariants() {
  // clang-format off
  return {
      {kName, "ALLOC-033", "once every actor has ended, with faults stopped, queued applies landed and every crashed flow recovered, nothing is left that no claim explains: no claim an alive flow cannot name, no stray owner stamp, map entry, restore record, allocsim config or carved layout, no pending state with no apply queued, and the pointer agrees with the map",
       check_heals_after_faults, true, {"healing:"}, 0, false, nullptr},
  };
  // clang-format on
}

}  // namespace allocsim::harness

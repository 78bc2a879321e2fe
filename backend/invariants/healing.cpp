// heals-after-faults (healing.h): the healing phase, run on a copy of the backend at quiescence, and what the
// healed cluster must look like (docs/DESIGN.md §5, "The healing phase").
#include "backend/invariants/healing.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "backend/invariants/state_view.h"
#include "backend/world/claim_maker.h"

namespace allocsim::harness {

using backend::BackendState;
using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

constexpr const char* kName = "heals-after-faults";
/// Barriers one recovery release may fire before it counts as never returning (a release that spins, as the
/// release-spins-on-busy-nodes mutant does, would otherwise loop for ever: nothing yields in the healing).
constexpr uint64_t kReleaseBarriers = 10'000;

const ActorState* actor_named(const WorldState& w, std::string_view name) {
  for (const ActorState& a : w.actors())
    if (a.name == name) return &a;
  return nullptr;
}

/// The actor that made claim `cl` (minted_by), else (a start-state claim) the actor named as its owner, if that is
/// its identity too.
const ActorState* maker_of(const WorldState& w, const Claim& cl) {
  if (const auto i = minted_by(w.actors(), cl.owner, cl.claim_id)) return &w.actors()[*i];
  const ActorState* named = actor_named(w, cl.owner);
  return named && named->owner == cl.owner ? named : nullptr;
}

/// Whether the healing keeps claim `cl` as it is: its owner ended alive and holds it (a flow that keeps its
/// workload running), and no release of it began. Every other claim is released: by the cleanup ALLOC-033
/// prescribes for its flow, or, for a release that failed part way, by the retry ALLOC-006 says converges.
bool held_alive(const WorldState& w, const Claim& cl) {
  // The actor that made it, among those with the claim's owner identity (docs/DESIGN.md §4 "Owner identity").
  return !cl.releasing && std::any_of(w.actors().begin(), w.actors().end(), [&](const ActorState& a) {
    return a.owner == cl.owner && !a.crashed && a.holds(cl.claim_id);
  });
}

bool busy(const BackendState& s, const Claim& cl) {
  return std::any_of(cl.nodes.begin(), cl.nodes.end(), [&](const std::string& n) {
    const NodeFixture* node = s.node(n);
    return node && !node->workloads.empty();
  });
}

bool apply_queued(const BackendState& s, std::string_view node) {
  return std::any_of(s.pending_geometry.begin(), s.pending_geometry.end(),
                     [&](const auto& p) { return p.node == node; });
}

/// A node mig-manager, restarted, would reconcile: it waits in `pending` for an apply nobody queued (another
/// writer's half-finished reconfiguration), or it is carved while its config is the default.
bool drifted(const BackendState& s, const NodeFixture& n) {
  return (n.mig_state == "pending" && !apply_queued(s, n.name)) ||
         (!n.mig_layout.empty() && n.mig_config == backend::kDefaultMigConfig);
}

/// What the healing did, as the state block's first line tells it.
struct HealingLog {
  std::string text;
  void add(std::string_view what) {
    if (!text.empty()) text += "; ";
    text += what;
  }
  std::string line() const { return fmt::format("healing: {}\n", text.empty() ? "nothing to do" : text); }
};

/// The healing's caller: sequential, and a release that fires kReleaseBarriers barriers throws ReleaseSpins.
struct ReleaseSpins {};
class HealingCaller final : public backend::SequentialCaller {
 public:
  backend::BarrierHit barrier(std::string_view, std::string) override {
    if (++barriers_ > kReleaseBarriers) throw ReleaseSpins{};
    return {};
  }
  void start_call() { barriers_ = 0; }

 private:
  uint64_t barriers_ = 0;
};

/// Lands every queued geometry apply: the fake clock moves to the last one due.
void land_applies(backend::MemoryBackend& b, backend::Caller& caller, HealingLog& log) {
  const auto& pending = b.state().pending_geometry;
  if (pending.empty()) return;
  const double now = b.state().clock.now();
  double last = now;
  for (const auto& p : pending) last = std::max(last, p.due);
  const size_t n = pending.size();
  b.advance_clock(caller, last - now);
  b.apply_pending_geometry(caller);
  log.add(fmt::format("{} queued appl{} landed (the clock moved on {}s)", n, n == 1 ? "y" : "ies", last - now));
}

/// Why the healing releases `claim` of flow `a` (nullptr: the owner is no flow of the scenario).
std::string recovery_reason(const ActorState* a, const Claim& claim) {
  if (!a) return "no flow of the scenario";
  if (a->crashed) return fmt::format("crashed at {}", a->crashed);
  return a->holds(claim.claim_id) ? "a release that failed part way, retried" : "a claim it was never told of";
}

/// Step 2 of healing.h on `b`, a copy of the world's backend. Returns the message of a recovery release that never
/// returned, if one did not.
std::optional<std::string> heal(backend::MemoryBackend& b, const WorldState& w, HealingLog& log) {
  HealingCaller caller;
  BackendState& s = b.mutable_state();
  // Every fault stops: what a fault armed is gone (the port-only geometry hooks with it).
  if (!s.failed_reads.empty() || !s.failing_geometry.empty() || !s.failing_geometry_until.empty() ||
      !s.hollow_geometry.empty() || !s.partial_geometry.empty() || s.release_pods_hidden.reads > 0)
    log.add("faults stopped");
  s.failed_reads.clear();
  s.failing_geometry.clear();
  s.failing_geometry_until.clear();
  s.hollow_geometry.clear();
  s.partial_geometry.clear();
  s.release_pods_hidden = {};
  // mig-manager, restarted, reconciles every node that drifted from its config: an apply of the config it names.
  for (const NodeFixture& n : s.nodes)
    if (drifted(s, n)) {
      s.pending_geometry.push_back({s.clock.now(), n.name, n.resource_version});
      log.add(fmt::format("mig-manager reconciled {} ({})", n.name, n.mig_state == "pending" ? "pending" : "carved"));
    }
  land_applies(b, caller, log);
  // The cleanup of every claim the healing does not keep (ALLOC-033: a flow whose reserve failed or lost its answer,
  // or that crashed, is cleaned up by flow), in claim order: each released by id and generation, as a recover
  // releases what claims_of reads back.
  for (size_t i = 0; i < s.claims.size();) {
    const Claim& cl = s.claims[i];
    if (held_alive(w, cl)) {
      ++i;
      continue;
    }
    const std::string id = cl.claim_id, generation = cl.generation, owner = cl.owner;
    const std::string reason = recovery_reason(maker_of(w, cl), cl);
    caller.start_call();
    backend::ReleaseObservation r;
    try {
      r = b.release(caller, id, fmt::format("healing:recover-{}", id), generation, false);
    } catch (const ReleaseSpins&) {
      return fmt::format("the recovery of {} ({}) released {} and fired {} barriers without returning", owner, reason,
                         id, kReleaseBarriers);
    }
    log.add(fmt::format("recovered {} ({}): {} {}{}{}", owner, reason, id, r.status, r.reason.empty() ? "" : ": ",
                        r.reason));
    // A released claim left the list; one the release kept (workloads hold it) stays and is passed over.
    if (i < s.claims.size() && s.claims[i].claim_id == id) ++i;
  }
  land_applies(b, caller, log);
  return std::nullopt;
}

/// Step 3 of healing.h on the state `s` (healed when `healed`, else the world's own, which needed no healing).
std::optional<Violation> converged(const WorldState& w, const BackendState& s, bool healed, const HealingLog& log) {
  // Nothing here allocates unless it reports: the check runs at the end of every execution.
  const auto fire = [&](std::string message, std::string state) {
    return violation(kName, fmt::format("after healing, {}", message), log.line() + state);
  };
  // The objects' lines, marked "healed" when they are the copy's (render_like then shows them as computed).
  const std::string mark = healed ? "healed " : "";
  const auto node_line = [&](const NodeFixture& n) { return mark + render_node(n); };
  for (const Claim& cl : s.claims)
    if (!held_alive(w, cl) && !busy(s, cl))
      return fire(fmt::format("claim {} of {} remains on [{}] though no workload holds it", cl.claim_id, cl.owner,
                              fmt::join(cl.nodes, ", ")),
                  mark + render_claim(cl));
  // A claim its alive owner holds still has its nodes' stamps: a cleanup of an older claim of the same flow on the
  // same node clears the stamp the held one relies on (F1: upstream never stamps a flow's second claim on a node it
  // owns). A claim kept only because workloads hold it may have lost its stamps to its own release, which failed
  // after clearing them: it waits for the workloads, and is no leftover.
  for (const Claim& cl : s.claims) {
    if (!held_alive(w, cl)) continue;
    for (const std::string& name : cl.nodes)
      if (const NodeFixture* n = s.node(name); n && n->owner != cl.owner)
        return fire(fmt::format("claim {} of {} holds node {}, but the node's owner is {}: {}", cl.claim_id, cl.owner,
                                name, or_dash(n->owner),
                                healed ? "the cleanup of another claim of the flow cleared its stamp (F1)"
                                       : "the node lost its stamp"),
                    node_line(*n) + mark + render_claim(cl));
  }
  // Every claim left is kept: a leftover is explained when some claim satisfies `pred`.
  const auto explained_by = [&](auto pred) { return std::any_of(s.claims.begin(), s.claims.end(), pred); };
  for (const NodeFixture& n : s.nodes) {
    // Release clears a stamp only when owner and epoch are the claim's, so only that claim explains it.
    if (n.owner && !explained_by([&](const Claim& cl) {
          return cl.owner == *n.owner && cl.generation == n.owner_epoch && covers(cl, n.name);
        }))
      return fire(fmt::format("node {} keeps {}'s owner stamp (epoch {}), which no claim left carries: release "
                              "clears a stamp only through the claim of that epoch, so no recovery clears it",
                              n.name, *n.owner, or_dash(n.owner_epoch)),
                  node_line(n));
    const auto carries_config = [&](const Claim& cl) { return cl.entry_name == n.mig_config && covers(cl, n.name); };
    if (n.mig_config.starts_with(backend::kEntryPrefix) && !explained_by(carries_config))
      return fire(fmt::format("node {} is on allocsim config {}, which no claim left carries", n.name, n.mig_config),
                  node_line(n));
    // A claim left with geometry on the node explains its restore record, and a layout its config no longer asks
    // for (another writer relabelled the node under the claim: F12's shape, not a leftover).
    const bool under_geometry =
        explained_by([&](const Claim& cl) { return !cl.entry_name.empty() && covers(cl, n.name); });
    if (n.restore_record && !under_geometry)
      return fire(fmt::format("node {} keeps restore record {}, though no claim with geometry covers it", n.name,
                              *n.restore_record),
                  node_line(n));
    if (drifted(s, n) && !under_geometry)
      return fire(fmt::format("node {} is {} after mig-manager reconciled it", n.name,
                              n.mig_state == "pending" ? "still pending" : "still carved on the default config"),
                  node_line(n));
  }
  for (const auto& kv : s.shared_config) {
    const std::string& entry = kv.first;  // a named reference: clang does not capture structured bindings
    if (!explained_by([&](const Claim& cl) { return cl.entry_name == entry; }))
      return fire(fmt::format("map entry {} remains, though no claim left carries it", entry),
                  mark + render_map_state(s));
  }
  if (s.shared_config.empty() != (s.pointer != backend::kActivePointer))
    return fire(fmt::format("the pointer names {} while the map holds {} entr{}", s.pointer, s.shared_config.size(),
                            s.shared_config.size() == 1 ? "y" : "ies"),
                mark + render_map_state(s));
  return std::nullopt;
}

/// The log of a healing with nothing to move: what a reader would otherwise ask (a crashed flow, no claim of it).
HealingLog idle_log(const WorldState& w) {
  HealingLog log;
  for (const ActorState& a : w.actors())
    if (a.crashed) log.add(fmt::format("recovered {} (crashed at {}): no claim to read back", a.name, a.crashed));
  return log;
}

}  // namespace

std::optional<Violation> check_heals_after_faults(const CheckContext& c) {
  const WorldState& w = c.world;
  const BackendState& s = w.backend().state();
  // Heal a copy, unless nothing would move: no apply queued, no node drifted, every claim kept (then stopping the
  // faults changes nothing the convergence reads).
  bool moves = !s.pending_geometry.empty();
  for (const Claim& cl : s.claims) moves = moves || !held_alive(w, cl);
  for (const NodeFixture& n : s.nodes) moves = moves || drifted(s, n);
  if (!moves) return converged(w, s, false, idle_log(w));  // idle_log allocates only after a crash
  backend::MemoryBackend copy = w.backend();
  HealingLog log;
  if (const auto spins = heal(copy, w, log))
    return violation(kName, fmt::format("healing never ended: {}", *spins), log.line());
  return converged(w, copy.state(), true, log);
}

std::vector<InvariantSpec> healing_invariants() {
  // clang-format off
  return {
      {kName, 28, "ALLOC-033", "once every actor has ended, with faults stopped, drifted nodes reconciled, queued applies landed and every claim no alive flow holds cleaned up, nothing is left that no claim explains: no stray claim, owner stamp, map entry, restore record or allocsim config, and the pointer names the map if and only if it holds an entry",
       check_heals_after_faults, true, {"healing:"}, 0, false, nullptr,
       "checked only at quiescence, after every older invariant held: once faults stop, drifted nodes are reconciled, queued applies land and every claim no alive flow holds is cleaned up (on a copy of the backend), nothing is left that no remaining claim explains. Judged by the healing phase (\"The healing phase\" below), not on a property of one race"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

#include "backend/invariants/geometry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "backend/invariants/state_view.h"

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;
using sim::Violation;
using GeometryWrite = WorldState::GeometryWrite;

namespace {

bool still_pending(const backend::BackendState& s, const GeometryWrite& w) {
  return std::any_of(s.pending_geometry.begin(), s.pending_geometry.end(),
                     [&](const backend::PendingGeometry& p) { return p.node == w.node && p.version == w.version; });
}

std::string render_write(const GeometryWrite& w) {
  std::string then;
  for (const auto& id : w.workloads) then += (then.empty() ? "" : ",") + id;
  return fmt::format("geometry write {}@{}: written_at={:g} applied_at={} workloads_then=[{}]\n", w.node, w.version,
                     w.written_at, w.applied_at ? fmt::format("{:g}", *w.applied_at) : "-", then);
}

}  // namespace

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

std::optional<Violation> check_no_apply_under_later_workload(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const GeometryWrite& w : c.world.geometry_writes) {
    if (w.applied_at || still_pending(s, w)) continue;
    const NodeFixture* n = node_named(c.world, w.node);
    if (!n) continue;
    for (const auto& [id, units] : n->workloads)
      if (std::find(w.workloads.begin(), w.workloads.end(), id) == w.workloads.end())
        return Violation{"no-apply-under-later-workload",
                         fmt::format("the geometry write of version {} applied on node {} while workload {}, bound "
                                     "after that write, holds it",
                                     w.version, n->name, id),
                         render_node(*n) + render_write(w)};
  }
  return std::nullopt;
}

std::optional<Violation> check_geometry_converges(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  const double bound = resolve_converge_seconds(*c.world.compiled().scenario);
  const double now = s.clock.now();
  for (const GeometryWrite& w : c.world.geometry_writes) {
    const bool late = w.applied_at && *w.applied_at - w.written_at > bound;
    const bool stuck = !w.applied_at && now - w.written_at >= bound;
    if (!late && !stuck) continue;
    const NodeFixture* n = node_named(c.world, w.node);
    const std::string message =
        late ? fmt::format(
                   "the geometry write of version {} on node {} applied {:g} s after it was written "
                   "(converge_seconds {:g})",
                   w.version, w.node, *w.applied_at - w.written_at, bound)
             : fmt::format(
                   "the geometry write of version {} on node {} is still not applied {:g} s after it was "
                   "written (converge_seconds {:g})",
                   w.version, w.node, now - w.written_at, bound);
    return Violation{"geometry-converges", message,
                     (n ? render_node(*n) : std::string()) + render_write(w) +
                         fmt::format("clock: now={:g} converge_seconds={:g}\n", now, bound)};
  }
  return std::nullopt;
}

std::optional<Violation> check_mig_layout_matches_grant(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const uint32_t i : c.nodes()) {
    const NodeFixture& n = s.nodes[i];
    if (n.mig_state != std::string_view("success") || !n.mig_config.starts_with(backend::kEntryPrefix)) continue;
    if (!backend::find_in(s.shared_config, n.mig_config)) continue;
    const Claim* carver = nullptr;
    // profile -> count, as views into the claims and the node (scratch: this runs after steps that move geometry)
    auto& want = c.scratch().layout_want;
    want.clear();
    for (const Claim& cl : s.claims) {
      if (cl.entry_name != n.mig_config) continue;
      carver = &cl;
      for (const auto& [workload, devices] : cl.plan.assignments)
        for (const auto& d : devices)
          if (d.mig_profile && d.node == n.name) {
            const auto it =
                std::find_if(want.begin(), want.end(), [&](const auto& e) { return e.first == *d.mig_profile; });
            if (it != want.end())
              ++it->second;
            else
              want.emplace_back(*d.mig_profile, 1);
          }
    }
    const int64_t* written = carver ? backend::find_in(carver->label_versions, n.name) : nullptr;
    if (!written || n.mig_state_generation < *written) continue;  // the state answers an older write
    auto& got = c.scratch().layout_got;
    got.assign(n.mig_layout.begin(), n.mig_layout.end());
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    if (got != want) {
      std::string text;
      for (const auto& [profile, count] : want) text += fmt::format("{}{}:{}", text.empty() ? "" : ",", profile, count);
      return Violation{"mig-layout-matches-grant",
                       fmt::format("node {} applied {} for claim {}, whose MIG devices there need {{{}}}", n.name,
                                   n.mig_config, carver->claim_id, text),
                       render_node(n) + render_claim(*carver, ClaimFields::Devices)};
    }
  }
  return std::nullopt;
}

std::optional<Violation> check_entry_lists_its_nodes(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const Claim& cl : s.claims) {
    if (cl.entry_name.empty()) continue;
    const auto* members = backend::find_in(s.shared_config, cl.entry_name);
    if (members == nullptr) continue;  // a missing entry is no-orphaned-geometry's
    // Views into the claim and the map, in the memo's scratch: this runs after every step that moves claims.
    auto& want = c.scratch().entry_want;
    auto& got = c.scratch().entry_got;
    want.clear();
    got.clear();
    for (const auto& [node, layout] : cl.plan.geometry) want.push_back(node);
    for (const auto& [node, one] : *members) got.push_back(node);
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    if (got == want) continue;
    return Violation{"entry-lists-its-nodes",
                     fmt::format("the shared map's entry {} lists nodes [{}], but claim {} carves geometry on [{}]",
                                 cl.entry_name, fmt::join(got, ","), cl.claim_id, fmt::join(want, ",")),
                     render_claim(cl, ClaimFields::Devices) + render_map_state(s)};
  }
  return std::nullopt;
}

void record_geometry_writes(WorldState& world) {
  if (!world.compiled().records_geometry_writes) return;
  const auto& s = world.backend().state();
  const double now = s.clock.now();
  for (GeometryWrite& w : world.geometry_writes)
    if (!w.applied_at && !still_pending(s, w)) w.applied_at = now;
  const bool queued = world.backend().options().mig_apply_seconds > 0;
  for (size_t i = world.audit_seen; i < s.audit.size(); ++i) {
    const backend::Mutation& m = s.audit[i];
    if (std::string_view(m.kind) != "label-geometry") continue;  // a view: the literal measured at compile time
    const NodeFixture* n = node_named(world, m.target);
    if (!n) continue;
    GeometryWrite w{m.target, n->resource_version, now, {}, std::nullopt};
    for (const backend::Claim& cl : s.claims)
      if (cl.op_id == m.op_id)
        if (const int64_t* v = backend::find_in(cl.label_versions, m.target)) w.version = *v;
    for (const auto& [id, units] : n->workloads) w.workloads.push_back(id);
    if (!queued || !still_pending(s, w)) w.applied_at = now;
    world.geometry_writes.push_back(std::move(w));
  }
}

std::vector<InvariantSpec> geometry_invariants() {
  // clang-format off
  return {
      {"no-orphaned-geometry", 2, "ALLOC-005", "allocsim geometry on a node has its map entry and a live or releasing claim; no stray entries; free nodes are back on their recorded config",
       check_no_orphaned_geometry, false, {"entries=["}, kReadsNodes | kReadsClaims | kReadsMap, true, nullptr,
       "a node whose MIG config is an allocsim entry (`videoflow-…`) has that entry in the shared map and a live or releasing claim with that entry; a node covered by no claim at all is on the config it had at the start (its start `restore_record` when it starts on an allocsim entry with one); every shared-map entry belongs to some claim"},
      {"shared-map-never-deleted", 3, "ALLOC-006", "the shared map always exists; the pointer names it while any entry exists, and the original once none does",
       check_shared_map_never_deleted, false, {"entries=[", "deleted=", "pointer="}, kReadsMap | kReadsPointer, false, nullptr,
       "the shared map was never deleted (a tombstone is fine); while it holds an entry the pointer is `videoflow-map`, and once it holds none the pointer is `default-mig-parted-config` again"},
      {"geometry-stable-under-workloads", 4, "ALLOC-012", "no geometry is written or restored on a node while a workload holds it",
       check_geometry_stable_under_workloads, false, {"workloads=", "mig_config="}, kReadsAudit, false, nullptr,
       "no `label-geometry` or `restore-geometry` audit entry written during the step targets a node that a workload holds"},
      {"no-apply-under-later-workload", 16, "ALLOC-012", "no geometry apply runs on a node while a workload bound after that geometry write holds it",
       check_no_apply_under_later_workload, false, {"workloads=", "geometry write ", "workloads_then=["}, kReadsStep, false, nullptr,
       "when the apply of a `label-geometry` write runs (its entry leaves the pending queue, success or failed), every workload holding the node held it right after the write. Workloads present at the write are `geometry-stable-under-workloads`' business; an apply with `mig_apply_seconds` 0 runs in the write's own step and cannot be judged"},
      {"geometry-converges", 17, "ALLOC-021", "at quiescence, every geometry write was applied within converge_seconds of fake clock, or the run ended before that much time passed",
       check_geometry_converges, true, {"geometry write ", "written_at=", "converge_seconds="}, 0, false, nullptr,
       "checked only at quiescence (bounded liveness): with B the scenario's `converge_seconds` (default 600), every `label-geometry` write made at fake time t was applied by t + B. Fires for a write applied after t + B, and for one not applied although the clock at quiescence is at or past t + B; a write the run ended too early to judge holds. A write's apply time is the clock of the step its apply ran in, so an `advance_clock` larger than B − `mig_apply_seconds` makes a write late by itself. Restore writes are terminal at once and not tracked"},
      {"mig-layout-matches-grant", 20, "-", "a node that applied a claim's geometry shows a layout counting exactly the MIG devices granted on it",
       check_mig_layout_matches_grant, false, {"layout=", "devices=["}, kReadsNodes | kReadsClaims | kReadsMap, true, nullptr,
       "a node whose state is `success`, whose MIG config is an allocsim entry still in the shared map, and whose state generation is at least the label version of the claim carrying that entry (the state answers that claim's write) shows a layout counting, per MIG profile, exactly the MIG devices the claims carrying that entry are granted on that node (upstream `_apply_geometry`: the layout is the geometry of the claims whose entry the node is configured with)"},
      {"entry-lists-its-nodes", 25, "-", "the shared map's entry of a claim lists exactly the nodes its plan carves geometry on",
       check_entry_lists_its_nodes, false, {"entries=["}, kReadsClaims | kReadsMap, false, nullptr,
       "after every step: the shared map's entry of every live or releasing claim that has one lists exactly the nodes of the claim's plan geometry (as a set), the nodes mig-parted applies the entry to (upstream `reserve`, `dict.fromkeys(plan.geometry, 1)`)"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

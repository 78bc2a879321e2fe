#include "backend/invariants/geometry.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "backend/invariants/catalog.h"

namespace allocsim::harness {

using backend::NodeFixture;
using sim::Violation;
using GeometryWrite = BackendWorld::GeometryWrite;

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

void record_geometry_writes(BackendWorld& world) {
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

}  // namespace allocsim::harness

#include "backend/invariants/state_view.h"

#include <fmt/format.h>

#include <string_view>

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;

std::string or_dash(const std::optional<std::string>& s) { return s ? *s : "-"; }

namespace {

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
      n.name, or_dash(n.owner), or_dash(n.owner_epoch), n.resource_version, n.mig_config, n.mig_state,
      n.mig_state_generation, render_map(n.mig_layout), render_map(n.workloads), or_dash(n.restore_record));
}

namespace {

/// " devices=[wa:MIG-1,wb:GPU-2]": each device granted, by workload, as no-double-grant reads it (the MIG
/// uuid when there is one, else the GPU uuid).
std::string render_devices(const Claim& c) {
  std::string out;
  for (const auto& [workload, devices] : c.plan.assignments)
    for (const auto& d : devices) {
      if (!d.mig_uuid && !d.uuid) continue;
      out += fmt::format("{}{}:{}", out.empty() ? "" : ",", workload, d.mig_uuid ? *d.mig_uuid : *d.uuid);
    }
  return fmt::format(" devices=[{}]", out);
}

/// " workload_ready=B label_versions={n1: 3}": what readiness-answers-its-write compares a report with.
std::string render_readiness(const Claim& c) {
  return fmt::format(" workload_ready={} label_versions={}", c.workload_ready, render_map(c.label_versions));
}

}  // namespace

std::string render_claim(const Claim& c, ClaimFields fields) {
  std::string nodes;
  for (const auto& n : c.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  std::string extra;
  if (fields == ClaimFields::Devices) extra = render_devices(c);
  if (fields == ClaimFields::Readiness) extra = render_readiness(c);
  return fmt::format("claim {}: owner={} generation={} nodes=[{}] entry={} {}{}\n", c.claim_id, c.owner, c.generation,
                     nodes, c.entry_name.empty() ? "-" : c.entry_name, c.releasing ? "releasing" : "live", extra);
}

std::string render_stale_reserves(const WorldState& w) {
  std::string ops;
  for (const std::string& op : w.stale_reserves) ops += (ops.empty() ? "" : ",") + op;
  return fmt::format("stale reserves: [{}]\n", ops);
}

std::string render_actor_claims(const ActorState& a) {
  return fmt::format("actor {}: claims_made={} claims_held={}\n", a.name, a.claims_made, a.claims_held);
}

std::string render_map_state(const backend::BackendState& s) {
  std::string entries;
  for (const auto& [e, _] : s.shared_config) entries += (entries.empty() ? "" : ",") + e;
  return fmt::format("shared map: entries=[{}] tombstone={} deleted={} version={}; pointer={} (restore {})\n", entries,
                     s.shared_tombstone, s.shared_map_deleted, s.shared_config_version, s.pointer,
                     or_dash(s.pointer_restore));
}

std::string render_failed_reads(const backend::BackendState& s) {
  std::string kinds;
  for (const auto& [kind, reason] : s.failed_reads)
    kinds += fmt::format("{}{}={}", kinds.empty() ? "" : ",", kind, reason);
  return fmt::format("failed reads: [{}]\n", kinds);
}

namespace {

// "node n1: owner=..." -> "n1" for prefix "node ".
std::string_view name_after(std::string_view line, std::string_view prefix) {
  line.remove_prefix(prefix.size());
  return line.substr(0, line.find(':'));
}

}  // namespace

std::string render_like(const WorldState& world, const std::string& reported) {
  const auto& s = world.backend().state();
  std::string out;
  size_t start = 0;
  while (start < reported.size()) {
    size_t end = reported.find('\n', start);
    if (end == std::string::npos) end = reported.size();
    const std::string_view line(reported.data() + start, end - start);
    start = end + 1;
    // A "- " or "+ " line continues the computed line above it (ops-atomic's result, line by line against the
    // nearest op-level one): the subject line already says it was computed at the violation.
    if (line.starts_with("- ") || line.starts_with("+ ")) continue;
    if (line.starts_with("node ")) {
      const std::string name(name_after(line, "node "));
      const auto* n = s.node(name);
      out += n ? render_node(*n) : "node " + name + ": (absent)\n";
    } else if (line.starts_with("claim ")) {
      const std::string id(name_after(line, "claim "));
      const auto* c = s.claim(id);
      const ClaimFields fields = line.find(" devices=[") != std::string_view::npos         ? ClaimFields::Devices
                                 : line.find(" workload_ready=") != std::string_view::npos ? ClaimFields::Readiness
                                                                                           : ClaimFields::Basic;
      out += c ? render_claim(*c, fields) : "claim " + id + ": (absent)\n";
    } else if (line.starts_with("shared map:")) {
      out += render_map_state(s);
    } else if (line.starts_with("failed reads:")) {
      out += render_failed_reads(s);
    } else if (line.starts_with("stale reserves:")) {
      out += render_stale_reserves(world);
    } else if (line.starts_with("actor ") && line.find(" claims_made=") != std::string_view::npos) {
      const std::string_view name = name_after(line, "actor ");
      const ActorState* a = nullptr;
      for (const ActorState& candidate : world.actors())
        if (candidate.name == name) a = &candidate;
      out += a ? render_actor_claims(*a) : std::string(line) + "\n";
    } else {
      // A line computed by the invariant itself (capacity, geometry write, flow workload, what an actor
      // was told, ...) describes the violation's moment only: copying it would show a value from after
      // the step as if it held before (README "Traces and shrinking"). Its subject stays, its values do not.
      const size_t colon = line.find(':');
      out += std::string(line.substr(0, colon)) + ": (computed at the violation only)\n";
    }
  }
  return out;
}

}  // namespace allocsim::harness

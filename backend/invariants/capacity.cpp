#include "backend/invariants/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <vector>

namespace allocsim::harness {

using backend::Claim;
using backend::NodeFixture;
using sim::Violation;

namespace {

/// Whether live claim `cl` grants workload `workload` a device on node `node`.
bool grants_on(const Claim& cl, std::string_view workload, std::string_view node) {
  const auto* devices = backend::find_in(cl.plan.assignments, workload);
  if (!devices) return false;
  return std::any_of(devices->begin(), devices->end(), [&](const auto& d) { return d.node && *d.node == node; });
}

bool covered_on(const backend::BackendState& s, std::string_view workload, std::string_view node) {
  return std::any_of(s.claims.begin(), s.claims.end(),
                     [&](const Claim& cl) { return !cl.releasing && grants_on(cl, workload, node); });
}

/// The cards live claims hold on `n`, rendered ("GPU-n1-0,MIG[c1,c2]"), and their count: each distinct GPU uuid,
/// plus one card for all MIG slices on the node (geometry is per node here, so every live claim's slices
/// there share one carved card).
/// With `render` false only the count is computed (the check's hot path, after every step); the rendering is
/// for a violation's state block.
/// `uuids` is scratch (CheckContext::scratch()), reused so that the count allocates nothing.
std::pair<std::string, int> granted_cards(const backend::BackendState& s, const NodeFixture& n, bool render,
                                          std::vector<std::string_view>& uuids) {
  uuids.clear();
  std::string out, mig;
  int count = 0;
  bool any_slices = false;
  for (const Claim& cl : s.claims) {
    if (cl.releasing) continue;
    bool slices = false;
    for (const auto& [workload, devices] : cl.plan.assignments)
      for (const auto& d : devices) {
        if (!d.node || *d.node != n.name) continue;
        if (d.mig_uuid) {
          slices = true;
        } else if (d.uuid && std::find(uuids.begin(), uuids.end(), *d.uuid) == uuids.end()) {
          uuids.push_back(*d.uuid);
          if (render) out += fmt::format("{}{}", out.empty() ? "" : ",", *d.uuid);
          ++count;
        }
      }
    any_slices |= slices;
    if (slices && render) mig += fmt::format("{}{}", mig.empty() ? "" : ",", cl.claim_id);
  }
  if (any_slices) {
    if (render) out += fmt::format("{}MIG[{}]", out.empty() ? "" : ",", mig);
    ++count;
  }
  return {out, count};
}

/// "wa (flowA)": the actors whose scripts request `workload`, or "" when none does (a foreign workload).
std::string requested_by(const Scenario& sc, std::string_view workload) {
  std::string out;
  for (const ActorSpec& a : sc.actors) {
    const bool asks = std::any_of(a.script.begin(), a.script.end(), [&](const Op& op) {
      return std::any_of(op.requests.begin(), op.requests.end(),
                         [&](const RequestSpec& r) { return r.workload == workload; });
    });
    if (asks) out += (out.empty() ? "" : ",") + a.name;
  }
  return out;
}

}  // namespace

int node_cards(const NodeFixture& n) {
  const std::string* label = backend::find_in(n.labels.get(), "nvidia.com/gpu.count");
  if (!label) return n.gpu_count;
  int parsed = 0;
  const char* end = label->data() + label->size();
  const auto [ptr, ec] = std::from_chars(label->data(), end, parsed);
  if (ec != std::errc() || ptr != end || parsed < 0) return n.gpu_count;
  return std::min(parsed, n.gpu_count);
}

std::optional<Violation> check_capacity_within_cards(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const uint32_t i : c.nodes()) {
    const NodeFixture& n = s.nodes[i];
    // A pod holding MIG slices is not counted in cards: its slices lie in a carved card, and the kubelet bounded them
    // by the layout (backend/world/kubelet_admission.h).
    const auto uncovered_card = [&](const std::string& workload) {
      return !covered_on(s, workload, n.name) && !c.world.pod_resources.holds_slices(n.name, workload);
    };
    int uncovered = 0;
    for (const auto& [workload, units] : n.workloads)
      if (uncovered_card(workload)) uncovered += units;
    const int cards = node_cards(n);
    if (uncovered == 0 && s.claims.empty()) continue;  // the common case, without rendering anything
    const int count = granted_cards(s, n, false, c.scratch().uuids).second;
    if (count + uncovered <= cards) continue;
    const std::string granted = granted_cards(s, n, true, c.scratch().uuids).first;
    std::string held;
    for (const auto& [workload, units] : n.workloads)
      if (uncovered_card(workload)) held += fmt::format("{}{}:{}", held.empty() ? "" : ",", workload, units);
    return Violation{"capacity-within-cards",
                     fmt::format("node {} has {} card{}, but live claims hold {} and workloads no live claim covers "
                                 "hold {} more",
                                 n.name, cards, cards == 1 ? "" : "s", count, uncovered),
                     render_node(n) + fmt::format("capacity {}: cards={} granted=[{}] uncovered=[{}]\n", n.name, cards,
                                                  granted, held)};
  }
  return std::nullopt;
}

namespace {

const WorldState::BoundWorkload* previously_bound(const WorldState& w, std::string_view node,
                                                  std::string_view workload) {
  for (const auto& b : w.bound_workloads)
    if (b.node == node && b.workload == workload) return &b;
  return nullptr;
}

/// "c1@n2,c3@n1": the live claims granting `workload` devices, with the nodes of those devices.
std::string live_grants(const backend::BackendState& s, std::string_view workload) {
  std::string out;
  for (const Claim& cl : s.claims) {
    if (cl.releasing) continue;
    const auto* devices = backend::find_in(cl.plan.assignments, workload);
    if (!devices) continue;
    for (const auto& d : *devices)
      if (d.node) out += fmt::format("{}{}@{}", out.empty() ? "" : ",", cl.claim_id, *d.node);
  }
  return out;
}

}  // namespace

std::optional<Violation> check_bound_workload_covered(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  for (const uint32_t i : c.nodes())
    for (const auto& [workload, units] : s.nodes[i].workloads) {
      const NodeFixture& n = s.nodes[i];
      if (covered_on(s, workload, n.name)) continue;
      const auto* before = previously_bound(c.world, n.name, workload);
      const std::string grants = live_grants(s, workload);
      const bool lost = before && before->covered;
      const bool elsewhere = !before && !grants.empty();
      if (!lost && !elsewhere) continue;
      const std::string flows = requested_by(*c.world.compiled().scenario, workload);
      if (flows.empty()) continue;  // a foreign workload: no flow's claim is meant to cover it
      std::string claims;
      for (const Claim& cl : s.claims)
        if (backend::find_in(cl.plan.assignments, workload)) claims += render_claim(cl, ClaimFields::Devices);
      const std::string message =
          lost ? fmt::format(
                     "workload {} of {} holds node {} under a claim that no longer covers it: no live claim "
                     "grants it a device there",
                     workload, flows, n.name)
               : fmt::format("workload {} of {} was bound on node {}, but its live claims grant it devices only at {}",
                             workload, flows, n.name, grants);
      return Violation{"bound-workload-covered", message,
                       render_node(n) +
                           fmt::format("flow workload {}: requested by {}; live grants [{}]; covered since bound: {}\n",
                                       workload, flows, grants, lost) +
                           claims};
    }
  return std::nullopt;
}

namespace {

/// The entries node `n` contributes to bound_workloads, judged against the list as it stands (`before`).
void bound_on(const WorldState& world, const NodeFixture& n, std::vector<WorldState::BoundWorkload>& out) {
  const auto& s = world.backend().state();
  for (const auto& [workload, units] : n.workloads) {
    const auto* before = previously_bound(world, n.name, workload);
    const bool covered = covered_on(s, workload, n.name) || (before && before->covered);
    if (covered || !requested_by(*world.compiled().scenario, workload).empty())
      out.push_back({n.name, workload, covered});
  }
}

}  // namespace

void record_bound_workloads(WorldState& world, const std::vector<uint32_t>* nodes) {
  if (!world.compiled().records_bound_workloads) return;
  const auto& s = world.backend().state();
  std::vector<WorldState::BoundWorkload> now;
  if (nodes == nullptr) {
    for (const NodeFixture& n : s.nodes) bound_on(world, n, now);
    world.bound_workloads = std::move(now);
    return;
  }
  for (const uint32_t i : *nodes) {
    const NodeFixture& n = s.nodes[i];
    const size_t first = now.size();
    bound_on(world, n, now);  // against the old entries: before any of n's is dropped
    const bool had = std::any_of(world.bound_workloads.begin(), world.bound_workloads.end(),
                                 [&](const auto& b) { return b.node == n.name; });
    if (!had && now.size() == first) continue;
    std::erase_if(world.bound_workloads, [&](const auto& b) { return b.node == n.name; });
  }
  // Appended after every node's new entries were judged: each was judged against the old list only.
  for (auto& b : now) world.bound_workloads.push_back(std::move(b));
}

std::vector<InvariantSpec> capacity_invariants() {
  // clang-format off
  return {
      {"capacity-within-cards", 14, "-", "the cards live claims hold on a node plus the units of workloads no live claim covers never exceed the node's cards",
       check_capacity_within_cards, false, {"cards=", "granted=[", "workloads="}, kReadsNodes | kReadsClaims, true, nullptr,
       "for every node: the cards live claims hold there plus the units of workloads bound there that no live claim covers are at most the node's cards. Live claims hold each distinct GPU uuid they grant on the node, plus one card for all their MIG slices there (geometry is per node here, and upstream fits a layout on one card, `check_layout`); a workload is covered when some live claim grants that workload id a device on that node (its units are then counted through the claim, not again). The node's cards are its `gpu_count`, or the GFD label `nvidia.com/gpu.count` when that is a smaller non-negative integer (a card reported unhealthy)"},
      {"bound-workload-covered", 15, "ALLOC-013", "a flow's workload bound under a live claim stays covered by one while bound; one bound while its live claims grant it devices is bound on one of their nodes",
       check_bound_workload_covered, false, {"workloads=", "flow workload "}, kReadsNodes | kReadsClaims, true, nullptr,
       "every workload bound on a node whose id some actor's plan or reserve requests (a flow's workload; ids no script requests are foreign and not judged) is granted a device on that node by some live claim, whoever bound it. A releasing claim covers nothing"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

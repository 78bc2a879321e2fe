// Kubelet admission of a pod's extended resource (docs/DESIGN.md §4, `bind_workload` with `resource` or `claim`).
//
// Upstream's bind_workload is a test kubelet: it records that a pod holds `units` of a node and checks nothing. A
// bind that names its resource, or the claim whose bindings() wrote its pod, is first checked as a kubelet checks a
// pod's extended resources against what the node's device plugin advertises. The device plugin advertises per
// node, by the MIG strategy GFD labels it with (`nvidia.com/mig.strategy`):
//   1. a node whose layout is empty, or any node under the `none` strategy (MIG devices not exposed):
//      `nvidia.com/gpu` = its gpu_count, no MIG resource;
//   2. a carved node (a non-empty layout) under the `single` strategy: `nvidia.com/gpu` = every slice of the
//      layout, no MIG resource;
//   3. a carved node under the `mixed` strategy, or none named: `nvidia.com/mig-P` = the layout's count of profile P,
//      and `nvidia.com/gpu` = 0: geometry is per node in upstream's model, so every card of a carved node is in MIG
//      mode.
// A pod asking more of its resource than the node advertises, less what the node's other pods hold of it, is
// refused (the kubelet's OutOf<resource> / UnexpectedAdmissionError): `rejected`, nothing bound. A bound pod holds
// `nvidia.com/gpu` unless its bind named another resource, and holds cards unless it was admitted to slices (a MIG
// resource, or `nvidia.com/gpu` under rule 2); PodResources keeps the pods that differ in either. Upstream's plan reads
// no resource: it subtracts every pod's units from the node's cards, slices included.
//
// Footprints (DPOR): the check reads its node and PodResources (pod_resources_id); a bind or unbind that changes
// PodResources writes it. Only scenarios with such a bind (CompiledScenario::pod_resources) touch it or digest it,
// so no other scenario's steps or states change.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/backend_state.h"

namespace allocsim::harness {

/// The whole-card resource, and the prefix of a MIG slice's (`nvidia.com/mig-1g.10gb`).
inline constexpr std::string_view kWholeCardResource = "nvidia.com/gpu";
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

/// What each bound pod holds that is not whole cards, per execution (one per WorldState).
/// Contract: one entry per (node, workload) bound with a resource other than kWholeCardResource or admitted to
/// slices, sorted by node then workload (the order of binds is nothing a later step can observe, so it must not split
/// states).
struct PodResources {
  struct Held {
    std::string node, workload, resource;
    bool slices = false;  // its units are MIG slices (a MIG resource, or nvidia.com/gpu under rule 2)
  };
  std::vector<Held> held;

  /// The resource workload `workload` holds on `node` (kWholeCardResource when no entry says otherwise).
  std::string_view of(std::string_view node, std::string_view workload) const;
  /// Whether the units `workload` holds on `node` are MIG slices rather than cards.
  bool holds_slices(std::string_view node, std::string_view workload) const;
  /// Records that `workload` now holds `resource` on `node`, as slices or as cards (whole cards of
  /// kWholeCardResource erase any entry).
  void bind(const std::string& node, const std::string& workload, std::string_view resource, bool slices);
  /// `workload` holds nothing on `node` any more.
  void unbind(std::string_view node, std::string_view workload);
};

/// How many of `resource` node `n`'s device plugin advertises (rules 1-3 above).
int advertised(const backend::NodeFixture& n, std::string_view resource);

/// Whether `resource` on node `n` is MIG slices (a MIG resource, or nvidia.com/gpu under rule 2).
bool advertises_slices(const backend::NodeFixture& n, std::string_view resource);

/// How many of `resource` the pods bound on `n` hold, leaving out `except` (a bind replaces its own pod's units).
int held_by_pods(const backend::NodeFixture& n, const PodResources& pods, std::string_view resource,
                 std::string_view except);

/// The footprint id of PodResources (a harness object, like admission_faults_id).
uint64_t pod_resources_id();

/// The footprint id of actor `actor`'s claims as its script knows them (its newest claim held), which a bind that
/// names that actor's claim from another actor's script reads (a harness object, like actor_plan_id).
uint64_t actor_claims_id(std::string_view actor);

}  // namespace allocsim::harness

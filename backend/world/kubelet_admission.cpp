// Kubelet admission of a pod's extended resource (kubelet_admission.h).
#include "backend/world/kubelet_admission.h"

#include <algorithm>

#include "backend/world/object_ids.h"

namespace allocsim::harness {
namespace {

bool before(const PodResources::Held& h, std::string_view node, std::string_view workload) {
  if (h.node != node) return std::string_view(h.node) < node;
  return std::string_view(h.workload) < workload;
}

}  // namespace

std::string_view PodResources::of(std::string_view node, std::string_view workload) const {
  for (const Held& h : held)
    if (h.node == node && h.workload == workload) return h.resource;
  return kWholeCardResource;
}

bool PodResources::holds_slices(std::string_view node, std::string_view workload) const {
  for (const Held& h : held)
    if (h.node == node && h.workload == workload) return h.slices;
  return false;
}

void PodResources::bind(const std::string& node, const std::string& workload, std::string_view resource, bool slices) {
  const auto at =
      std::lower_bound(held.begin(), held.end(), std::pair{std::string_view(node), std::string_view(workload)},
                       [](const Held& h, const auto& k) { return before(h, k.first, k.second); });
  const bool found = at != held.end() && at->node == node && at->workload == workload;
  if (resource == kWholeCardResource && !slices) {
    if (found) held.erase(at);
  } else if (found) {
    at->resource = resource;
    at->slices = slices;
  } else {
    held.insert(at, Held{node, workload, std::string(resource), slices});
  }
}

void PodResources::unbind(std::string_view node, std::string_view workload) {
  std::erase_if(held, [&](const Held& h) { return h.node == node && h.workload == workload; });
}

namespace {

std::string_view strategy_of(const backend::NodeFixture& n) {
  const std::string* strategy = backend::find_in(n.labels.get(), "nvidia.com/mig.strategy");
  return strategy ? std::string_view(*strategy) : std::string_view();
}

}  // namespace

bool advertises_slices(const backend::NodeFixture& n, std::string_view resource) {
  if (resource.starts_with(kMigResourcePrefix)) return true;
  return !n.mig_layout.empty() && strategy_of(n) == "single";
}

int advertised(const backend::NodeFixture& n, std::string_view resource) {
  const std::string_view strategy = strategy_of(n);
  if (n.mig_layout.empty() || strategy == "none") return resource == kWholeCardResource ? n.gpu_count : 0;  // rule 1
  if (strategy == "single") {  // rule 2: the slices are advertised as whole GPUs
    if (resource != kWholeCardResource) return 0;
    int slices = 0;
    for (const auto& [profile, count] : n.mig_layout) slices += count;
    return slices;
  }
  if (!resource.starts_with(kMigResourcePrefix)) return 0;  // rule 3: no card of a carved node is whole
  const int* count = backend::find_in(n.mig_layout, std::string(resource.substr(kMigResourcePrefix.size())));
  return count ? *count : 0;
}

int held_by_pods(const backend::NodeFixture& n, const PodResources& pods, std::string_view resource,
                 std::string_view except) {
  int sum = 0;
  for (const auto& [workload, units] : n.workloads)
    if (workload != except && pods.of(n.name, workload) == resource) sum += units;
  return sum;
}

uint64_t pod_resources_id() {
  // Harness kind bytes outside backend::Obj (object_ids.h lists the others: 0xF0 to 0xF4).
  static const uint64_t id = object_id(static_cast<backend::Obj>(0xF5), "pod-resources");
  return id;
}

uint64_t actor_claims_id(std::string_view actor) { return object_id(static_cast<backend::Obj>(0xF6), actor); }

}  // namespace allocsim::harness

// ScenarioReader (scenario_reader.h): the scenario's own references, over the strict JSON reader.
#include <fmt/format.h>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::contains;
using support::did_you_mean;
using support::quote;

const std::vector<const char*> kRequestKeys = {"workload", "devices", "sharing", "minimum_usable_memory_gib"};
const std::vector<const char*> kSharings = {backend::kSharingExclusive, backend::kSharingIsolatedMig,
                                            backend::kSharingCooperative, backend::kSharingAccountingOnly};

}  // namespace

const std::vector<const char*>& claim_statuses() {
  static const std::vector<const char*> k = {backend::kClaimPending, backend::kClaimAllocated, backend::kClaimPrepared,
                                             backend::kClaimReady, backend::kClaimFailed};
  return k;
}

const std::vector<const char*>& read_kinds() {
  static const std::vector<const char*> k = {"nodes", "pods", "config"};
  return k;
}

// -- ScenarioReader --------------------------------------------------------------------------------

std::string ScenarioReader::node_ref(const Json& v, const std::string& ptr) const {
  const std::string name = nonempty_string(v, ptr);
  std::vector<const char*> known;
  for (const NodeSpec& n : s_.nodes) known.push_back(n.name.c_str());
  if (!contains(known, name))
    fail(ptr, fmt::format("node {} is not in /nodes{}", quote(name), did_you_mean(name, known)));
  return name;
}

std::vector<std::string> ScenarioReader::node_scope(const Json& v, const std::string& ptr) const {
  want_array(v, ptr);
  if (v.empty()) fail(ptr, "expected a non-empty array of node names (omit \"nodes\" to scope every node), got []");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::string name = node_ref(v[i], child(ptr, i));
    reject_duplicate(out, name, ptr, child(ptr, i), "node");
    out.push_back(std::move(name));
  }
  return out;
}

std::vector<RequestSpec> ScenarioReader::requests(const Json& v, const std::string& ptr) const {
  want_size(v, ptr, 1, kMaxRequests, "requests");
  std::vector<RequestSpec> out;
  std::vector<std::string> workloads;
  for (std::size_t i = 0; i < v.size(); ++i) {
    RequestSpec r = request(v[i], child(ptr, i));
    reject_duplicate(workloads, r.workload, ptr, child(child(ptr, i), "workload"), "workload");
    workloads.push_back(r.workload);
    out.push_back(std::move(r));
  }
  return out;
}

RequestSpec ScenarioReader::request(const Json& v, const std::string& ptr) const {
  want_object(v, ptr);
  check_keys(v, ptr, kRequestKeys);
  RequestSpec r;
  r.workload = nonempty_string(require(v, ptr, "workload"), child(ptr, "workload"));
  if (const Json* d = find(v, "devices")) r.devices = int_value(*d, child(ptr, "devices"), 1, kMaxGpus);
  if (const Json* sh = find(v, "sharing")) r.sharing = choice(*sh, child(ptr, "sharing"), kSharings);
  if (const Json* m = find(v, "minimum_usable_memory_gib"))
    r.minimum_usable_memory_gib = number_value(*m, child(ptr, "minimum_usable_memory_gib"), 0, kMaxMemoryGib);
  return r;
}

}  // namespace allocsim::harness

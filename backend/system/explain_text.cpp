// The backend's words for footprint objects (campaign::Subject::name_object, sim/campaign/explain.h): a
// footprint id is XXH3 of (kind, name) (backend/world/object_ids.h object_id), so an id is named by hashing the
// names the scenario and the execution can produce and looking the id up. Kinds and names are those of
// backend/model/memory_backend.cpp and the harness (backend/world/object_ids.h: actor plans, the read faults,
// the visibility object).
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "backend/system/system.h"
#include "backend/world/admission_faults.h"
#include "backend/world/kubelet_admission.h"
#include "backend/world/leases.h"
#include "backend/world/object_ids.h"
#include "backend/world/read_faults.h"

namespace allocsim::harness {

namespace {

using backend::Obj;

constexpr int kClaimsPerActor = 64;  // claim ids an actor can make in a minimal trace, by its own counter

/// Claim ids mentioned in step details ("claim=claim-flowA-2 ...").
void claims_in_details(const std::vector<std::string>& details, std::map<std::string, bool>& out) {
  for (const std::string& d : details) {
    size_t at = 0;
    while ((at = d.find("claim=", at)) != std::string::npos) {
      at += 6;
      const size_t end = d.find(' ', at);
      out[d.substr(at, end == std::string::npos ? std::string::npos : end - at)] = true;
    }
  }
}

std::map<uint64_t, campaign::ObjectName> known_objects(const Scenario& sc, const std::vector<std::string>& details) {
  using campaign::ObjectName;
  std::map<uint64_t, ObjectName> m;
  for (const NodeSpec& n : sc.nodes) {
    m[object_id(Obj::Node, n.name)] = {ObjectName::Data, "node " + n.name};
    m[object_id(Obj::FailingGeometry, n.name)] = {ObjectName::Data, "the failing-geometry flag of " + n.name};
  }
  m[object_id(Obj::AllNodes, "")] = {ObjectName::Data, "the node list"};
  m[object_id(Obj::Claim, "")] = {ObjectName::Data, "the claim list"};
  m[object_id(Obj::SharedMap, "videoflow-map")] = {ObjectName::Data, "the shared mig-parted map"};
  m[object_id(Obj::Pointer, "clusterpolicy")] = {ObjectName::Data, "the cluster policy's map pointer"};
  m[object_id(Obj::Clock, "clock")] = {ObjectName::Data, "the clock"};
  // memory_backend.cpp's second clock object: geometry applies waiting for the clock to pass their time.
  m[object_id(Obj::Clock, "pending-geometry")] = {ObjectName::Data, "the pending geometry applies"};
  for (const char* kind : {"nodes", "pods", "config"})
    m[object_id(Obj::FailedReads, kind)] = {ObjectName::Data, fmt::format("the failing-{}-reads flag", kind)};
  m[object_id(Obj::Lock, "backend")] = {ObjectName::Sync, "the backend lock"};
  m[read_faults_id()] = {ObjectName::Data, "the armed read faults"};
  m[admission_faults_id()] = {ObjectName::Data, "the binds the kubelets refuse"};
  m[pod_resources_id()] = {ObjectName::Data, "the resources the bound pods hold"};  // backend/world/kubelet_admission.h
  m[faults_fired_id()] = {ObjectName::Data, "the count of faults fired (faults.max)"};  // object_ids.h
  m[invariant_visible_id()] = {ObjectName::View, "the state the invariants check"};     // object_ids.h
  std::map<std::string, bool> claims;
  claims_in_details(details, claims);
  for (const ActorSpec& a : sc.actors) {
    m[actor_plan_id(a.name)] = {ObjectName::Data, a.name + "'s last plan"};
    m[lease_id(a.name)] = {ObjectName::Data, a.name + "'s lease"};                // backend/world/leases.h
    m[actor_claims_id(a.name)] = {ObjectName::Data, a.name + "'s newest claim"};  // backend/world/kubelet_admission.h
    // Not a lock that orders critical sections but a signal: "this actor has ended", which recover waits for.
    // A recover that passed it depends on the step that ended the actor (the causal slice keeps that step).
    m[object_id(Obj::Lock, "life:" + a.name)] = {ObjectName::Data, "the end of " + a.name + " (recover waits for it)"};
    for (int k = 1; k <= kClaimsPerActor; ++k) claims[fmt::format("claim-{}-{}", a.name, k)] = true;
  }
  for (const auto& [id, _] : claims) m[object_id(Obj::Claim, id)] = {ObjectName::Data, "claim " + id};
  return m;
}

}  // namespace

campaign::ObjectName name_object(const Scenario& sc, uint64_t object, const std::vector<std::string>& details) {
  const auto m = known_objects(sc, details);
  const auto it = m.find(object);
  return it != m.end() ? it->second
                       : campaign::ObjectName{campaign::ObjectName::Data, fmt::format("object {:016x}", object)};
}

}  // namespace allocsim::harness

#include "backend/model/check_mode.h"

#include "backend/model/contract_poison.h"

#include <cstdlib>
#include <cstring>
#include <string>

namespace allocsim::backend {

namespace detail {
namespace {
bool from_environment() {
  const char* value = std::getenv("ALLOCSIM_CHECK_MODE");
  return value != nullptr && std::strcmp(value, "1") == 0;
}
}  // namespace
bool g_check_mode = from_environment();
}  // namespace detail

void set_check_mode(bool on) { detail::g_check_mode = on; }

void port_rule_broken(const char* rule, const char* file, int line) {
  throw PortRuleBroken("port rule broken: " + std::string(rule) + " (" + file + ":" + std::to_string(line) + ")");
}

void poison(DeviceIdentity& d) {
  poison(d.node);
  poison(d.ordinal);
  poison(d.uuid);
  poison(d.mig_uuid);
  poison(d.product);
  poison(d.memory_bytes);
  poison(d.mig_profile);
}
void poison(Mutation& m) {
  poison(m.op_id);
  poison(m.kind);
  poison(m.target);
  poison(m.detail);
}
void poison(FeasiblePlan& p) {
  poison(p.assignments);
  poison(p.geometry);
  poison(p.snapshot_generation);
  poison(p.plan_id);
  poison(p.notes);
}
void poison(NodeEvidence& e) {
  poison(e.node);
  poison(e.mig_config);
  poison(e.state);
  poison(e.state_generation);
  poison(e.resource_version);
  poison(e.layout);
}
void poison(ClaimObservation& o) {
  poison(o.claim_id);
  poison(o.owner);
  poison(o.desired_generation);
  poison(o.observed_generation);
  poison(o.status);
  poison(o.grant);
  poison(o.evidence);
}
void poison(ReleaseObservation& o) {
  poison(o.claim_id);
  poison(o.status);
  poison(o.remaining);
  poison(o.reason);
}

bool poisoned(const DeviceIdentity& d) {
  return poisoned(d.node) || poisoned(d.ordinal) || poisoned(d.uuid) || poisoned(d.mig_uuid) || poisoned(d.product) ||
         poisoned(d.memory_bytes) || poisoned(d.mig_profile);
}
bool poisoned(const Mutation& m) {
  return poisoned(m.op_id) || poisoned(m.kind) || poisoned(m.target) || poisoned(m.detail);
}
bool poisoned(const FeasiblePlan& p) {
  return poisoned(p.assignments) || poisoned(p.geometry) || poisoned(p.snapshot_generation) || poisoned(p.plan_id) ||
         poisoned(p.notes);
}
bool poisoned(const NodeEvidence& e) {
  return poisoned(e.node) || poisoned(e.mig_config) || poisoned(e.state) || poisoned(e.state_generation) ||
         poisoned(e.resource_version) || poisoned(e.layout);
}
bool poisoned(const ClaimObservation& o) {
  return poisoned(o.claim_id) || poisoned(o.owner) || poisoned(o.desired_generation) ||
         poisoned(o.observed_generation) || poisoned(o.status) || poisoned(o.grant) || poisoned(o.evidence);
}
bool poisoned(const ReleaseObservation& o) {
  return poisoned(o.claim_id) || poisoned(o.status) || poisoned(o.remaining) || poisoned(o.reason);
}
bool poisoned(const InventorySnapshot& s) {
  return poisoned(s.occupancy) || poisoned(s.sharing) || poisoned(s.owners) || poisoned(s.completeness) ||
         poisoned(s.observed_at) || poisoned(s.generation);
}
bool poisoned(const PlanOutcome& p) {
  if (const auto* no = std::get_if<Infeasible>(&p)) return poisoned(no->reasons);
  return poisoned(std::get<FeasiblePlan>(p));
}

}  // namespace allocsim::backend

#include "backend/system/record.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "sim/schedule.h"

namespace allocsim::harness {

using nlohmann::json;

namespace {

json json_or_null(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

template <class V>
json pairs(const backend::OrderedMap<std::string, V>& m) {
  json out = json::array();
  for (const auto& [k, v] : m) out.push_back(json::array({k, v}));
  return out;
}

json device(const backend::DeviceIdentity& d) {
  return json::array({json_or_null(d.node), d.ordinal ? json(*d.ordinal) : json(nullptr), json_or_null(d.uuid),
                      json_or_null(d.mig_uuid), d.product, d.memory_bytes ? json(*d.memory_bytes) : json(nullptr),
                      json_or_null(d.mig_profile)});
}

json node(const backend::NodeFixture& n) {
  return {{"name", n.name},
          {"owner", json_or_null(n.owner)},
          {"owner_epoch", json_or_null(n.owner_epoch)},
          {"resource_version", n.resource_version},
          {"mig_config", n.mig_config},
          {"mig_state", n.mig_state},
          {"mig_state_generation", n.mig_state_generation},
          {"mig_layout", pairs(n.mig_layout)},
          {"workloads", pairs(n.workloads)},
          {"restore_record", json_or_null(n.restore_record)}};
}

json claim(const backend::Claim& c) {
  json assignments = json::array();
  for (const auto& [workload, devices] : c.plan.assignments) {
    json ds = json::array();
    for (const auto& d : devices) ds.push_back(device(d));
    assignments.push_back(json::array({workload, ds}));
  }
  return {{"claim_id", c.claim_id},     {"owner", c.owner},          {"generation", c.generation},
          {"nodes", c.nodes},           {"status", c.status},        {"workload_ready", c.workload_ready},
          {"entry_name", c.entry_name}, {"plan_id", c.plan.plan_id}, {"geometry", pairs(c.plan.geometry)},
          {"assignments", assignments}};
}

}  // namespace

json record_state(const backend::BackendState& s) {
  json nodes = json::array(), claims = json::array(), pending = json::array();
  for (const auto& n : s.nodes) nodes.push_back(node(n));
  for (const auto& c : s.claims) claims.push_back(claim(c));
  for (const auto& p : s.pending_geometry) pending.push_back(json::array({p.due, p.node, p.version}));
  json shared = json::array();
  for (const auto& [entry, members] : s.shared_config) shared.push_back(json::array({entry, pairs(members)}));
  std::vector<std::string> failing = s.failing_geometry;
  std::sort(failing.begin(), failing.end());  // a set in upstream: its order means nothing
  return {{"nodes", nodes},
          {"claims", claims},
          {"failed_reads", pairs(s.failed_reads)},
          {"shared_config", shared},
          {"shared_config_version", s.shared_config_version},
          {"shared_tombstone", s.shared_tombstone},
          {"pointer", s.pointer},
          {"pointer_version", s.pointer_version},
          {"pointer_restore", json_or_null(s.pointer_restore)},
          {"pending_geometry", pending},
          {"failing_geometry", failing},
          {"clock", s.clock.now()}};
}

json record_execution(uint64_t index, const BackendWorld& world, const sim::ExecutionResult& r) {
  std::vector<std::string> names;
  for (size_t a = 0; a < world.actor_count(); ++a) names.emplace_back(world.actor_name(static_cast<sim::ActorId>(a)));
  json steps = json::array(), barriers = json::array();
  std::map<std::pair<sim::ActorId, std::string_view>, uint32_t> seen;
  for (const auto& s : r.steps) {
    const uint32_t occurrence = ++seen[{s.actor, s.what}];
    steps.push_back(json::array({names[s.actor], sim::to_string(s.kind), s.what, occurrence, s.detail}));
    if (s.kind == sim::PointKind::Barrier) barriers.push_back(json::array({names[s.actor], s.what, s.detail}));
  }
  json crashes = json::array();
  for (const auto& c : r.crashes) crashes.push_back(json::array({names[c.actor], c.step, c.where}));
  json outcomes = json::object();
  for (const auto& a : world.actors()) {
    json list = json::array();
    for (const char* o : a.outcomes) list.push_back(o ? json(o) : json(nullptr));
    outcomes[a.name] = list;
  }
  json audit = json::array();
  for (const auto& m : world.backend().state().audit)
    audit.push_back(json::array({m.op_id, m.kind, m.target, m.detail}));
  return {{"schema", "allocsim/record/v1"},
          {"index", index},
          {"schedule", sim::format_schedule(r.schedule, names)},
          {"steps", steps},
          {"end", r.quiescent ? "quiescent" : "stopped"},
          {"violation", r.violation ? json(r.violation->invariant) : json(nullptr)},
          {"crashes", crashes},
          {"outcomes", outcomes},
          {"barriers", barriers},
          {"audit", audit},
          {"state", record_state(world.backend().state())}};
}

}  // namespace allocsim::harness

// audit-explains-state (invariants_client.h): the audit log, replayed, gives the state the backend holds.
// It runs after every step of every scenario, so the replay copies no string: it points into the start
// state and into the log.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "backend/harness/invariants_client.h"
#include "backend/harness/state_view.h"

namespace allocsim::harness {

using backend::NodeFixture;
using sim::Violation;

namespace {

using Str = const std::string*;  // nullptr: no value

Str ptr(const std::optional<std::string>& s) { return s ? &*s : nullptr; }
bool same(const std::optional<std::string>& held, Str logged) {
  return held.has_value() == (logged != nullptr) && (!logged || *held == *logged);
}
std::string text(Str s) { return s ? *s : "-"; }

/// What the audit log says about the state: the fields its mutation kinds write.
struct Replayed {
  struct Node {
    Str owner;
    Str mig_config;
    Str restore_record;
  };
  std::vector<Node> nodes;   // in the backend's node order
  std::vector<Str> entries;  // shared map entries, in insertion order
  Str pointer = nullptr;
  int64_t map_writes = 0;      // publish-entry, strip-entry
  int64_t pointer_writes = 0;  // point-policy, restore-policy
};

Replayed start_of(const backend::BackendState& s) {
  Replayed r;
  r.nodes.reserve(s.nodes.size());
  for (const NodeFixture& n : s.nodes) r.nodes.push_back({ptr(n.owner), &n.mig_config, ptr(n.restore_record)});
  for (const auto& [entry, _] : s.shared_config) r.entries.push_back(&entry);
  r.pointer = &s.pointer;
  return r;
}

/// Applies one mutation (seed `_record` kinds, backend/CONTRACT.md §1 `mutations()`). Kinds this replay
/// does not know change nothing here; the state comparison then reports what they wrote.
void apply(Replayed& r, const backend::BackendState& s, const backend::Mutation& m) {
  Replayed::Node* node = nullptr;
  for (size_t i = 0; i < s.nodes.size(); ++i)
    if (s.nodes[i].name == m.target) node = &r.nodes[i];
  const auto entry = std::find_if(r.entries.begin(), r.entries.end(), [&](Str e) { return *e == m.target; });
  const std::string_view kind = m.kind;
  if (node && kind == "stamp-owner") node->owner = &m.detail;
  if (node && kind == "release-owner") node->owner = nullptr;
  if (node && kind == "record-restore") node->restore_record = &m.detail;
  if (node && kind == "label-geometry") node->mig_config = &m.detail;
  if (node && kind == "restore-geometry") {
    node->mig_config = &m.detail;
    node->restore_record = nullptr;
  }
  if (kind == "publish-entry" && entry == r.entries.end()) r.entries.push_back(&m.target);
  if (kind == "strip-entry" && entry != r.entries.end()) r.entries.erase(entry);
  if (kind == "publish-entry" || kind == "strip-entry") ++r.map_writes;
  if (kind == "point-policy" || kind == "restore-policy") {
    r.pointer = &m.detail;
    ++r.pointer_writes;
  }
  if (kind == "delete-map") r.entries.clear();
}

std::string render_audit(const backend::BackendState& s) {
  std::string out;
  for (const auto& m : s.audit) out += fmt::format("{}{}:{}:{}", out.empty() ? "" : ",", m.op_id, m.kind, m.target);
  return fmt::format("audit: [{}]\n", out);
}

Violation broken(std::string message, const std::string& state, const backend::BackendState& s) {
  return Violation{"audit-explains-state", std::move(message), state + render_audit(s)};
}

std::optional<Violation> node_mismatch(const backend::BackendState& s, const Replayed& r) {
  for (size_t i = 0; i < s.nodes.size() && i < r.nodes.size(); ++i) {
    const NodeFixture& n = s.nodes[i];
    const Replayed::Node& want = r.nodes[i];
    std::string field, held, logged;
    if (!same(n.owner, want.owner))
      field = "owner", held = n.owner.value_or("-"), logged = text(want.owner);
    else if (n.mig_config != *want.mig_config)
      field = "mig_config", held = n.mig_config, logged = *want.mig_config;
    else if (!same(n.restore_record, want.restore_record))
      field = "restore_record", held = n.restore_record.value_or("-"), logged = text(want.restore_record);
    else
      continue;
    return broken(fmt::format("node {} has {}={}, but the audit log leaves it at {}", n.name, field, held, logged),
                  render_node(n), s);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> check_audit_explains_state(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  const auto& start = c.world.audit_base ? *c.world.audit_base : c.world.compiled().prototype.state();
  // At quiescence, once per execution: mutations(), the seed's read of the log that upstream tests use,
  // gives the log entry for entry.
  if (c.quiescent && c.world.backend().mutations({}) != s.audit)
    return broken(fmt::format("mutations() does not give the {} audit entries", s.audit.size()), "", s);
  Replayed r = start_of(start);
  // Entries already in the start state's log are part of that state, not writes to replay over it.
  for (size_t i = start.audit.size(); i < s.audit.size(); ++i) apply(r, s, s.audit[i]);
  if (auto v = node_mismatch(s, r)) return v;
  bool same_entries = s.shared_config.size() == r.entries.size();
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
  for (const auto& kv : s.shared_config) {
    const std::string& entry = kv.first;
    same_entries = same_entries && std::any_of(r.entries.begin(), r.entries.end(), [&](Str e) { return *e == entry; });
  }
  if (!same_entries) {
    std::vector<std::string> held, logged;
    for (const auto& [entry, _] : s.shared_config) held.push_back(entry);
    for (Str e : r.entries) logged.push_back(*e);
    std::sort(held.begin(), held.end());
    std::sort(logged.begin(), logged.end());
    return broken(fmt::format("the shared map holds [{}], but the audit log leaves [{}]", fmt::join(held, ","),
                              fmt::join(logged, ",")),
                  render_map_state(s), s);
  }
  if (s.pointer != *r.pointer)
    return broken(fmt::format("the pointer names {}, but the audit log leaves it at {}", s.pointer, *r.pointer),
                  render_map_state(s), s);
  if (s.shared_config_version != start.shared_config_version + r.map_writes)
    return broken(fmt::format("the shared map is at version {} after {} logged write(s) from version {}",
                              s.shared_config_version, r.map_writes, start.shared_config_version),
                  render_map_state(s), s);
  if (s.pointer_version != start.pointer_version + r.pointer_writes)
    return broken(fmt::format("the pointer is at version {} after {} logged write(s) from version {}",
                              s.pointer_version, r.pointer_writes, start.pointer_version),
                  render_map_state(s) + fmt::format("pointer_version={}\n", s.pointer_version), s);
  return std::nullopt;
}

}  // namespace allocsim::harness

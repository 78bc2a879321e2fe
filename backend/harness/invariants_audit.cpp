// audit-explains-state (invariants_client.h): the audit log, replayed, gives the state the backend holds.
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

/// What the audit log says about the state: the fields its mutation kinds write.
struct Replayed {
  struct Node {
    std::optional<std::string> owner;
    std::string mig_config;
    std::optional<std::string> restore_record;
  };
  std::vector<Node> nodes;           // in the backend's node order
  std::vector<std::string> entries;  // shared map entries, in insertion order
  std::string pointer;
  int64_t map_writes = 0;      // publish-entry, strip-entry
  int64_t pointer_writes = 0;  // point-policy, restore-policy
};

Replayed start_of(const backend::BackendState& s) {
  Replayed r;
  for (const NodeFixture& n : s.nodes) r.nodes.push_back({n.owner, n.mig_config, n.restore_record});
  for (const auto& [entry, _] : s.shared_config) r.entries.push_back(entry);
  r.pointer = s.pointer;
  return r;
}

/// Applies one mutation (seed `_record` kinds, backend/CONTRACT.md §1 `mutations()`). Kinds this replay
/// does not know change nothing here; the state comparison then reports what they wrote.
void apply(Replayed& r, const backend::BackendState& s, const backend::Mutation& m) {
  Replayed::Node* node = nullptr;
  for (size_t i = 0; i < s.nodes.size(); ++i)
    if (s.nodes[i].name == m.target) node = &r.nodes[i];
  const auto entry = std::find(r.entries.begin(), r.entries.end(), m.target);
  if (m.kind == "stamp-owner" && node) node->owner = m.detail;
  if (m.kind == "release-owner" && node) node->owner.reset();
  if (m.kind == "record-restore" && node) node->restore_record = m.detail;
  if (m.kind == "label-geometry" && node) node->mig_config = m.detail;
  if (m.kind == "restore-geometry" && node) {
    node->mig_config = m.detail;
    node->restore_record.reset();
  }
  if (m.kind == "publish-entry" && entry == r.entries.end()) r.entries.push_back(m.target);
  if (m.kind == "strip-entry" && entry != r.entries.end()) r.entries.erase(entry);
  if (m.kind == "publish-entry" || m.kind == "strip-entry") ++r.map_writes;
  if (m.kind == "point-policy" || m.kind == "restore-policy") {
    r.pointer = m.detail;
    ++r.pointer_writes;
  }
  if (m.kind == "delete-map") r.entries.clear();
}

std::string render_audit(const backend::BackendState& s) {
  std::string out;
  for (const auto& m : s.audit) out += fmt::format("{}{}:{}:{}", out.empty() ? "" : ",", m.op_id, m.kind, m.target);
  return fmt::format("audit: [{}]\n", out);
}

Violation broken(std::string message, const std::string& state, const backend::BackendState& s) {
  return Violation{"audit-explains-state", std::move(message), state + render_audit(s)};
}

std::string opt(const std::optional<std::string>& s) { return s ? *s : "-"; }

}  // namespace

std::optional<Violation> check_audit_explains_state(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  const auto& start = c.world.compiled().prototype.state();
  Replayed r = start_of(start);
  // Through mutations(), the seed's read of the log that upstream tests use, not the field behind it.
  // Entries already in the start state's log are part of that state, not writes to replay over it.
  const std::vector<backend::Mutation> log = c.world.backend().mutations({});
  for (size_t i = start.audit.size(); i < log.size(); ++i) apply(r, s, log[i]);
  for (size_t i = 0; i < s.nodes.size() && i < r.nodes.size(); ++i) {
    const NodeFixture& n = s.nodes[i];
    const Replayed::Node& want = r.nodes[i];
    const char* field = n.owner != want.owner                     ? "owner"
                        : n.mig_config != want.mig_config         ? "mig_config"
                        : n.restore_record != want.restore_record ? "restore_record"
                                                                  : nullptr;
    if (!field) continue;
    const std::string logged = field == std::string_view("owner")        ? opt(want.owner)
                               : field == std::string_view("mig_config") ? want.mig_config
                                                                         : opt(want.restore_record);
    const std::string held = field == std::string_view("owner")        ? opt(n.owner)
                             : field == std::string_view("mig_config") ? n.mig_config
                                                                       : opt(n.restore_record);
    return broken(fmt::format("node {} has {}={}, but the audit log leaves it at {}", n.name, field, held, logged),
                  render_node(n), s);
  }
  std::vector<std::string> entries;
  for (const auto& [entry, _] : s.shared_config) entries.push_back(entry);
  std::sort(entries.begin(), entries.end());
  std::sort(r.entries.begin(), r.entries.end());
  if (entries != r.entries)
    return broken(fmt::format("the shared map holds [{}], but the audit log leaves [{}]", fmt::join(entries, ","),
                              fmt::join(r.entries, ",")),
                  render_map_state(s), s);
  if (s.pointer != r.pointer)
    return broken(fmt::format("the pointer names {}, but the audit log leaves it at {}", s.pointer, r.pointer),
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

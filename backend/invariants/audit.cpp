// audit-explains-state (audit.h): the audit log, replayed, gives the state the backend holds.
// It runs after every step of every scenario, so the replay copies no string: it points into the start
// state and into the log.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "backend/invariants/audit.h"
#include "backend/invariants/state_view.h"

namespace allocsim::harness {

using backend::NodeFixture;
using sim::Violation;

namespace {

using Str = const std::string*;  // nullptr: no value
using Src = int64_t;             // AuditReplay's source of a value (dirty.h)

Str ptr(const std::optional<std::string>& s) { return s ? &*s : nullptr; }
bool same(const std::optional<std::string>& held, Str logged) {
  return held.has_value() == (logged != nullptr) && (!logged || *held == *logged);
}
std::string text(Str s) { return s ? *s : "-"; }

/// Resolves the replay's sources against the start state and the log; no string is copied.
struct Resolver {
  const backend::BackendState& start;
  const backend::BackendState& s;
  Str detail(Src src, Str at_start) const {
    if (src == AuditReplay::kStart) return at_start;
    return src == AuditReplay::kNone ? nullptr : &s.audit[size_t(src)].detail;
  }
  Str owner(const AuditReplay& r, size_t i) const { return detail(r.nodes[i].owner, ptr(start.nodes[i].owner)); }
  Str mig_config(const AuditReplay& r, size_t i) const {
    return detail(r.nodes[i].mig_config, &start.nodes[i].mig_config);
  }
  Str restore_record(const AuditReplay& r, size_t i) const {
    return detail(r.nodes[i].restore_record, ptr(start.nodes[i].restore_record));
  }
  Str entry(Src src) const {
    return src >= 0 ? &s.audit[size_t(src)].target : &(start.shared_config.begin() + (-src - 3))->first;
  }
  Str pointer(const AuditReplay& r) const { return detail(r.pointer, &start.pointer); }
};

/// The replay of an empty log: the start state's values.
void start_of(AuditReplay& r, const backend::BackendState& start) {
  r.nodes.assign(start.nodes.size(), {});
  r.entries.clear();
  for (size_t e = 0; e < start.shared_config.size(); ++e) r.entries.push_back(-Src(e) - 3);
  r.pointer = AuditReplay::kStart;
  r.map_writes = r.pointer_writes = 0;
  r.applied = start.audit.size();  // entries already in the start state's log are part of that state
  r.targeted.clear();
}

/// Folds in audit entry `k` (upstream `_record` kinds, backend/CONTRACT.md §1 `mutations()`). Kinds this replay
/// does not know change nothing here; the state comparison then reports what they wrote.
void apply(AuditReplay& r, const Resolver& v, const NodeIndex& index, size_t k) {
  const backend::Mutation& m = v.s.audit[k];
  const auto i = index.find(m.target);
  AuditReplay::Node* node = i && *i < r.nodes.size() ? &r.nodes[*i] : nullptr;
  if (node) r.targeted.set(*i);
  const auto entry = std::find_if(r.entries.begin(), r.entries.end(), [&](Src e) { return *v.entry(e) == m.target; });
  const std::string_view kind = m.kind;
  const Src at = Src(k);
  if (node && kind == "stamp-owner") node->owner = at;
  if (node && kind == "release-owner") node->owner = AuditReplay::kNone;
  if (node && kind == "record-restore") node->restore_record = at;
  if (node && kind == "label-geometry") node->mig_config = at;
  if (node && kind == "restore-geometry") {
    node->mig_config = at;
    node->restore_record = AuditReplay::kNone;
  }
  if (kind == "publish-entry" && entry == r.entries.end()) r.entries.push_back(at);
  if (kind == "strip-entry" && entry != r.entries.end()) r.entries.erase(entry);
  if (kind == "publish-entry" || kind == "strip-entry") ++r.map_writes;
  if (kind == "point-policy" || kind == "restore-policy") {
    r.pointer = at;
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

/// The first of `nodes` (ascending) whose owner, config or restore record is not what the log leaves.
std::optional<Violation> node_mismatch(const Resolver& v, const AuditReplay& r, const std::vector<uint32_t>& nodes) {
  const auto& s = v.s;
  for (const uint32_t i : nodes) {
    if (i >= s.nodes.size() || i >= r.nodes.size()) break;
    const NodeFixture& n = s.nodes[i];
    std::string field, held, logged;
    if (!same(n.owner, v.owner(r, i)))
      field = "owner", held = n.owner.value_or("-"), logged = text(v.owner(r, i));
    else if (n.mig_config != *v.mig_config(r, i))
      field = "mig_config", held = n.mig_config, logged = *v.mig_config(r, i);
    else if (!same(n.restore_record, v.restore_record(r, i)))
      field = "restore_record", held = n.restore_record.value_or("-"), logged = text(v.restore_record(r, i));
    else
      continue;
    return broken(fmt::format("node {} has {}={}, but the audit log leaves it at {}", n.name, field, held, logged),
                  render_node(n), s);
  }
  return std::nullopt;
}

/// The comparisons after the nodes': the map's entries, the pointer, and both versions (each O(entries)).
std::optional<Violation> map_mismatch(const Resolver& v, const AuditReplay& r) {
  const auto& s = v.s;
  const auto& start = v.start;
  bool same_entries = s.shared_config.size() == r.entries.size();
  // Not a structured binding: clang 14 (the sanitize and fuzz build) cannot capture one in a lambda.
  for (const auto& kv : s.shared_config) {
    const std::string& entry = kv.first;
    same_entries =
        same_entries && std::any_of(r.entries.begin(), r.entries.end(), [&](Src e) { return *v.entry(e) == entry; });
  }
  if (!same_entries) {
    std::vector<std::string> held, logged;
    for (const auto& [entry, _] : s.shared_config) held.push_back(entry);
    for (Src e : r.entries) logged.push_back(*v.entry(e));
    std::sort(held.begin(), held.end());
    std::sort(logged.begin(), logged.end());
    return broken(fmt::format("the shared map holds [{}], but the audit log leaves [{}]", fmt::join(held, ","),
                              fmt::join(logged, ",")),
                  render_map_state(s), s);
  }
  if (s.pointer != *v.pointer(r))
    return broken(fmt::format("the pointer names {}, but the audit log leaves it at {}", s.pointer, *v.pointer(r)),
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

const backend::BackendState& start_state(const WorldState& w) {
  return w.audit_base ? *w.audit_base : w.compiled().prototype.state();
}

/// Whether mutations() with no kinds gives the log entry for entry, and mutations() of the last entry's kind gives
/// the entries of that kind, in log order (upstream's filter, which its tests use); through mutations_into() and the
/// memo's scratch vector, so that it allocates nothing once that has grown.
bool mutations_give_log(const CheckContext& c) {
  std::vector<backend::Mutation>& got = c.scratch().mutations;
  const size_t n = c.world.backend().mutations_into({}, got);
  const std::vector<backend::Mutation>& log = c.world.backend().state().audit;
  if (n != log.size() || !std::equal(log.begin(), log.end(), got.begin())) return false;
  if (log.empty()) return true;
  const std::string& kind = log.back().kind;
  std::vector<std::string>& kinds = c.scratch().mutation_kinds;
  kinds.resize(1);
  kinds[0] = kind;
  const size_t of_kind = c.world.backend().mutations_into(kinds, got);
  size_t k = 0;
  for (const backend::Mutation& m : log)
    if (m.kind == kind && (k >= of_kind || !(got[k++] == m))) return false;
  return k == of_kind;
}

Violation broken_mutations(const backend::BackendState& s) {
  return broken(fmt::format("mutations() does not give the {} audit entries, or mutations(kinds) does not filter "
                            "them by kind",
                            s.audit.size()),
                "", s);
}

void fold(AuditReplay& r, const Resolver& v, const NodeIndex& index) {
  for (size_t k = r.applied; k < v.s.audit.size(); ++k) apply(r, v, index, k);
  r.applied = std::max(r.applied, v.s.audit.size());
}

}  // namespace

std::optional<Violation> check_audit_explains_state(const CheckContext& c) {
  const auto& s = c.world.backend().state();
  const Resolver v{start_state(c.world), s};
  // At quiescence, once per execution: mutations(), upstream's read of the log that its tests use, gives the log
  // entry for entry, and filtered by a kind, that kind's entries.
  if (c.quiescent && !mutations_give_log(c)) return broken_mutations(s);
  AuditReplay& r = c.scratch().full_replay;  // start_of() resets it in place
  start_of(r, v.start);
  r.targeted.resize(v.start.nodes.size());
  fold(r, v, c.world.compiled().node_index);
  if (auto bad = node_mismatch(v, r, c.world.memo.all)) return bad;
  return map_mismatch(v, r);
}

void prime_audit_replay(AuditReplay& r, const backend::BackendState& start) {
  start_of(r, start);
  r.targeted.resize(start.nodes.size());
  r.valid = true;
}

std::optional<Violation> check_audit_explains_state_incremental(const CheckContext& c) {
  const WorldState& w = c.world;
  const auto& s = w.backend().state();
  if (c.memo == nullptr) return check_audit_explains_state(c);
  AuditReplay& r = c.memo->replay;
  // A foreign write re-bases the replay (audit_base) at a point the log does not mark: replay from scratch
  // from then on (foreign ops are few and their scenarios small).
  if (w.audit_base || s.audit.size() < r.applied || s.nodes.size() != w.memo.all.size()) {
    r.valid = false;
    return check_audit_explains_state(c);
  }
  // As the full check: mutations() first, at quiescence only.
  if (c.quiescent && !mutations_give_log(c)) return broken_mutations(s);
  const Resolver v{start_state(w), s};
  const bool rebuilt = !r.valid;
  if (rebuilt) {
    start_of(r, v.start);
    r.targeted.resize(v.start.nodes.size());
    r.valid = true;
  }
  fold(r, v, w.compiled().node_index);
  // Nodes compared: those the steps wrote (their held value moved) and those a new entry targeted (their
  // replayed value moved); every other node matched at the last check and still does.
  for (const uint32_t i : c.nodes()) r.targeted.set(i);
  r.targeted.list(c.memo->audit_nodes);
  r.targeted.clear();
  if (auto bad = node_mismatch(v, r, rebuilt ? w.memo.all : c.memo->audit_nodes)) return bad;
  return map_mismatch(v, r);
}

std::vector<InvariantSpec> audit_invariants() {
  // clang-format off
  return {
      {"audit-explains-state", 21, "-", "the audit log replayed over the start state gives every owner, node config, restore record, map entry and pointer, and the map's and pointer's versions",
       check_audit_explains_state, false, {"audit: ["}, kReadsNodes | kReadsMap | kReadsPointer | kReadsAudit | kReadsQuiescence, true, check_audit_explains_state_incremental,
       "the audit log (upstream's `mutations()`), replayed from the scenario's start state (or from the state the latest foreign write left: a foreign write is another controller's and never in the log), gives every node's owner (`stamp-owner`, `release-owner`), MIG config (`label-geometry`, `restore-geometry`) and restore record (`record-restore`, cleared by `restore-geometry`), the set of shared-map entries (`publish-entry`, `strip-entry`, `delete-map`) and the pointer (`point-policy`, `restore-policy`) exactly as they are; and the map's and the pointer's versions are their start values plus one per logged write of each"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

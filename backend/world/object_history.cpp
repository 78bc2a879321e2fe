#include "backend/world/object_history.h"

#include <fmt/format.h>

#include <stdexcept>

#include "backend/world/actor_state.h"

namespace allocsim::harness {

std::string_view field_name(Field f) {
  switch (f) {
    case Field::Owner:
      return "owner stamp";
    case Field::Config:
      return "mig.config";
    case Field::Restore:
      return "restore record";
    case Field::Map:
      return "shared map";
    case Field::Pointer:
      return "pointer";
  }
  return "?";
}

const std::vector<HistoryRule>& history_rules() {
  using E = HistoryEffect;
  constexpr Basis kCur = Basis::Current, kSeen = Basis::LastObserved, kNew = Basis::Absent;
  // record-restore is one patch with the label-geometry that follows it (upstream bumps the node once for both).
  // clang-format off
  static const std::vector<HistoryRule> rules = {
      {"stamp-owner", {{Field::Owner, E::Write, kCur}}, Counter::Node,
       "a compare-and-swap on the node's resourceVersion, under the backend lock"},
      {"release-owner", {{Field::Owner, E::Clear, kCur}}, Counter::Node,
       "cleared only where owner and epoch are the claim's (rollback: the epoch is ours), read under the lock"},
      {"record-restore", {{Field::Config, E::Observe, kCur}, {Field::Restore, E::Write, kNew}}, Counter::None,
       "copies the config it reads; upstream records only where no record is (`is None`): a record is created, "
       "never replaced"},
      {"label-geometry", {{Field::Config, E::Write, kSeen}}, Counter::Node,
       "writes the claim's entry name, whatever the label says now: what it replaces is what the record kept, "
       "or what the writer saw when it recorded or last labelled"},
      {"restore-geometry", {{Field::Config, E::Write, kSeen}, {Field::Restore, E::Clear, kCur}}, Counter::Node,
       "writes the record kept at reserve time, whatever the label says now; the record itself is read under "
       "the lock"},
      {"publish-entry", {{Field::Map, E::Write, kCur}, {Field::Pointer, E::Observe, kCur}}, Counter::Map,
       "edits the map as it is, under the lock, and reads the pointer it may switch"},
      {"point-policy", {{Field::Pointer, E::Write, kCur}}, Counter::Pointer,
       "switches the pointer only after reading it, under the lock"},
      {"strip-entry", {{Field::Map, E::Write, kCur}}, Counter::Map,
       "edits the map as it is, under the lock"},
      {"restore-policy", {{Field::Pointer, E::Write, kSeen}}, Counter::Pointer,
       "writes the pointer's restore record, whatever the pointer says now"},
      {"delete-map", {{Field::Map, E::Clear, kCur}}, Counter::None,
       "map-deleted-on-last-out mutant: deletes the map as it is, under the lock"},
  };
  // clang-format on
  return rules;
}

uint32_t ObjectHistories::object(Field f, uint32_t node) const {
  switch (f) {
    case Field::Owner:
    case Field::Config:
    case Field::Restore:
      return static_cast<uint32_t>(f) * nodes_ + node;
    case Field::Map:
      return 3 * nodes_;
    case Field::Pointer:
      return 3 * nodes_ + 1;
  }
  return 0;
}

Field ObjectHistories::field_of(uint32_t object) const {
  if (object >= 3 * nodes_) return object == 3 * nodes_ ? Field::Map : Field::Pointer;
  return static_cast<Field>(object / nodes_);
}

void ObjectHistories::reset(bool on, const backend::BackendState& s, const std::vector<ActorState>& actors) {
  enabled = on;
  lost.reset();
  unversioned.reset();
  versions.clear();
  recovering_count_ = 0;
  pending_.clear();
  audit_seen_ = s.audit.size();  // entries of the start state are part of it
  if (!on) return;
  nodes_ = static_cast<uint32_t>(s.nodes.empty() ? 1 : s.nodes.size());
  principals_ = static_cast<int>(actors.size());
  objects_.assign(3 * size_t(nodes_) + 2, ObjectVersion{});
  for (uint32_t i = 0; i < s.nodes.size(); ++i) {
    objects_[object(Field::Owner, i)].present = s.nodes[i].owner.has_value();
    objects_[object(Field::Config, i)].present = true;
    objects_[object(Field::Restore, i)].present = s.nodes[i].restore_record.has_value();
  }
  objects_[object(Field::Map, 0)].present = !s.shared_map_deleted;
  objects_[object(Field::Pointer, 0)].present = true;
  start_values_.resize(objects_.size());  // assigned in place: the strings keep their buffers across executions
  for (std::string& v : start_values_) v.clear();
  for (uint32_t i = 0; i < s.nodes.size(); ++i) {
    start_values_[object(Field::Owner, i)].assign(s.nodes[i].owner.value_or(""));
    start_values_[object(Field::Config, i)].assign(s.nodes[i].mig_config);
    start_values_[object(Field::Restore, i)].assign(s.nodes[i].restore_record.value_or(""));
  }
  start_values_[object(Field::Pointer, 0)].assign(s.pointer);
  seen_.assign(size_t(principals_ + 1) * objects_.size(), std::nullopt);  // + the adapter
  counters_.resize(s.nodes.size() + 2);
  for (size_t i = 0; i < s.nodes.size(); ++i) counters_[i] = s.nodes[i].resource_version;
  counters_[s.nodes.size()] = s.shared_config_version;
  counters_[s.nodes.size() + 1] = s.pointer_version;
  step_writes_.assign(counters_.size(), 0);
  step_by_.resize(counters_.size());
}

void ObjectHistories::count_write(const HistoryRule& rule, std::optional<uint32_t> node, const VersionSource& by) {
  size_t k = 0;
  switch (rule.advances) {
    case Counter::None:
      return;
    case Counter::Node:
      if (!node || *node >= counters_.size() - 2) return;  // a node the scenario does not have
      k = *node;
      break;
    case Counter::Map:
      k = counters_.size() - 2;
      break;
    case Counter::Pointer:
      k = counters_.size() - 1;
      break;
  }
  step_writes_[k] += 1;
  step_by_[k] = by;
}

void ObjectHistories::check_counters(const backend::BackendState& s) {
  const size_t nodes = counters_.size() - 2;
  for (size_t k = 0; k < counters_.size(); ++k) {
    const int64_t now = k < nodes    ? s.nodes[k].resource_version
                        : k == nodes ? s.shared_config_version
                                     : s.pointer_version;
    if (!unversioned && step_writes_[k] > 0 && now - counters_[k] < int64_t(step_writes_[k])) {
      UnversionedWrite u;
      u.counter = k < nodes ? Counter::Node : k == nodes ? Counter::Map : Counter::Pointer;
      u.node = k < nodes ? static_cast<uint32_t>(k) : 0;
      u.before = counters_[k];
      u.after = now;
      u.writes = step_writes_[k];
      u.by = step_by_[k];
      unversioned = u;
    }
    counters_[k] = now;
    step_writes_[k] = 0;
  }
}

void ObjectHistories::recovering(std::string_view op_id, int flow) {
  if (!enabled) return;
  if (recovering_count_ == recovering_.size()) recovering_.emplace_back();
  recovering_[recovering_count_].first.assign(op_id);
  recovering_[recovering_count_].second = flow;
  ++recovering_count_;
}

void ObjectHistories::foreign(Field field, uint32_t node, int actor, std::string_view op, std::string_view value,
                              bool changed) {
  if (!enabled) return;
  VersionSource by;
  by.principal = by.actor = actor;
  by.what = op;
  by.value = value;
  pending_.push_back({object(field, node), by, changed});
}

int ObjectHistories::principal_of(std::string_view op_id, const std::vector<ActorState>& actors) const {
  for (size_t i = 0; i < recovering_count_; ++i)
    if (recovering_[i].first == op_id) return recovering_[i].second;
  // Operation ids are "<actor>:<op><k>" (backend/ops/): the actor is the flow the backend writes for. A reserve
  // under a shared owner identity is "<owner>:<actor>.op<k>" (ScriptRunner::reserve): the actor is what lies
  // between the ':' and the last '.' (op kinds hold no '.').
  const size_t colon = op_id.find(':');
  std::string_view actor = op_id.substr(0, colon);
  if (colon != std::string_view::npos)
    if (const size_t dot = op_id.rfind('.'); dot != std::string_view::npos && dot > colon)
      actor = op_id.substr(colon + 1, dot - colon - 1);
  for (size_t i = 0; i < actors.size(); ++i)
    if (actors[i].name == actor) return static_cast<int>(i);
  return -1;
}

void ObjectHistories::observe(uint32_t object, int principal, const VersionSource& at) {
  if (principal < 0) return;  // an operation id naming no actor: nobody to credit (principal_of)
  const ObjectVersion& cur = objects_[object];
  seen_[size_t(principal) * objects_.size() + object] = Sight{cur.number, cur, at};
}

std::string_view ObjectHistories::value_of(uint32_t object, const ObjectVersion& v,
                                           const backend::BackendState& s) const {
  if (!v.present) return {};
  if (v.by.audit >= 0 && size_t(v.by.audit) < s.audit.size()) return s.audit[size_t(v.by.audit)].detail;
  if (v.by.actor >= 0) return v.by.value;
  return object < start_values_.size() ? std::string_view(start_values_[object]) : std::string_view();
}

void ObjectHistories::write(uint32_t object, const HistoryEffect& e, const VersionSource& by, int principal,
                            const backend::BackendState& s) {
  ObjectVersion& cur = objects_[object];
  if (e.kind == HistoryEffect::Write && cur.present && field_of(object) != Field::Map && by.audit >= 0 &&
      value_of(object, cur, s) == s.audit[size_t(by.audit)].detail) {
    observe(object, principal, by);  // the same value written again: no version, nothing lost, the value seen
    return;
  }
  const bool other = cur.by.principal >= 0 && cur.by.principal != principal;
  if (!lost && principal >= 0 && cur.present &&
      (e.basis == Basis::Absent || (e.basis == Basis::LastObserved && other))) {
    const std::optional<Sight>& seen = seen_[size_t(principal) * objects_.size() + object];
    // Unseen: never seen, or seen at an older version whose value differs (a round trip back to the value the
    // writer saw loses nothing).
    const bool unseen =
        !seen || (seen->number < cur.number &&
                  (!seen->version.present || value_of(object, seen->version, s) != value_of(object, cur, s)));
    if (e.basis == Basis::Absent || unseen) {
      LostUpdate l;
      l.object = object;
      l.replaced = cur;
      l.written = ObjectVersion{cur.number + 1, e.kind == HistoryEffect::Write, by};
      l.last_seen = seen;
      l.basis = e.basis;
      lost = l;
    }
  }
  cur.number += 1;
  cur.present = e.kind == HistoryEffect::Write;
  cur.by = by;
  versions.emplace_back(object, cur);
  observe(object, principal, by);
}

void ObjectHistories::after_step(const backend::BackendState& s, const NodeIndex& index,
                                 const std::vector<ActorState>& actors, uint64_t step) {
  if (!enabled) return;
  for (Foreign& f : pending_) {
    f.by.step = step;
    if (!f.changed) continue;  // a write that leaves the value as it was makes no version
    ObjectVersion& cur = objects_[f.object];
    cur.number += 1;
    cur.present = true;
    cur.by = f.by;
    versions.emplace_back(f.object, cur);
    observe(f.object, f.by.principal, f.by);
  }
  pending_.clear();
  const auto& rules = history_rules();
  for (; audit_seen_ < s.audit.size(); ++audit_seen_) {
    const backend::Mutation& m = s.audit[audit_seen_];
    const HistoryRule* rule = nullptr;
    for (const HistoryRule& r : rules)
      if (r.kind == m.kind) rule = &r;
    if (rule == nullptr)
      throw std::logic_error(fmt::format("audit kind '{}' has no row in history_rules() (object_history.cpp)", m.kind));
    const int principal = principal_of(m.op_id, actors);
    VersionSource by;
    by.principal = principal;
    by.audit = static_cast<int64_t>(audit_seen_);
    by.what = rule->kind;
    by.step = step;
    std::optional<uint32_t> node;
    if (rule->advances == Counter::Node) node = index.find(m.target);
    count_write(*rule, node, by);
    for (const HistoryEffect& e : rule->effects) {
      if (e.field == Field::Owner || e.field == Field::Config || e.field == Field::Restore) {
        if (!node) node = index.find(m.target);
        if (!node || *node >= nodes_) continue;  // a node the scenario does not have: nothing to version
      }
      const uint32_t o = object(e.field, node.value_or(0));
      // The map and the pointer are every flow's at once: the adapter is their principal (header comment).
      const int p = e.field == Field::Map || e.field == Field::Pointer ? principals_ : principal;
      VersionSource at = by;
      at.principal = p;
      if (e.kind == HistoryEffect::Observe)
        observe(o, p, at);
      else
        write(o, e, at, p, s);
    }
  }
  check_counters(s);
}

}  // namespace allocsim::harness

// The histories family (histories.h): the first lost update of the world's object histories, told as the race it
// is; the first write that did not advance its object's version.
#include "backend/invariants/histories.h"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "backend/invariants/state_view.h"
#include "backend/world/object_history.h"

namespace allocsim::harness {

namespace {

std::string principal_name(const WorldState& w, int principal) {
  if (principal < 0) return "the start state";
  if (size_t(principal) >= w.actors().size()) return "the adapter";
  return w.actors()[size_t(principal)].name;
}

/// "n1's mig.config", "the shared map".
std::string object_name(const WorldState& w, uint32_t object) {
  const ObjectHistories& h = w.histories;
  const Field f = h.field_of(object);
  if (f == Field::Map || f == Field::Pointer) return fmt::format("the {}", field_name(f));
  return fmt::format("{}'s {}", w.backend().state().nodes[h.node_of(object)].name, field_name(f));
}

/// The value a version holds, as its write gave it; "(none)" when absent.
std::string value_of(const WorldState& w, uint32_t object, const ObjectVersion& v) {
  if (!v.present) return "(none)";
  return std::string(w.histories.value_of(object, v, w.backend().state()));
}

/// "flowA's label-geometry (flowA:op1) at step 4".
std::string made_by(const WorldState& w, const VersionSource& by) {
  if (by.principal < 0 && by.actor < 0) return "the start state";
  const auto& audit = w.backend().state().audit;
  const std::string who = principal_name(w, by.principal);
  if (by.audit >= 0 && size_t(by.audit) < audit.size())
    return fmt::format("{}'s {} ({}) at step {}", who, by.what, audit[size_t(by.audit)].op_id, by.step);
  return fmt::format("{}'s {} at step {}", who, by.what, by.step);
}

}  // namespace

std::string render_history(const WorldState& w, uint32_t object) {
  std::string out = fmt::format("history of {}: [", object_name(w, object));
  bool first = true;
  for (const auto& [o, v] : w.histories.versions) {
    if (o != object) continue;
    fmt::format_to(std::back_inserter(out), "{}v{} {} by {}", first ? "" : ", ", v.number, value_of(w, o, v),
                   made_by(w, v.by));
    first = false;
  }
  out += "]";
  return out;
}

std::optional<sim::Violation> check_no_lost_update(const CheckContext& c) {
  const ObjectHistories& h = c.world.histories;
  if (!h.lost) return std::nullopt;
  const LostUpdate& l = *h.lost;
  const WorldState& w = c.world;
  const std::string object = object_name(w, l.object);
  const std::string replaced =
      fmt::format("{} replaced v{} of {} ({}, written by {}) with v{} ({})", made_by(w, l.written.by),
                  l.replaced.number, object, value_of(w, l.object, l.replaced), made_by(w, l.replaced.by),
                  l.written.number, value_of(w, l.object, l.written));
  std::string message;
  if (l.basis == Basis::Absent)
    message = replaced + ", a write meant only to create one where none is";
  else if (l.last_seen)
    message = fmt::format("{} without having seen it: its last sight of {} was v{} ({})", replaced, object,
                          l.last_seen->number, made_by(w, l.last_seen->at));
  else
    message = fmt::format("{} without having seen it: it never saw {}", replaced, object);
  std::string state = render_history(w, l.object);
  fmt::format_to(std::back_inserter(state), "\n{} last saw: {}", principal_name(w, l.written.by.principal),
                 l.last_seen ? fmt::format("v{}", l.last_seen->number) : std::string("nothing"));
  return violation("no-lost-update", std::move(message), std::move(state));
}

std::optional<sim::Violation> check_write_advances_version(const CheckContext& c) {
  const ObjectHistories& h = c.world.histories;
  if (!h.unversioned) return std::nullopt;
  const UnversionedWrite& u = *h.unversioned;
  const WorldState& w = c.world;
  const backend::BackendState& s = w.backend().state();
  std::string object;
  std::string state;
  switch (u.counter) {
    case Counter::Node:
      object = fmt::format("node {}'s resourceVersion", s.nodes[u.node].name);
      state = render_node(s.nodes[u.node]);
      break;
    case Counter::Map:
      object = "the shared map's version";
      state = render_map_state(s);
      break;
    case Counter::Pointer:
    case Counter::None:
      object = "the pointer's version";
      state = render_map_state(s);
      break;
  }
  std::string message = fmt::format(
      "{} went {} -> {} in a step that wrote it {} time{} through the API, the last {}: a compare-and-swap on the "
      "version cannot see {}",
      object, u.before, u.after, u.writes, u.writes == 1 ? "" : "s", made_by(w, u.by),
      u.writes == 1 ? "that write" : "every one of them");
  fmt::format_to(std::back_inserter(state), "versions: {} {} -> {} over {} write{}\n", object, u.before, u.after,
                 u.writes, u.writes == 1 ? "" : "s");
  return violation("write-advances-version", std::move(message), std::move(state));
}

std::vector<InvariantSpec> history_invariants() {
  // clang-format off
  return {
      {"no-lost-update", 26, "-", "no write decided from an earlier sight of an object (a restore, a label) replaces a version another writer made that the writer never saw; no write meant only to create (a restore record) replaces one",
       check_no_lost_update, false, {"history of ", "last saw: "}, kReadsStep, false, nullptr,
       "after every step: no write decided from an earlier sight of an object replaces a version of it that another principal wrote and the writer never saw, and no write meant only to create (a restore record) replaces a present one. Judged on the object histories (\"Lost updates\" below), not on a property of one race"},
      {"write-advances-version", 27, "-", "every write the backend makes through the API (an owner stamp or its clearing, a MIG config label or its restore, a map edit, a pointer switch) advances that object's version (the node's resourceVersion, the map's or the pointer's) by at least one per write; the protocol's compare-and-swaps read the nodes' resourceVersions (a stamp's re-check, a plan's generation), so a node write that does not advance one is invisible to them",
       check_write_advances_version, false, {"versions: "}, kReadsStep, false, nullptr,
       "after every step: each write the backend made through the API in the step (an audit entry of `stamp-owner`, `release-owner`, `label-geometry`, `restore-geometry`; `publish-entry`, `strip-entry`; `point-policy`, `restore-policy`) moved its object's version counter on by at least one per write: the node's resourceVersion, the map's version, the pointer's. The protocol's compare-and-swaps see another writer of a node only through its resourceVersion (\"Versions advance\" below)"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

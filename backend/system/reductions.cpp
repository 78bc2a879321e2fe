#include "backend/system/reductions.h"

#include <algorithm>
#include <tuple>

#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/op_syntax.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {

size_t op_count(const Scenario& sc) {
  size_t n = 0;
  for (const ActorSpec& a : sc.actors) n += a.script.size();
  return n;
}

namespace {

// Drops expect.actors entries for ops an actor no longer has (the loader rejects them).
void prune_expect(Scenario& sc) {
  auto& actors = sc.expect.actors;
  for (size_t i = 0; i < actors.size();) {
    const ActorSpec* spec = nullptr;
    for (const ActorSpec& a : sc.actors)
      if (a.name == actors[i].first) spec = &a;
    auto& ops = actors[i].second;
    for (size_t k = 0; spec && k < ops.size();) {
      bool present = false;
      for (const Op& op : spec->script) present |= ops[k].first == op_name(op.kind);
      if (present)
        ++k;
      else
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (spec && !ops.empty())
      ++i;
    else
      actors.erase(actors.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

const ActorSpec* actor_named(const Scenario& sc, const std::string& name) {
  for (const ActorSpec& a : sc.actors)
    if (a.name == name) return &a;
  return nullptr;
}

// Drops what names an actor that is gone (a background actor whose op went, or became plain) or an outcome its op
// can no longer record: faults.actors entries (an emptied list would make every actor eligible, so the faults go),
// and per-occurrence pins (expect_audit.h), which the loader checks against the op's own vocabulary.
void prune_names(Scenario& sc) {
  if (!sc.faults.actors.empty()) {
    std::erase_if(sc.faults.actors, [&](const std::string& n) { return actor_named(sc, n) == nullptr; });
    if (sc.faults.actors.empty()) sc.faults = FaultSpec{};
  }
  std::erase_if(sc.expect.occurrences, [&](auto& entry) {
    const ActorSpec* a = actor_named(sc, entry.first);
    if (a == nullptr) return true;
    std::erase_if(entry.second, [&](auto& pin) {
      if (pin.first >= a->script.size()) return true;
      const std::vector<const char*> vocabulary = occurrence_vocabulary(*a, pin.first);
      std::erase_if(pin.second, [&](const std::string& w) { return !support::contains(vocabulary, w); });
      return pin.second.empty();
    });
    return entry.second.empty();
  });
}

// After an op changed or went: background actors, expectations, fault eligibility and order constraints follow.
void finish_change(Scenario& out) {
  // Background actors are named by their op's index (conditional_ops.h): derive them again, and let constraints on
  // a renamed or vanished one go.
  add_behind_actors(out);
  prune_expect(out);
  prune_names(out);
  {
    std::vector<std::string> names;
    for (const ActorSpec& a : out.actors) names.push_back(a.name);
    out.order = sim::remap_order(out.order, names);
  }
  // A constraint naming a point the actor no longer reaches goes with the op: the loader refuses such a label
  // (sim/order.h), and the candidate is re-read through it. A constraint whose Y vanished was met anyway; one
  // whose X vanished would hold Y back for ever, and without it the candidate is a smaller scenario judged
  // like any other (it must still violate the same invariant to be kept).
  const sim::PointVocabulary points = point_vocabulary(out);
  const auto reachable = [&](const sim::StepLabel& l) { return support::contains(points.per_actor[l.actor], l.point); };
  std::erase_if(out.order.constraints,
                [&](const sim::OrderConstraint& c) { return !reachable(c.before) || !reachable(c.after); });
}

}  // namespace

std::optional<Scenario> without_actor(const Scenario& sc, size_t index) {
  if (sc.actors.size() <= 1) return std::nullopt;
  if (sc.actors[index].behind_of) return std::nullopt;  // derived from its issuer's op: dropping that op drops it
  const std::string& name = sc.actors[index].name;
  for (size_t a = 0; a < sc.actors.size(); ++a)
    for (const Op& op : sc.actors[a].script)
      if (a != index && ((op.plan_from && *op.plan_from == name) || (op.kind == OpKind::Recover && op.flow == name) ||
                         (op.bind_claim && *op.bind_claim == name)))
        return std::nullopt;  // another actor's op names it
  // faults.actors: the name leaves the list. Dropping its only entry would make every actor eligible, so an
  // actor that still has ops stays. One without ops makes no call, so no fault can strike anywhere: the
  // faults go with it (an empty script column in a minimal trace is noise).
  auto& eligible = sc.faults.actors;
  const auto listed = std::find(eligible.begin(), eligible.end(), name);
  const bool only_eligible = listed != eligible.end() && eligible.size() == 1;
  if (only_eligible && !sc.actors[index].script.empty()) return std::nullopt;
  Scenario out = sc;
  out.actors.erase(out.actors.begin() + static_cast<std::ptrdiff_t>(index));
  if (only_eligible)
    out.faults = FaultSpec{};
  else
    std::erase(out.faults.actors, name);
  add_behind_actors(out);  // the dropped actor's write-behind ops take their background actors with them
  prune_expect(out);
  prune_names(out);
  std::vector<std::string> names;
  for (const ActorSpec& a : out.actors) names.push_back(a.name);
  out.order = sim::remap_order(out.order, names);  // constraints naming the dropped actor go with it
  return out;
}

std::optional<Simplification> simplified(const Scenario& sc, size_t k) {
  for (size_t a = 0; a < sc.actors.size(); ++a) {
    if (!sc.actors[a].owner || sc.actors[a].behind_of) continue;
    if (k-- > 0) continue;
    Simplification out{sc, std::nullopt, std::nullopt};
    out.scenario.actors[a].owner.reset();
    return out;
  }
  for (size_t a = 0; a < sc.actors.size(); ++a)
    for (size_t op = 0; op < sc.actors[a].script.size(); ++op) {
      if (!sc.actors[a].script[op].behind || k-- > 0) continue;
      Simplification out{sc, std::nullopt, std::nullopt};
      const std::string& issuer = sc.actors[a].name;
      for (size_t b = 0; b < sc.actors.size(); ++b)
        if (const auto& of = sc.actors[b].behind_of; of && of->actor == issuer && of->op == op)
          out.dropped_actor = b, out.choices_to = a;
      Scenario& s = out.scenario;
      std::vector<Op>& script = s.actors[a].script;
      script[op].behind = false;
      // The op's faults now strike where it runs: at its issuer.
      if (out.dropped_actor) {
        auto& eligible = s.faults.actors;
        const std::string& background = sc.actors[*out.dropped_actor].name;
        if (std::find(eligible.begin(), eligible.end(), background) != eligible.end()) {
          std::erase(eligible, background);
          if (std::find(eligible.begin(), eligible.end(), issuer) == eligible.end()) eligible.push_back(issuer);
        }
      }
      // A `when` on the op's `issued` names what it can no longer record, and goes; an op that so loses its `when`
      // can no longer record `skipped`, so a `when` on that goes too (`when` names earlier ops: one forward pass).
      for (Op& later : script)
        if (later.when && !support::contains(outcome_vocabulary(script[later.when->op]), later.when->outcome))
          later.when.reset();
      for (auto& [name, ops] : s.expect.actors) {
        if (name != issuer) continue;
        for (auto& entry : ops) {
          const std::vector<const char*> vocabulary = expect_vocabulary(s.actors[a], entry.first);
          std::erase_if(entry.second, [&](const std::string& w) { return !support::contains(vocabulary, w); });
        }
        std::erase_if(ops, [](const auto& entry) { return entry.second.empty(); });
      }
      finish_change(s);  // pins of outcomes the ops can no longer record go too (prune_names)
      return out;
    }
  return std::nullopt;
}

Scenario without_op(const Scenario& sc, size_t actor, size_t op) {
  Scenario out = sc;
  auto& script = out.actors[actor].script;
  // An op whose `when` names a dropped op goes with it (and so on down the chain): kept without its condition
  // it would run where the scenario never lets it (a bind with no claim), and the minimal trace would show
  // an execution the scenario cannot have. `when` names earlier ops only, so one forward pass finds them all.
  std::vector<bool> dropped(script.size(), false);
  dropped[op] = true;
  for (size_t k = op + 1; k < script.size(); ++k) dropped[k] = script[k].when && dropped[script[k].when->op];
  for (size_t k = script.size(); k-- > op;) {
    if (!dropped[k]) continue;
    script.erase(script.begin() + static_cast<std::ptrdiff_t>(k));
    reindex_conditions(out, actor, k);  // later `when` indices (conditional_ops.h); none names k any more
    for (auto& [name, pins] : out.expect.occurrences) {  // likewise the per-occurrence pins' indices
      if (name != out.actors[actor].name) continue;
      std::erase_if(pins, [&](const auto& pin) { return pin.first == k; });
      for (auto& pin : pins)
        if (pin.first > k) --pin.first;
    }
  }
  finish_change(out);
  return out;
}

}  // namespace allocsim::harness

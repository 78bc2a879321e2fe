// Conditional ops (conditional_ops.h): `when` and `retry`, read, encoded, judged and shrunk in one place; the
// script runner applies them (backend/ops/script_runner.cpp).
#include "backend/scenario/conditional_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::contains;
using support::hint;
using support::quote;

const std::vector<const char*> kRetryKeys = {"on", "max"};
const std::vector<const char*> kRetryOn = {"conflict", "infeasible"};
const std::vector<const char*> kWhenKeys = {"op", "outcome"};

RetrySpec parse_retry(const ScenarioReader& r, const Json& v, const std::string& ptr, const Op& op) {
  if (!op.has_requests)
    r.fail(ptr,
           "retry needs \"requests\" on the reserve: a retry inventories, plans and reserves them again, "
           "and a plan made elsewhere (plan_from, or a plan op) cannot be made again by this op");
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kRetryKeys, " for retry");
  RetrySpec out;
  const Json& on = r.require(v, ptr, "on");
  const std::string on_ptr = child(ptr, "on");
  if (on.is_string()) {
    out.on.push_back(r.choice(on, on_ptr, kRetryOn));
  } else {
    if (!on.is_array())
      r.fail(on_ptr, fmt::format("expected an outcome or an array of outcomes ({}), got {}",
                                 support::quote_all(kRetryOn), on.type_name()));
    out.on = r.known_names(on, on_ptr, kRetryOn, "retry outcome", false);
  }
  out.max = r.int_value(r.require(v, ptr, "max"), child(ptr, "max"), 1, kMaxRetries, " (retries after the first try)");
  return out;
}

WhenSpec parse_when(const ScenarioReader& r, const Json& v, const std::string& ptr, const std::vector<Op>& earlier) {
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kWhenKeys, " for when");
  if (earlier.empty()) r.fail(ptr, "when needs an earlier op to depend on, and this is the script's first op");
  WhenSpec out;
  const int last = static_cast<int>(earlier.size()) - 1;
  out.op = static_cast<size_t>(
      r.int_value(r.require(v, ptr, "op"), child(ptr, "op"), 0, last, " (an earlier op of this script, 0-based)"));
  const Op& dep = earlier[out.op];
  const std::string word = r.string_value(r.require(v, ptr, "outcome"), child(ptr, "outcome"));
  const std::vector<const char*> vocabulary = outcome_vocabulary(dep);
  if (!contains(vocabulary, word))
    r.fail(child(ptr, "outcome"), fmt::format("op {} ({}) never ends in {}{}", out.op, quote(op_name(dep.kind)),
                                              quote(word), hint(word, vocabulary)));
  out.outcome = word;
  return out;
}

}  // namespace

bool can_write_behind(OpKind k) {
  // Writes that need nothing of their actor's own state (its inventory, plan or claims): a kubelet's bind and unbind
  // and the foreign writes, which a background worker can make in the actor's stead.
  switch (k) {
    case OpKind::BindWorkload:
    case OpKind::UnbindWorkload:
    case OpKind::SetLabels:
    case OpKind::SetMigState:
    case OpKind::WriteSharedMap:
    case OpKind::SetPointer:
      return true;
    default:
      return false;
  }
}

const std::vector<const char*>& modifier_keys(OpKind k) {
  static const std::vector<const char*> any = {"when"};
  static const std::vector<const char*> reserve = {"when", "retry"};
  static const std::vector<const char*> write = {"when", "behind"};
  return k == OpKind::Reserve ? reserve : can_write_behind(k) ? write : any;
}

void parse_op_modifiers(const ScenarioReader& r, const Json& v, const std::string& ptr, const std::vector<Op>& earlier,
                        Op& op) {
  if (const Json* w = r.find(v, "when")) op.when = parse_when(r, *w, child(ptr, "when"), earlier);
  if (const Json* t = r.find(v, "retry")) op.retry = parse_retry(r, *t, child(ptr, "retry"), op);
  if (const Json* b = r.find(v, "behind")) {
    const std::string bptr = child(ptr, "behind");
    if (!b->is_boolean()) r.fail(bptr, fmt::format("expected a boolean, got {}", b->type_name()));
    op.behind = b->get<bool>();
  }
}

std::vector<const char*> outcome_vocabulary(const Op& op) {
  std::vector<const char*> out = op.behind ? std::vector<const char*>{"issued"} : op_outcomes(op.kind);
  if (op.when && !contains(out, "skipped")) out.push_back("skipped");
  return out;
}

std::string behind_actor_name(const std::string& issuer, size_t op) { return fmt::format("{}.behind{}", issuer, op); }

void add_behind_actors(Scenario& sc) {
  std::vector<ActorSpec> background;
  for (const ActorSpec& a : sc.actors) {
    if (a.behind_of) continue;
    for (size_t k = 0; k < a.script.size(); ++k) {
      if (!a.script[k].behind) continue;
      Op op = a.script[k];
      op.behind = false;
      op.when.reset();  // the issuer judged it: the background actor runs the op only if it was issued
      ActorSpec& b = background.emplace_back();
      b.name = behind_actor_name(a.name, k);
      b.script.push_back(std::move(op));
      b.behind_of = BehindOf{a.name, k};
    }
  }
  std::erase_if(sc.actors, [](const ActorSpec& a) { return a.behind_of.has_value(); });
  for (ActorSpec& b : background) sc.actors.push_back(std::move(b));
}

std::vector<const char*> expect_vocabulary(const ActorSpec& actor, const std::string& name) {
  std::vector<const char*> out;
  for (const Op& op : actor.script) {
    if (name != op_name(op.kind)) continue;
    for (const char* w : outcome_vocabulary(op))
      if (!contains(out, w)) out.push_back(w);
    // A background actor skips its op when its issuer did not issue it (its `when`, or a crash before it).
    if (actor.behind_of && !contains(out, "skipped")) out.push_back("skipped");
  }
  return out;
}

std::vector<const char*> occurrence_vocabulary(const ActorSpec& actor, size_t index) {
  std::vector<const char*> out = outcome_vocabulary(actor.script.at(index));
  if (actor.behind_of && !contains(out, "skipped")) out.push_back("skipped");
  return out;
}

void modifiers_to_json(const Op& op, Json& j) {
  if (op.when) j["when"] = {{"op", op.when->op}, {"outcome", op.when->outcome}};
  if (op.retry) j["retry"] = {{"on", op.retry->on}, {"max", op.retry->max}};
  if (op.behind) j["behind"] = true;
}

void reindex_conditions(Scenario& sc, size_t actor, size_t dropped) {
  ActorSpec& a = sc.actors[actor];
  for (Op& op : a.script) {
    if (!op.when) continue;
    if (op.when->op == dropped)
      op.when.reset();
    else if (op.when->op > dropped)
      --op.when->op;
  }
  // A `when` on an op that lost its own `when` may wait for a `skipped` it can no longer record.
  for (Op& op : a.script)
    if (op.when && !contains(outcome_vocabulary(a.script[op.when->op]), op.when->outcome)) op.when.reset();
  for (auto& [name, ops] : sc.expect.actors) {
    if (name != a.name) continue;
    for (auto& [op, outcomes] : ops) {
      const std::vector<const char*> vocabulary = expect_vocabulary(a, op);
      if (vocabulary.empty()) continue;  // no op of that name left: prune_expect drops the entry
      std::erase_if(outcomes, [&](const std::string& w) { return !contains(vocabulary, w); });
    }
    std::erase_if(ops, [](const auto& entry) { return entry.second.empty(); });
  }
}

}  // namespace allocsim::harness

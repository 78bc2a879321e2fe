// The op table's syntax rows, gathered from the concept files that define them (op_syntax.h) into OpKind order,
// and the lookups over them. A new concept file adds one line here; op_syntax() checks that every row sits at its
// OpKind's index.
#include "backend/scenario/op_syntax.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "backend/model/barriers.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {

namespace {

/// "op" and the properties of the row's schema, in order. The names are kept for the life of the process (the
/// rows hand out const char*). A schema that is not an object of the documented shape is a mistake in the table.
std::vector<const char*> keys_of_schema(const OpSyntax& row) {
  static std::set<std::string, std::less<>> names;  // std::set: a name's address never moves
  const nlohmann::ordered_json schema = op_schema(row);
  std::vector<const char*> keys = {"op"};
  if (const auto props = schema.find("properties"); props != schema.end())
    for (const auto& [key, _] : props->items()) {
      for (const char* reserved : {"op", "when", "retry"})
        if (key == reserved)
          throw std::logic_error(
              fmt::format("op {}: its schema names the key {}, which the table adds", row.name, key));
      keys.push_back(names.insert(key).first->c_str());
    }
  return keys;
}

}  // namespace

nlohmann::ordered_json op_schema(const OpSyntax& row) {
  nlohmann::ordered_json schema;
  try {
    schema = nlohmann::ordered_json::parse(row.schema);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::logic_error(fmt::format("op {}: its schema is not JSON: {}", row.name, e.what()));
  }
  if (!schema.is_object() || !schema.contains("description") ||
      (schema.contains("properties") && !schema["properties"].is_object()))
    throw std::logic_error(
        fmt::format("op {}: its schema is not an object with a description and properties", row.name));
  // The table writes these (scenario_schema.h): an op is always an object that takes no key it does not list.
  for (const char* written : {"type", "additionalProperties"})
    if (schema.contains(written))
      throw std::logic_error(fmt::format("op {}: its schema sets \"{}\", which the table writes", row.name, written));
  if (schema.contains("required"))
    for (const auto& key : schema["required"])
      if (!key.is_string() || !schema.contains("properties") || !schema["properties"].contains(key.get<std::string>()))
        throw std::logic_error(
            fmt::format("op {}: its schema requires {}, which is not among its properties", row.name, key.dump()));
  return schema;
}

const std::vector<OpSyntax>& op_syntax_rows() {
  static const std::vector<OpSyntax> k = [] {
    std::vector<OpSyntax> rows;
    for (std::vector<OpSyntax> part : {claim_op_syntax(), status_op_syntax(), recover_op_syntax(),
                                       environment_op_syntax(), fault_op_syntax(), foreign_op_syntax()})
      for (OpSyntax& row : part) rows.push_back(std::move(row));
    std::stable_sort(rows.begin(), rows.end(), [](const OpSyntax& a, const OpSyntax& b) { return a.kind < b.kind; });
    for (OpSyntax& row : rows) {
      if (row.calls.empty()) row.calls = {row.name};
      row.keys = keys_of_schema(row);
    }
    return rows;
  }();
  return k;
}

const OpSyntax& op_syntax(OpKind k) {
  const auto& ops = op_syntax_rows();
  const auto i = static_cast<std::size_t>(k);
  if (i >= ops.size() || ops[i].kind != k) throw std::logic_error("op table out of OpKind order");
  return ops[i];
}

const std::vector<const char*>& op_names() {
  static const std::vector<const char*> k = [] {
    std::vector<const char*> out;
    for (const OpSyntax& op : op_syntax_rows()) out.push_back(op.name);
    return out;
  }();
  return k;
}

const char* op_name(OpKind k) {
  const auto i = static_cast<std::size_t>(k);
  return i < op_syntax_rows().size() ? op_syntax_rows()[i].name : "unknown";
}

const std::vector<const char*>& op_outcomes(OpKind k) { return op_syntax(k).outcomes; }

sim::PointVocabulary point_vocabulary(const Scenario& s) {
  sim::PointVocabulary out;
  // Per actor: its Call points, then its op kinds, and its write-behinds' calls with the background actor that
  // makes each (for the explanations below). A write-behind's issuer makes no call for it (conditional_ops.h).
  std::vector<std::vector<const char*>> calls, ops;
  std::vector<std::vector<std::pair<const char*, std::string>>> behind;
  for (const ActorSpec& a : s.actors) {
    std::vector<const char*> points, kinds;
    std::vector<std::pair<const char*, std::string>> theirs;
    for (size_t k = 0; k < a.script.size(); ++k) {
      const Op& op = a.script[k];
      const OpSyntax& spec = op_syntax(op.kind);
      if (!support::contains(kinds, spec.name)) kinds.push_back(spec.name);
      std::string background;  // the actor the loader added for it (ActorSpec::behind_of)
      for (const ActorSpec& b : s.actors)
        if (op.behind && b.behind_of && b.behind_of->actor == a.name && b.behind_of->op == k) background = b.name;
      for (const char* call : spec.calls_of ? spec.calls_of(op) : spec.calls)
        if (!background.empty())
          theirs.emplace_back(call, background);
        else if (!support::contains(points, call))
          points.push_back(call);
    }
    calls.push_back(points);
    ops.push_back(std::move(kinds));
    behind.push_back(std::move(theirs));
    for (const backend::Named& b : backend::barrier_table()) points.push_back(b.name);
    points.push_back(sim::kLockWaitPoint);
    out.per_actor.push_back(std::move(points));
  }
  // A label that names an op, or a call other actors make, is no typo: say what the actor does instead of
  // suggesting the nearest point (`flowA:await`: an await op polls with observe calls).
  out.explain = [calls = std::move(calls), ops = std::move(ops),
                 behind = std::move(behind)](sim::ActorId actor, std::string_view point) -> std::string {
    for (const auto& [call, background] : behind[actor])
      if (point == call && !support::contains(calls[actor], call))
        return fmt::format("its {} is a write-behind's call, which {} makes (label {}:{})", call, background,
                           background, call);
    const std::string theirs =
        calls[actor].empty() ? "it makes no call" : "its calls: " + support::quote_all(calls[actor]);
    for (const OpSyntax& spec : op_syntax_rows()) {
      if (point != spec.name) continue;
      if (support::contains(ops[actor], spec.name))
        return fmt::format("its {} op resumes from {}, not from a point of its own name; {}", spec.name,
                           support::quote_all(spec.calls), theirs);
      return fmt::format("it has no {} op; {}", spec.name, theirs);
    }
    for (const OpSyntax& spec : op_syntax_rows())
      if (support::contains(spec.calls, point)) return fmt::format("it makes no {} call; {}", point, theirs);
    return "";
  };
  return out;
}

}  // namespace allocsim::harness

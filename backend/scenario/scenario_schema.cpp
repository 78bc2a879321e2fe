// The table-owned parts of the scenario schema (scenario_schema.h).
#include "backend/scenario/scenario_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/model/barriers.h"
#include "backend/model/mutants.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/op_syntax.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;

/// The outcomes an expectation may name for an op of this row: its own, and skipped (conditional_ops.h).
std::vector<std::string> expectable_outcomes(const OpSyntax& row) {
  std::vector<std::string> out(row.outcomes.begin(), row.outcomes.end());
  if (!support::contains(row.outcomes, std::string_view("skipped"))) out.emplace_back("skipped");
  return out;
}

/// /$defs/op_<name>: the row's schema with "op", the modifiers and "additionalProperties" added (the key order is
/// the one the file has always had: description, type, properties, required, additionalProperties, the rest).
Json op_definition(const OpSyntax& row) {
  const Json own = op_schema(row);
  Json def = Json::object();
  def["description"] = own.at("description");
  def["type"] = "object";
  Json props = Json::object();
  props["op"] = {{"const", row.name}, {"description", fmt::format("The op: {}.", row.name)}};
  if (own.contains("properties"))
    for (const auto& [key, value] : own.at("properties").items()) props[key] = value;
  for (const char* modifier : modifier_keys(row.kind))
    props[modifier] = {{"$ref", fmt::format("#/$defs/{}", modifier)}};
  def["properties"] = std::move(props);
  Json required = Json::array({"op"});
  if (own.contains("required"))
    for (const Json& key : own.at("required")) required.push_back(key);
  def["required"] = std::move(required);
  def["additionalProperties"] = false;
  for (const auto& [key, value] : own.items())
    if (key != "description" && key != "properties" && key != "required") def[key] = value;
  return def;
}

/// An expectation's list of outcomes drawn from `words`.
Json outcome_list(std::string description, const std::vector<std::string>& words) {
  return {{"description", std::move(description)},
          {"type", "array"},
          {"minItems", 1},
          {"uniqueItems", true},
          {"items", {{"enum", words}}}};
}

template <typename Table>
Json table_names(const Table& table) {
  Json out = Json::array();
  for (const auto& row : table) out.push_back(row.name);
  return out;
}

/// The op definitions sit just before /$defs/op; every other definition keeps its place.
Json defs_with_ops(const Json& defs) {
  Json out = Json::object();
  for (const auto& [key, value] : defs.items()) {
    if (key.rfind("op_", 0) == 0) continue;
    if (key == "op")
      for (const OpSyntax& row : op_syntax_rows()) out[fmt::format("op_{}", row.name)] = op_definition(row);
    out[key] = value;
  }
  return out;
}

}  // namespace

Json schema_with_tables(Json schema) {
  Json& defs = schema.at("$defs");
  defs = defs_with_ops(defs);

  Json& op = defs.at("op");
  Json names = Json::array();
  Json select = Json::array();
  for (const OpSyntax& row : op_syntax_rows()) {
    names.push_back(row.name);
    select.push_back({{"if", {{"properties", {{"op", {{"const", row.name}}}}}, {"required", {"op"}}}},
                      {"then", {{"$ref", fmt::format("#/$defs/op_{}", row.name)}}}});
  }
  op.at("properties").at("op")["enum"] = std::move(names);
  op["allOf"] = std::move(select);

  // expect.actors: per op name, then per script index (every op's own words, first appearance in table order, and
  // skipped).
  Json& per_actor = defs.at("expect").at("properties").at("actors").at("additionalProperties");
  Json by_name = Json::object();
  std::vector<std::string> every;
  for (const OpSyntax& row : op_syntax_rows()) {
    const std::vector<std::string> words = expectable_outcomes(row);
    const bool own_skipped = support::contains(row.outcomes, std::string_view("skipped"));
    by_name[row.name] = outcome_list(fmt::format("Outcomes every {} op of the actor may end in{}.", row.name,
                                                 own_skipped ? "" : " (skipped only when the op has a when)"),
                                     words);
    for (const char* w : row.outcomes)
      if (std::find(every.begin(), every.end(), w) == every.end()) every.emplace_back(w);
  }
  if (std::find(every.begin(), every.end(), "skipped") == every.end()) every.emplace_back("skipped");
  per_actor["properties"] = std::move(by_name);
  for (auto& [pattern, index] : per_actor.at("patternProperties").items()) index.at("items")["enum"] = every;

  defs.at("invariant_name")["enum"] = invariant_names();
  schema.at("properties").at("backend").at("properties").at("mutants").at("items")["enum"] =
      table_names(backend::mutant_table());
  const Json barriers = table_names(backend::barrier_table());
  defs.at("expect").at("properties").at("reach").at("items")["enum"] = barriers;
  defs.at("faults").at("properties").at("barriers").at("propertyNames")["enum"] = barriers;
  return schema;
}

}  // namespace allocsim::harness

// The table-owned parts of the scenario schema (scenario_schema.h).
#include "backend/scenario/scenario_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
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

/// The object at `path` below `root`, each step an object; otherwise std::invalid_argument naming the first step
/// that is missing or not an object, as a JSON pointer (the skeleton lacks a part the tables fill).
Json& part(Json& root, std::initializer_list<const char*> path) {
  Json* at = &root;
  std::string ptr;
  for (const char* key : path) {
    ptr += "/";
    ptr += key;
    if (!at->is_object() || !at->contains(key) || !(*at)[key].is_object())
      throw std::invalid_argument(fmt::format("{}: missing or not an object (the tables write into it)", ptr));
    at = &(*at)[key];
  }
  return *at;
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
  if (!schema.is_object()) throw std::invalid_argument("(document root): not an object");
  Json& defs = part(schema, {"$defs"});
  part(schema, {"$defs", "op", "properties", "op"});  // checked before anything is written
  defs = defs_with_ops(defs);

  Json names = Json::array();
  Json select = Json::array();
  for (const OpSyntax& row : op_syntax_rows()) {
    names.push_back(row.name);
    select.push_back({{"if", {{"properties", {{"op", {{"const", row.name}}}}}, {"required", {"op"}}}},
                      {"then", {{"$ref", fmt::format("#/$defs/op_{}", row.name)}}}});
  }
  part(schema, {"$defs", "op", "properties", "op"})["enum"] = std::move(names);
  part(schema, {"$defs", "op"})["allOf"] = std::move(select);

  // expect.actors: per op name, then per script index (every op's own words, first appearance in table order, and
  // skipped).
  Json& per_actor = part(schema, {"$defs", "expect", "properties", "actors", "additionalProperties"});
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
  Json& indices =
      part(schema, {"$defs", "expect", "properties", "actors", "additionalProperties", "patternProperties"});
  if (indices.empty())
    throw std::invalid_argument(
        "/$defs/expect/properties/actors/additionalProperties/patternProperties: empty (the script index's pattern "
        "is written by hand)");
  for (auto& [pattern, index] : indices.items())
    part(schema, {"$defs", "expect", "properties", "actors", "additionalProperties", "patternProperties",
                  pattern.c_str(), "items"})["enum"] = every;

  part(schema, {"$defs", "invariant_name"})["enum"] = invariant_names();
  part(schema, {"properties", "backend", "properties", "mutants", "items"})["enum"] =
      table_names(backend::mutant_table());
  const Json barriers = table_names(backend::barrier_table());
  part(schema, {"$defs", "expect", "properties", "reach", "items"})["enum"] = barriers;
  part(schema, {"$defs", "faults", "properties", "barriers", "propertyNames"})["enum"] = barriers;
  return schema;
}

SchemaFreshness schema_freshness(const std::string& text) {
  const Json read = Json::parse(text);
  const Json tables = schema_with_tables(read);
  SchemaFreshness out{tables.dump(2) + "\n"};
  if (out.written != text)
    out.lag = tables == read ? "holds what the tables write, but not in the written layout (two-space JSON)"
                             : "lags the op, invariant, mutant or barrier table";
  return out;
}

}  // namespace allocsim::harness

// docs/DESIGN.md's tables from the rows (design_tables.h).
#include "backend/system/design_tables.h"

#include <fmt/format.h>

#include <stdexcept>
#include <string_view>

#include "backend/invariants/invariant_table.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/op_syntax.h"

namespace allocsim::harness {

namespace {

/// A key of an op as §4's table names it: `key`, with what its schema says of its values (the words it takes, its
/// range, its default).
std::string key_text(const nlohmann::ordered_json& schema, const std::string& key, bool required) {
  std::vector<std::string> notes;
  if (!required && !schema.contains("default")) notes.emplace_back("optional");
  // The words it takes: its own, or (a list) its items'.
  const nlohmann::ordered_json* words = schema.contains("enum") ? &schema["enum"]
                                        : schema.contains("items") && schema["items"].contains("enum")
                                            ? &schema["items"]["enum"]
                                            : nullptr;
  if (words) {
    std::string text;
    for (const auto& w : *words) text += fmt::format("{}`{}`", text.empty() ? "" : " \\| ", w.get<std::string>());
    notes.push_back(text);
  }
  if (schema.contains("minimum") && schema.contains("maximum"))
    notes.push_back(fmt::format("{}-{}", schema["minimum"].dump(), schema["maximum"].dump()));
  else if (schema.contains("exclusiveMinimum") && schema.contains("maximum"))
    notes.push_back(fmt::format("over {}, up to {}", schema["exclusiveMinimum"].dump(), schema["maximum"].dump()));
  if (schema.contains("default")) {
    const auto& d = schema["default"];
    notes.push_back(fmt::format("default {}", d.is_string()  ? fmt::format("`{}`", d.get<std::string>())
                                              : d.is_array() ? fmt::format("`{}`", d.dump())
                                                             : d.dump()));
  }
  std::string out = fmt::format("`{}`", key);
  for (size_t i = 0; i < notes.size(); ++i) out += fmt::format("{}{}", i == 0 ? " (" : ", ", notes[i]);
  return notes.empty() ? out : out + ")";
}

std::string ticked(const std::vector<const char*>& words) {
  std::string out;
  for (const char* w : words) out += fmt::format("{}`{}`", out.empty() ? "" : ", ", w);
  return out;
}

/// Replaces the lines between `start` and the next kTableEnd with `table`; sets `lag` when they differed.
void write_table(std::string& text, const char* start, const std::string& table, const char* what, const char*& lag) {
  const std::string open = std::string(start) + "\n";
  const size_t at = text.find(open);
  if (at == std::string::npos) throw std::invalid_argument(fmt::format("no line \"{}\"", start));
  if (text.find(open, at + 1) != std::string::npos) throw std::invalid_argument(fmt::format("\"{}\" twice", start));
  const size_t from = at + open.size();
  const size_t end = text.find(std::string(kTableEnd) + "\n", from);
  if (end == std::string::npos)
    throw std::invalid_argument(fmt::format("\"{}\" without a line \"{}\" after it", start, kTableEnd));
  if (std::string_view(text).substr(from, end - from) == table) return;
  text.replace(from, end - from, table);
  if (lag == nullptr) lag = what;
}

}  // namespace

std::string op_table_markdown() {
  std::string out = "| op | keys | what it does | outcomes (`expect.actors`) |\n|---|---|---|---|\n";
  for (const OpSyntax& row : op_syntax_rows()) {
    const nlohmann::ordered_json schema = op_schema(row);
    std::string keys;
    const auto required = [&](const std::string& key) {
      if (!schema.contains("required")) return false;
      for (const auto& r : schema["required"])
        if (r == key) return true;
      return false;
    };
    if (schema.contains("properties"))
      for (const auto& [key, property] : schema["properties"].items())
        keys += (keys.empty() ? "" : ", ") + key_text(property, key, required(key));
    // The modifiers the op takes besides its own keys, as `allocsim list ops` shows them (conditional_ops.h).
    const std::string modifiers = ticked(modifier_keys(row.kind));
    if (!modifiers.empty()) keys += (keys.empty() ? "" : "; ") + modifiers;
    out += fmt::format("| `{}` | {} | {} | {} |\n", row.name, keys, schema["description"].get<std::string>(),
                       ticked(row.outcomes));
  }
  return out;
}

std::string invariant_table_markdown() {
  std::string out = "| name | what the code checks |\n|---|---|\n";
  for (const InvariantSpec& row : invariant_table()) out += fmt::format("| `{}` | {} |\n", row.name, row.doc);
  return out;
}

DesignFreshness design_freshness(const std::string& text) {
  DesignFreshness f{text, nullptr};
  write_table(f.written, kOpTableStart, op_table_markdown(), "lags the op table", f.lag);
  write_table(f.written, kInvariantTableStart, invariant_table_markdown(), "lags the invariant table", f.lag);
  return f;
}

}  // namespace allocsim::harness

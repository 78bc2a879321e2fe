// The tables of docs/DESIGN.md that the rows own: §4's op table (op_syntax.h: each row's name, its keys with what
// its JSON Schema says of their values, its schema's description, and its outcomes) and §5's invariant table
// (invariant_table.h: each row's name and `doc`, in check order). Each sits in
// the file between a start marker, an HTML comment naming its table, and kTableEnd; the text around them is the
// docs' own. `tools/dev.sh schema` writes them (allocsim-update-schema DESIGN.md), and
// tests/scenarios/design_tables.cpp fails while the file lags the rows.
//
// Contract: design_freshness(text) returns the text with every marked table written from the rows and, in `lag`,
// which table differed (nullptr: none); it throws std::invalid_argument naming a marker that is missing, repeated or
// without its end.
#pragma once

#include <string>

namespace allocsim::harness {

/// The markers: a table starts on the line after its start marker and ends on the line before kTableEnd.
inline constexpr const char* kOpTableStart = "<!-- the op table, written from its rows by tools/dev.sh schema -->";
inline constexpr const char* kInvariantTableStart =
    "<!-- the invariant table, written from its rows by tools/dev.sh schema -->";
inline constexpr const char* kTableEnd = "<!-- end of the written table -->";

/// §4's table: one line per op, in table order (Markdown).
std::string op_table_markdown();
/// §5's table: one line per invariant and engine-level finding, in check order (Markdown).
std::string invariant_table_markdown();

struct DesignFreshness {
  std::string written;
  const char* lag = nullptr;  // "lags the op table" | "lags the invariant table"; nullptr: up to date
};
DesignFreshness design_freshness(const std::string& text);

}  // namespace allocsim::harness

// The scenario files' JSON Schema (scenarios/schema/scenario.v1.schema.json, docs/DESIGN.md §4 "The schema"): the
// parts of it that the tables own, written from them, so that a new op, invariant, mutant or barrier is one row and
// the schema cannot miss it. The rest of the file (top-level keys, nodes, expect, faults, ...) is written by hand.
//
// Owned by the tables, and replaced whole:
//   - /$defs/op_<name>: one per row of the op table (op_syntax.h), in table order, placed just before /$defs/op:
//     the row's schema, with "op" (a const), the modifiers the op takes (conditional_ops.h; a $ref each) and
//     "additionalProperties": false added; any other /$defs/op_* is dropped;
//   - /$defs/op: the "op" enum and one if/then per op, selecting its definition;
//   - expect.actors: each op's outcome vocabulary (plus skipped, which any op with a `when` may record), and a
//     script index's vocabulary, every op's words;
//   - /$defs/invariant_name (invariant_names.h), backend.mutants (the mutant table) and the barrier enums of
//     expect.reach and faults.barriers (the barrier table).
// Everything else is kept as it is, key order included, so that writing a current file again changes nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace allocsim::harness {

/// `schema` with every part above rewritten from the tables. Throws std::invalid_argument, naming the JSON pointer,
/// when a part's enclosing object is missing from `schema` or is not an object (the hand-written skeleton must hold
/// each of them, and the script index's pattern).
nlohmann::ordered_json schema_with_tables(nlohmann::ordered_json schema);

/// A schema file's text against the tables: what the tables write into it (schema_with_tables, dumped with two
/// spaces and a final newline, the file's layout), and why `text` differs from that, or nullptr when it does not.
/// What tools/dev.sh schema's tool and the suite's check both say.
struct SchemaFreshness {
  std::string written;
  const char* lag = nullptr;  // "lags the op, invariant, mutant or barrier table", or the layout alone differs
};
/// Throws as schema_with_tables does, and nlohmann::json::parse_error for text that is not JSON.
SchemaFreshness schema_freshness(const std::string& text);

}  // namespace allocsim::harness

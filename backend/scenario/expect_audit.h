// Two expectations: outcome pins per occurrence and expect.audit (docs/DESIGN.md §4, `expect`).
//
// Shapes (both optional; a v1 file without them means what it meant):
// - expect.actors.<actor> keeps its op-name keys ({"reserve": [...]} pins every reserve of the actor) and may
//   also have keys that are a script index written in decimal ({"2": ["claimed"]}): the outcomes allowed for
//   that one op, /actors/<i>/script/2. Op names never start with a digit, so the two kinds of key cannot clash.
//   An index past the script, or an outcome outside that op's vocabulary, is a load error at its pointer.
// - expect.audit: {"<kind>": "sometimes" | "never" | "always"}: the audit kind must occur in at least one
//   execution, in none, or in every one. A key "<kind>=<detail>" counts only entries with that exact detail
//   ("release-owner=rollback": a reserve's rollback). Kinds are the backend's (audit_kinds()). Instead of a
//   word, bounds on how many entries every execution records: {"at_least": L}, {"at_most": M}, both, or
//   {"exactly": N} (0 to 1,000,000; L <= M): "exactly one stamp-owner", "at most one rollback".
// Here: reading them and their vocabularies. Judging them is backend/system/judge.h (ExpectTally).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {

/// The audit kinds the memory backend records, in the order its code first writes them.
const std::vector<const char*>& audit_kinds();
/// The rule words of expect.audit, in AuditRule::Word order (Counted has none: it is an object).
const std::vector<const char*>& audit_rule_words();
/// A rule as the file writes it: its word, or its bounds object ({"exactly": N} when both bounds are N).
support::Json audit_rule_json(const AuditRule& rule);

/// Reads the pins of index key `key` of expect.actors.<actor> at `ptr` (the loader has seen the key is all
/// digits). Fails for an index past the script or an outcome outside that op's vocabulary.
std::vector<std::string> read_occurrence_pin(const ScenarioReader& r, const support::Json& v, const std::string& ptr,
                                             const ActorSpec& actor, size_t index);
/// Whether expect.actors.<actor> key `key` is an index key (starts with a digit) rather than an op name.
bool is_occurrence_key(const std::string& key);
/// The index an index key names; fails at `ptr` unless it is decimal without leading zeros.
size_t occurrence_index(const ScenarioReader& r, const std::string& key, const std::string& ptr);
/// Reads expect.audit at `ptr`.
OrderedMap<std::string, AuditRule> read_expect_audit(const ScenarioReader& r, const support::Json& v,
                                                     const std::string& ptr);

}  // namespace allocsim::harness

// The expectations of issue 13 item 6: outcome pins per occurrence and expect.audit (docs/DESIGN.md §4).
//
// Shapes (both optional; a v1 file without them means what it meant):
// - expect.actors.<actor> keeps its op-name keys ({"reserve": [...]} pins every reserve of the actor) and may
//   also have keys that are a script index written in decimal ({"2": ["claimed"]}): the outcomes allowed for
//   that one op, /actors/<i>/script/2. Op names never start with a digit, so the two kinds of key cannot clash.
//   An index past the script, or an outcome outside that op's vocabulary, is a load error at its pointer.
// - expect.audit: {"<kind>": "sometimes" | "never" | "always"}: the audit kind must occur in at least one
//   execution, in none, or in every one. A key "<kind>=<detail>" counts only entries with that exact detail
//   ("release-owner=rollback": a reserve's rollback). Kinds are the backend's (audit_kinds()).
// Judging: an execution that ends at a violation counts with what it recorded up to there (as outcomes do);
// an occurrence never reached in an execution records nothing for it. Unmet lines follow the existing ones in
// judge_report's fixed order: occurrence pins (actor, then index), then audit rules in file order.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {

class WorldState;  // world.h

/// The audit kinds the memory backend records, in the order its code first writes them.
const std::vector<const char*>& audit_kinds();
/// The rule words of expect.audit, in AuditRule order.
const std::vector<const char*>& audit_rule_words();

/// What the new expectations need from a run, summed over executions (mergeable, like the outcome counts).
struct ExpectTally {
  // actor -> script index -> outcome -> executions (only pinned occurrences)
  std::map<std::string, std::map<size_t, std::map<std::string, uint64_t>>> occurrences;
  std::map<std::string, uint64_t> audit;  // expect.audit key -> executions in which it occurred
  bool empty() const { return occurrences.empty() && audit.empty(); }
  void add(const ExpectTally& other);
};

/// Adds one finished execution of `sc` in `world` to `t`. A no-op unless `sc` pins occurrences or audits.
void tally_execution(const Scenario& sc, const WorldState& world, ExpectTally& t);

/// Appends one line per unmet occurrence pin or audit rule of `sc` to `unmet`, judged on `t` over
/// `executions` executions.
void judge_expect_tally(const Scenario& sc, const ExpectTally& t, uint64_t executions, std::vector<std::string>& unmet);

/// Adds `t` to the campaign's counters (sim/campaign/system.h), named "occurrence:<actor>:<index>:<outcome>"
/// and "audit:<expect.audit key>", so sweeps merge and store them without knowing what they mean.
void add_to_counters(const ExpectTally& t, std::map<std::string, uint64_t>& counters);
/// The inverse of add_to_counters; names it did not write are ignored.
ExpectTally tally_from_counters(const std::map<std::string, uint64_t>& counters);

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

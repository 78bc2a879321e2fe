// The swarm's summary read back, which merge and resume share (swarm_report.h), for swarm_report.cpp,
// swarm_merge.cpp and swarm_checkpoint.cpp only. Every reader fails with support::InputError naming the file and
// the JSON pointer.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/campaign/swarm.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign::swarm_summary_io {

inline constexpr const char* kSummarySchema = "allocsim/swarm/v1";

/// summary.json's "config" (defined in swarm_report.cpp, which writes it).
nlohmann::ordered_json config_json(const SwarmOptions& o);

/// The string `key` of `obj` at `ptr`.
std::string str(const support::JsonReader& rd, const nlohmann::json& obj, const std::string& ptr, const char* key);

/// The report a summary document (or a checkpoint's "summary") holds, without the findings' file text.
SwarmReport report_from(const support::JsonReader& rd, const nlohmann::json& j, const std::string& ptr,
                        bool mutant_run);

/// The counts of `r`, read at `ptr` under options `o` (its shard), checked as swarm_report.h says ("What is read
/// back is checked").
void check_counts(const support::JsonReader& rd, const std::string& ptr, const SwarmReport& r, const SwarmOptions& o);

/// A document read strictly, with its schema and tool version checked.
nlohmann::json read_doc(const std::string& path, const char* schema, const std::string& tool_version);

/// The whole file at `path`.
std::string slurp(const std::string& path);

/// `config` as SwarmOptions; fails (naming `ptr`) unless it is what config_json() writes.
SwarmOptions options_from(const support::JsonReader& rd, const nlohmann::json& c, const std::string& ptr);

}  // namespace allocsim::campaign::swarm_summary_io

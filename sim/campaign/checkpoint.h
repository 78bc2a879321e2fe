// Campaign checkpoints: the one way `sweep`, `swarm` and `selfcheck` save a run's progress (docs/DESIGN.md §7,
// "Checkpoints"). Each campaign supplies its payload; the envelope and the write are this file's.
//
// The file: one JSON object, {"schema": "allocsim/<campaign>-checkpoint/v1", "tool_version": the project version,
// then the campaign's own members}:
//   allocsim/sweep-checkpoint/v1      config, shard, scenarios (sim/campaign/sweep_checkpoint.h)
//   allocsim/swarm-checkpoint/v1      summary, files (backend/swarm/swarm_report.h)
//   allocsim/selfcheck-checkpoint/v1  report, files (backend/swarm/selfcheck.h)
// One envelope, three schema names: the name says whose payload follows, so one campaign's checkpoint handed to
// another is refused at /schema before anything runs; and every file an earlier version wrote already carries one
// of these names, so it resumes as it is (one schema for all would have to accept the old names too).
//
// Writing: new_checkpoint() gives the envelope, the campaign adds its members, write_checkpoint() writes the
// whole document atomically (sim/support/atomic_write.h: a temporary file, fsync, rename), so a kill at any moment
// leaves the previous checkpoint or the new one. The layout is the kind's, as each campaign has always written
// it: the sweep's on one line and in key order (rewritten after every work unit, it holds every trace
// fingerprint), the others indented by one space in the order written.
// Errors: writing throws support::OutputError naming the path.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace allocsim::campaign {

/// What a campaign's checkpoints are called and how they are laid out.
struct CheckpointKind {
  const char* schema;    // "allocsim/<campaign>-checkpoint/v1"
  const char* campaign;  // "sweep", "swarm", "selfcheck"
  int indent;            // nlohmann's dump indent; -1: one line
};

/// A checkpoint holding only the envelope; the campaign adds its payload's members after it. `Json` is
/// nlohmann::json (members in key order) or nlohmann::ordered_json (in the order added).
template <class Json>
Json new_checkpoint(const CheckpointKind& kind, const std::string& tool_version) {
  Json doc = Json::object();
  doc["schema"] = kind.schema;
  doc["tool_version"] = tool_version;
  return doc;
}

/// Writes `doc` (made by new_checkpoint) to `path` atomically, in the kind's layout, with a final newline.
void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::json& doc);
void write_checkpoint(const std::string& path, const CheckpointKind& kind, const nlohmann::ordered_json& doc);

}  // namespace allocsim::campaign

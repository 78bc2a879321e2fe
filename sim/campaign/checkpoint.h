// Campaign checkpoints: the one way `sweep`, `swarm` and `selfcheck` save a run's progress and read it back
// (docs/DESIGN.md §7, "Checkpoints"). Each campaign supplies and reads its payload; the envelope, the write and
// the read are this file's.
//
// The file: one JSON object, {"schema": "allocsim/<campaign>-checkpoint/v1", "tool_version": the project version,
// then the campaign's own members}:
//   allocsim/sweep-checkpoint/v1      config, shard, scenarios (sim/campaign/sweep_checkpoint.h)
//   allocsim/swarm-checkpoint/v1      summary, files (swarm_report.h)
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
// Reading: read_checkpoint() reads the file strictly (support::read_text, check_text, parse_strict: at most
// 1 GiB, 64 levels, no duplicate key), checks the envelope and returns the document; the campaign reads its
// members with a support::JsonReader on the same path, so every error has the same shape.
// Errors: reading throws support::InputError naming the file and the JSON pointer ("FILE: POINTER: MESSAGE";
// "FILE: not a valid checkpoint: ..." for bytes that are not strict JSON; "/schema: expected X, got Y" for
// another campaign's checkpoint or another document; "/tool_version: written by allocsim A, this is allocsim
// B": a checkpoint of another version may describe other work, so it is never resumed); the campaigns exit 2
// with it, and nothing has run or been written (a sweep's saved strategy position, which only the strategy can
// read, is read when its unit starts: that error names the checkpoint and the pointer too). Writing throws
// support::OutputError "--checkpoint: PATH: ..." (every campaign's checkpoint is named by --checkpoint, or by
// --resume, which keeps writing to it).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/support/json_reader.h"

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

/// Why a fresh `campaign` ("sweep", "swarm", "selfcheck") must not write its checkpoint to `path`: the file exists
/// and is not a checkpoint of that campaign (another campaign's, whose progress the write would destroy, or any
/// other file). "" when it may be written: absent, empty, or the campaign's own checkpoint, which a fresh run starts over
/// (--resume continues it). Reads at most kCheckpointRules' size; never throws.
std::string checkpoint_overwrite_refusal(const std::string& path, const std::string& campaign);

/// The checkpoint at `path`, checked as a checkpoint of `kind` written by allocsim `tool_version` (see above);
/// in file order, for the campaign's support::JsonReader. Throws support::InputError.
support::Json read_checkpoint(const std::string& path, const CheckpointKind& kind, const std::string& tool_version);

}  // namespace allocsim::campaign

// Sweep checkpoints (schema `allocsim/sweep-checkpoint/v1`): what a killed sweep needs to finish with the
// same report as an uninterrupted one (sweep.h). The envelope and the atomic write are every campaign's
// (checkpoint.h); this is the sweep's payload.
//
// The file: {"schema", "tool_version", "config": config_json(), "shard": "K/N",
//            "scenarios": [{"path", "digest", "plan", "work_units",
//                           "done": {"<unit>": unit result},
//                           "partial": {"<unit>": {"state": ..., "result": unit result so far}}}]}
// Each scenario is identified by its digest (the file's bytes) and plan digest (its work units); "state"
// is the strategy position (DfsStrategy/DporStrategy::save) or {"next": execution index}.
// Every write is atomic (checkpoint.h): a kill at any moment leaves either the previous or the new checkpoint,
// never a mix.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/sweep.h"

namespace allocsim::campaign {

/// A unit paused inside: where its strategy was, what it had found so far, and where the state stands in the
/// checkpoint ("FILE: POINTER", for an error restoring it: the strategy reads it only when the unit runs).
struct PausedUnit {
  nlohmann::json state;
  UnitResult result;
  std::string at;
};

/// What a checkpoint holds, keyed by (plan index, unit index) of the current sweep.
struct ResumeState {
  std::map<std::pair<size_t, uint64_t>, UnitResult> done;
  std::map<std::pair<size_t, uint64_t>, PausedUnit> partial;
};

/// Reads a checkpoint for this sweep (read_checkpoint, checkpoint.h). Throws SweepInputError (exit 2)
/// "--resume: FILE: POINTER: MESSAGE" when it is unreadable or malformed, is another campaign's, was written by
/// another tool version, config or shard, or names a scenario whose file changed (digest) or that is not part
/// of this sweep.
ResumeState load_checkpoint(const std::string& path, const SweepConfig& config, const std::vector<ScenarioPlan>& plans);

/// The checkpoint being written by a running sweep. Thread-safe: workers call it after each unit and
/// periodically within one; each call rewrites the whole file atomically.
class CheckpointWriter {
 public:
  /// Starts from `resumed` and writes the file once, so a path that cannot be written fails before any
  /// work (SweepInputError).
  CheckpointWriter(std::string path, const SweepConfig& config, const std::vector<ScenarioPlan>& plans,
                   const ResumeState& resumed);
  void unit_done(size_t plan, uint64_t unit, const UnitResult& result);
  void unit_partial(size_t plan, uint64_t unit, nlohmann::json state, const UnitResult& result);

 private:
  void write_locked();
  std::string path_;
  std::mutex mu_;
  nlohmann::json doc_;
  std::vector<size_t> entry_of_plan_;  // plan index -> index in doc_["scenarios"] (SIZE_MAX: bad file)
};

}  // namespace allocsim::campaign

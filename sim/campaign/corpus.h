// The regression corpus (docs/DESIGN.md §7, "Where traces live"): every violation `run` finds is kept as its shrunk
// trace file (allocsim/trace/v1, which embeds the scenario) in a folder, and `run` and `sweep` replay a scenario's
// entries before they explore, so a fix that regresses fails on execution 0 instead of after a lucky search
// (Hypothesis's example database, proptest's regressions file).
//
// Where: `.allocsim/corpus/` beside the scenario file (like `.hypothesis/`), or a folder the caller names.
// Shapes: an entry is one file named
//     STEM[+MUTANT...][~max-steps-N].DIGEST12.INVARIANT.HASH8.trace.json
// STEM is the scenario file's stem, +MUTANT the extra mutants the run added (--mutant, sorted), ~max-steps-N
// the step bound a steps-bounded violation was found under when the run gave one other than the scenario's
// own (--max-steps N), DIGEST12 the
// first 12 hex digits of the scenario file's digest, INVARIANT the violated invariant, HASH8 eight hex digits
// of XXH3-64 over the invariant and the shrunk schedule. So two violations of one scenario are two entries
// and the same violation found twice is one (the second store writes nothing). The folder listed in name
// order is the corpus: there is no index.
// Identity: within one folder a scenario is known by its file name (the stem) and the extra mutants; the
// scenario's content by its digest (Subject::digest()). Generic: no backend type appears here.
// Step bounds: a steps-bounded violation exists only under the bound it was found under, where any other
// violation reaches its step under every larger bound too. So a run replays a steps-bounded entry only under
// its bound: a run under its scenario's own bound the entries without ~max-steps, a run under --max-steps N
// (not the scenario's own) those with ~max-steps-N; other entries every run of the scenario and mutants.
// Replay: an entry whose digest is the scenario's current one is replayed strictly (replay_trace: the
// embedded scenario, step for step). An entry whose scenario changed (or whose strict replay diverges: the
// program changed) is re-run against the scenario as it is now: from its `order` block when it has one (the
// caller's OrderReplay, else campaign::run_order_block), else leniently along its schedule (actors by name);
// it is *re-found* when that violates the same invariant, else *stale*. Nothing is ever deleted here except
// by prune_entry().
// Errors: CorpusError (a folder that cannot be listed or created, an entry path that is no entry); an entry
// that cannot be read is reported with status `unreadable`, not thrown. Writes are atomic
// (sim/support/atomic_write.h; OutputError).
// Determinism: entries are visited in file-name order; no clock, no addresses.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/run.h"
#include "sim/campaign/system.h"
#include "sim/campaign/trace_file.h"

namespace allocsim::campaign {

/// A corpus folder or entry path that cannot be used; what() names the path.
struct CorpusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Where a run's corpus is: `flag` (--corpus DIR) when not empty, else `.allocsim/corpus` in the folder of
/// `scenario_path`.
std::string corpus_dir(const std::string& scenario_path, const std::string& flag);

/// The marker file of an installed scenario folder (cmake/install.cmake puts one in
/// share/allocsim/scenarios/ and its mutants/).
inline constexpr const char* kInstalledMarker = ".allocsim-installed";
/// Whether `scenario_path` lies in an installed scenario folder (its folder holds kInstalledMarker). `run`
/// keeps no default corpus beside such a scenario: the folder may be read-only or a system folder (README
/// "Installing"); --corpus DIR still names one.
bool installed_example(const std::string& scenario_path);

/// The file-name key of a scenario and its extra mutants: "STEM" or "STEM+m1+m2" (mutants sorted, each once),
/// then "~max-steps-N" when `step_bound` is given (see the header).
std::string corpus_key(const std::string& scenario_path, std::vector<std::string> extra_mutants,
                       std::optional<uint64_t> step_bound = std::nullopt);

/// The step bound of a run of `subject` under --max-steps `flag` when it is not the scenario's own (see the
/// header), else nullopt.
std::optional<uint64_t> foreign_bound(const Subject& subject, std::optional<uint64_t> flag);

/// The key a run stores violation `invariant` under: corpus_key with `bound` (foreign_bound) for a
/// steps-bounded violation, without it for any other.
std::string entry_key(const std::string& scenario_path, const std::vector<std::string>& extra_mutants,
                      const std::string& invariant, std::optional<uint64_t> bound);

/// A key's parts after the scenario's stem: the extra mutants and the step bound. nullopt when `key` is not
/// `stem`'s.
struct KeyParts {
  std::vector<std::string> mutants;
  std::optional<uint64_t> step_bound;
};
std::optional<KeyParts> parse_key(const std::string& key, const std::string& stem);

/// The parts of an entry's file name (see above); nullopt for a name that is not an entry's.
struct EntryName {
  std::string key, digest12, invariant, hash8;
};
std::optional<EntryName> parse_entry_name(const std::string& file_name);

/// The file name of trace `t` (a violating trace) under `key`. REQUIRES: t.violation.
std::string entry_file_name(const Trace& t, const std::string& key);

/// Stores `t` in `dir` (created when missing) as entry_file_name(t, key), atomically, unless that entry
/// exists. Returns the entry's path and whether it was written. Throws CorpusError / OutputError naming the
/// path. REQUIRES: t.violation.
struct Stored {
  std::string path;
  bool written = false;
};
Stored store_entry(const std::string& dir, const Trace& t, const std::string& key);

/// The entries of `dir` (paths, in file-name order); empty when `dir` does not exist. Files whose names
/// are not entries' are ignored. Throws CorpusError when `dir` exists but is not a readable folder.
std::vector<std::string> list_entries(const std::string& dir);

/// The file names (sorted) of the `.json` files in `dir` that are not named as entries: no run replays them (a
/// trace copied in under its own name). Empty when `dir` does not exist; throws CorpusError as list_entries.
std::vector<std::string> list_non_entries(const std::string& dir);

enum class EntryStatus {
  violates,    // replayed strictly (same scenario digest): still violates
  refound,     // the scenario changed: re-run from its order or schedule, the same invariant broke again
  passes,      // replayed strictly: no violation any more (the bug is fixed; the entry stays a regression test)
  stale,       // the scenario changed and the entry no longer violates it
  unreadable,  // not a trace file this version reads (the message says why)
};
const char* status_name(EntryStatus s);

/// One replayed entry.
struct EntryReplay {
  std::string path;  // the entry file
  EntryStatus status = EntryStatus::unreadable;
  std::string stored_invariant;  // what the entry recorded ("" when unreadable)
  std::string invariant;         // what the replay violated ("" when nothing)
  std::string via;               // "schedule" (strict), "order", "lenient schedule"
  uint64_t steps = 0;            // of the replayed execution
  std::string fingerprint;       // of the replayed execution, 16 hex digits ("" when not run)
  std::string note;              // why unreadable, or where the strict replay diverged
  /// The command that replays what this replay found (violating entries only): the entry file itself when
  /// it replayed strictly; for a re-found entry, the current scenario file along the re-found execution's
  /// schedule (the entry file still holds the old scenario and its old execution).
  std::string replay;
  /// A violating replay's world, tallied (Subject::tally) so that judging counts it like an explored execution.
  Outcomes outcomes;
  std::map<std::string, uint64_t> barrier_hits;
  Counters counters;
  bool violating() const { return status == EntryStatus::violates || status == EntryStatus::refound; }
};

/// Runs `current` (compiled with `extra_mutants`) as the constraints `order` (an allocsim `order` block)
/// force, or returns nullopt when it cannot. None given: campaign::run_order_block (order_min.h).
using OrderReplay = std::function<std::optional<sim::ExecutionResult>(
    const Subject& current, const std::vector<std::string>& extra_mutants, const nlohmann::json& order)>;

/// Replays one entry against `current` (the scenario as it is now; see the header for how).
EntryReplay replay_entry(const System& system, const std::string& path, const Subject& current,
                         const std::vector<std::string>& extra_mutants, const OrderReplay& order = {});

/// Replays, in file-name order, the entries of `dir` a run of `current` with `extra_mutants` under --max-steps
/// `explicit_max_steps` replays (see the header): those whose key is corpus_key(current.path(), extra_mutants),
/// with the run's foreign bound for steps-bounded ones.
std::vector<EntryReplay> replay_corpus(const System& system, const std::string& dir, const Subject& current,
                                       const std::vector<std::string>& extra_mutants,
                                       std::optional<uint64_t> explicit_max_steps, const OrderReplay& order = {});

/// "3 corpus traces replayed: 1 still violates" (+ ", 1 re-found", ", 1 stale", ", 1 unreadable" when there are
/// any; "still violates" counts the strict replays only).
std::string replay_summary(const std::vector<EntryReplay>& replays);

/// One line per entry: "execution 0: NAME: still violates INV (N steps, fingerprint F)" and the like.
std::string replay_lines(const std::vector<EntryReplay>& replays, const std::string& indent);

/// Counts the still-violating entries into `report` as executions of the run (executions, violating
/// executions, violations by invariant, outcomes, counters, barriers reached in `subject`'s order), so that
/// judging it treats them as a fresh violation would be.
void count_corpus(const std::vector<EntryReplay>& replays, const Subject& subject, RunReport& report);

/// `run`'s verdict with its corpus: when an entry still violates, `report` is judged again (Subject::judge) as
/// count_corpus would make it, and only its verdict (met, unmet) is taken: the counts stay those explored. Else
/// nothing changes.
void judge_with_corpus(const std::vector<EntryReplay>& replays, const Subject& subject, RunReport& report);

/// The replays as a report's "corpus" value: {"replayed", "still_violating", "entries": [{"path", "status",
/// "invariant", "via", "steps", "fingerprint"}]}.
nlohmann::json corpus_json(const std::vector<EntryReplay>& replays);

}  // namespace allocsim::campaign

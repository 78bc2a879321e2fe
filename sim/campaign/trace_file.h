// Trace files, schema `allocsim/trace/v1` (docs/DESIGN.md §7): one violating (or replayed) execution with
// everything needed to replay it anywhere: the tool version, the scenario (path, digest, and the scenario
// itself embedded, since a shrunk trace runs a reduced scenario that exists in no file), strategy and
// seed, the schedule, the fault choices, the violation, and every step keyed by label (actor name, point
// name, occurrence of that (actor, point) pair), not by raw index, so a trace stays readable when code
// moves.
//
// Document shape (keys in this order; unknown keys are ignored so v1 readers accept additions):
//   { "schema": "allocsim/trace/v1", "tool": {"name", "version"},
//     "scenario": {"path", "digest", "embedded": <allocsim/scenario/v1 document>},
//     "strategy", "seed" (decimal string or null), "execution_seed" (decimal string or null),
//     "max_steps", "schedule_string" ("v1:...", written from "choices"; must agree with them),
//     "choices": [actor name | {"draw": N}, ...],
//     "draws": [N, ...]  (the fault choices, in order; must agree with "choices"),
//     "preemptions", "fingerprint" (16 hex digits, ExecutionResult::fingerprint()),
//     "violation": null | {"invariant", "message", "actor", "step", "state", "state_before"},
//     "steps": [{"actor", "point", "occurrence", "kind", "detail", "preemption"}, ...],
//     "shrink": null | {"raw_steps", "raw_actors", "raw_ops", "raw_preemptions", "runs",
//                       "budget_exhausted", "out_of_time", "preemptions_minimal"},
//     "order": [[X, Y], ...]   (optional: the explanation's order block, labels ACTOR:POINT#N),
//     "explanation": {"kind", "summary", "pairs": [{"first", "second", "objects", "reversed"}], "slice",
//                     "order"}   (optional, explain.h) }
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/campaign/explain.h"
#include "sim/campaign/system.h"
#include "sim/engine.h"
#include "sim/support/atomic_write.h"
#include "sim/support/json_reader.h"

namespace allocsim::campaign {

inline constexpr const char* kTraceSchema = "allocsim/trace/v1";

/// A trace file that cannot be read: `file`, `pointer` (RFC 6901; "" = the whole document) and
/// `message`. what() is `FILE: POINTER: MESSAGE` as every loader writes it (support::located: the root is
/// "(document root)"), or `FILE: MESSAGE` for an error about the file itself (support::InputError::about_file).
class TraceError : public std::runtime_error {
 public:
  TraceError(std::string file, std::string pointer, std::string message);
  /// The reader's error as it is (its place, or none for an error about the file).
  explicit TraceError(const support::InputError& e);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }

 private:
  std::string file_, pointer_;
};

/// One step, keyed by label: `actor` resumed from point `point` for the `occurrence`-th time (1-based).
struct TraceStep {
  std::string actor;
  std::string point;
  uint32_t occurrence = 1;
  std::string kind;  // "call" | "barrier" | "lock-wait"
  std::string detail;
  bool preemption = false;
  bool operator==(const TraceStep&) const = default;
};

/// One choice of the schedule, by actor name (so a renamed or removed actor is detected, not misread).
struct TraceChoice {
  bool draw = false;
  std::string actor;   // when !draw
  uint64_t value = 0;  // when draw
  bool operator==(const TraceChoice&) const = default;
};

struct TraceViolation {
  std::string invariant, message;
  std::string actor;         // the actor whose step broke it; "" at quiescence
  uint64_t step = 0;         // index of the last step taken (the one after which it broke)
  std::string state;         // the fields that broke it, after the last step
  std::string state_before;  // the same fields before the last step (state_view.h)
};

/// How a trace was shrunk (absent for a raw trace).
struct ShrinkInfo {
  uint64_t raw_steps = 0, raw_actors = 0, raw_ops = 0, raw_preemptions = 0;
  uint64_t runs = 0;                 // candidate executions run
  bool budget_exhausted = false;     // stopped before the passes finished
  bool out_of_time = false;          // ... because of --shrink-budget (seconds), not the run count
  bool preemptions_minimal = false;  // the preemption-bounded search proved the minimum
};

struct Trace {
  std::string tool_version;
  std::string scenario_path, scenario_digest;  // of the original scenario file
  SubjectPtr scenario;                         // the embedded scenario (reduced, for a shrunk trace)
  std::string strategy = "random";
  std::optional<uint64_t> seed, execution_seed;
  uint64_t max_steps = 10000;
  std::vector<TraceChoice> choices;
  uint32_t preemptions = 0;
  std::string fingerprint;  // 16 lowercase hex digits
  std::optional<TraceViolation> violation;
  std::vector<TraceStep> steps;
  std::optional<ShrinkInfo> shrink;
  std::optional<Explanation> explanation;  // explain.h; written with the top-level "order" it carries
};

/// The steps of `r` keyed by label (occurrences counted per (actor, point) pair, from 1).
std::vector<TraceStep> label_steps(const sim::ExecutionResult& r, const std::vector<std::string>& actor_names);

/// The schedule of `r` by actor name.
std::vector<TraceChoice> name_choices(const std::vector<sim::Choice>& schedule, const std::vector<std::string>& names);

/// A trace of execution `r` of `scenario` (steps, choices, preemptions, fingerprint, violation with the
/// given `state_before`); the caller fills the tool, path, digest, strategy, seeds and shrink info.
Trace make_trace(SubjectPtr scenario, const sim::ExecutionResult& r, const std::string& state_before);

/// The trace as pretty-printed JSON text (ends in '\n'). Deterministic: same trace, same bytes.
std::string trace_to_text(const Trace& t);

/// Parses a trace document read from `path`. Throws TraceError naming `path` and the JSON pointer of the
/// problem: invalid JSON (the pointer of the value being read when the text broke off), a wrong schema,
/// a missing or mistyped field, or an embedded scenario the scenario loader rejects (its pointer is
/// prefixed with /scenario/embedded). `system` reads the embedded scenario.
Trace parse_trace(const System& system, const std::string& text, const std::string& path);

/// Reads and parses `path` (at most 64 MiB). Throws TraceError.
Trace load_trace(const System& system, const std::string& path);

/// Whether `path` should be read as a trace rather than a scenario: its name ends in ".trace.json" or
/// its "schema" is a trace schema. Never throws (an unreadable file is left to the loader).
bool looks_like_trace(const std::string& path);

/// Output files are written all or nothing by the one implementation in sim/support/atomic_write.h
/// (temporary file in the same directory, fsync, rename): traces, --fingerprints, --record, sweep
/// checkpoints and reports.
using support::OutputError;
using support::write_file_atomically;

}  // namespace allocsim::campaign

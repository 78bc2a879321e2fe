// Explanations of a violating execution (docs/DESIGN.md §7, "Explanations"): which steps
// the violation depends on, which pair of steps of different actors races, and what happens when that pair
// runs the other way round. Generic: it knows the system only through campaign::Subject (objects are named
// by Subject::name_object), so no GPU word appears here.
//
// Algorithm (on a minimal trace, a few dozen steps):
//   1. re-run the schedule leniently with footprints recorded (EngineOptions::record_footprints);
//   2. happens-before: program order plus dependent accesses (two steps of different actors touching one
//      data object, at least one writing it), closed transitively. Objects the subject calls Sync (locks)
//      are left out; its View object counts only into the violating step (ObjectName, system.h);
//   3. causal slice: the steps happens-before the violating step (at quiescence, before the last step of
//      every actor: the final state is everyone's), ascending, the sinks included; then, until nothing
//      changes, the lock hand-overs: a step left out that lets go of a lock its actor took in a step of the
//      slice joins it (with what happens-before it) when a later step of another actor in the slice touches
//      that lock: without it the lock would stay held (a crash that unwinds out of a locked section, say,
//      whose release a later operation's acquire needed). Locks stay out of step 2: every operation takes the
//      backend lock, and ordering them all would put every earlier operation in every slice;
//   4. candidates: dependent pairs (first, second) of different actors, both in the slice. The reversed
//      schedule runs second's actor from just after `first` up to and including `second` before `first`,
//      the rest in its recorded order (fault draws travel with their steps; lenient replay keeps what it
//      can). A reversal counts when it was carried out (both labels ran, second's first) and the pair
//      *matters* when the reversed run ends without the violation or with another invariant;
//   5. when some pairs that matter are *faithful* (in the reversed run every actor still passed every point
//      it passed before), only those are kept; then a pair is dropped when another one of the same two
//      actors, nested inside it (its first no earlier, its second no later), matters too;
//   6. kind "race" when a pair is kept, else "sequential" (every reversal still breaks the invariant, or no
//      two actors' steps depend on each other). `order` pins each kept pair as [first-label, second-label];
//   7. the pin: `order` is checked to reproduce the violation under every strategy (order_min.h,
//      pin_violation); when the racing pairs do not, the trace's full pin minimised replaces them, and when
//      not even that does, `needs` says what else decides the violation (fault draws).
// Labels are `ACTOR:POINT#N` (trace_file.h's occurrence counting). Step indices are 0-based into the trace.
//
// Errors: none thrown for a scenario that compiles; std::nullopt when the schedule no longer violates
// anything or the execution is longer than kMaxExplainSteps (quadratic work).
// Determinism: a pure function of (subject, schedule, max_steps): same input, same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/system.h"
#include "sim/engine.h"

namespace allocsim::campaign {

inline constexpr uint64_t kMaxExplainSteps = 2000;
inline constexpr uint64_t kMaxExplainRuns = 5000;  // reversed candidate runs per explanation

/// One racing pair that matters: `first` ran before `second` (0-based step indices), they conflict on
/// `objects` (named by the subject), and `reversed` says what running them the other way round did.
struct RacingPair {
  uint64_t first = 0, second = 0;
  std::vector<std::string> objects;
  std::string reversed;
  bool operator==(const RacingPair&) const = default;
};

/// The trace file's "explanation" key (trace_file.h): kind "race" (some pair of steps, reversed, ends the
/// violation) | "sequential" (no reversal does) | "start" (the start state breaks the invariant before any step:
/// no slice, no pairs, no order) | "world" (the violating step is a write of the world, Subject::world_write:
/// the world broke the state by itself; no pairs are looked for).
struct Explanation {
  std::string kind;
  std::string summary;
  std::vector<RacingPair> pairs;
  std::vector<uint64_t> slice;                             // ascending step indices
  std::vector<std::pair<std::string, std::string>> order;  // [X, Y]: X before Y, labels
  /// Whether `order`, added to the scenario's own `order`, reproduces the violation in the first execution
  /// under every strategy (order_min.h, pin_violation): "pairs" (the racing pairs do), "minimised" (they do not; `order` is
  /// the trace's full pin minimised instead), "none" (nothing does: `order` holds the racing pairs and `needs`
  /// says what else decides the violation); empty in a trace written before the check, or of kind "start".
  std::string pin;
  std::string needs;
  bool operator==(const Explanation&) const = default;
};

/// Explains the execution of `subject` (compiled with no extra mutants) along `schedule`.
std::optional<Explanation> explain(const Subject& subject, std::span<const sim::Choice> schedule, uint64_t max_steps);

/// `ACTOR:POINT#N` of every step of `r` (the order-constraint label).
std::vector<std::string> step_labels(const sim::ExecutionResult& r, const std::vector<std::string>& actor_names);

/// The explanation as the trace file stores it (keys kind, summary, pairs, slice, order) and back.
/// explanation_from_json throws std::invalid_argument naming the JSON pointer (relative to the value) of
/// the first malformed field.
nlohmann::ordered_json explanation_to_json(const Explanation& e);
Explanation explanation_from_json(const nlohmann::ordered_json& j);

}  // namespace allocsim::campaign

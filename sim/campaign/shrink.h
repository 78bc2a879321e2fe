// The shrinker's driver: reduces a (scenario, schedule) pair over the campaign interface (system.h: the
// subject's reductions); the schedule search is sim/shrink.h. No GPU word appears here.
//
// Given a scenario and a schedule whose execution violates invariant I, it looks for a smaller pair that
// still violates I the same way: "violates I" below means I fails, and at a write of the world
// (Subject::world_write) exactly when it did at the start, so a protocol's flaw never shrinks into a fact of
// the world (a foreign relabel that breaks capacity by itself). Re-running every candidate deterministically (sim::LenientReplayStrategy: a recorded
// choice that is no longer possible falls back to "the running actor, else the lowest id"). Passes:
//   1. scenario: drop a whole actor (with its choices), drop one op from a script, set one fault draw to 0
//      ("no fault"), each kept only if I still fails; repeated until none applies;
//   2. schedule: replace a preemption by letting the running actor continue, delete one choice, or cut
//      the schedule after a prefix (defaults after it); kept only if I still fails with fewer
//      preemptions, or as many and fewer steps;
//   3. preemptions: sim::search_min_preemptions over the reduced scenario, bound 0, 1, 2, ...; the first
//      schedule found that violates I replaces the current one.
//   4. once a round of the three changes nothing: make the scenario plainer (Subject::simplified: an owner
//      identity, a write-behind), each kept only if I still fails; a kept one starts the rounds again. Last,
//      because a plainer op can change the schedule's shape so that ops which would have gone must stay.
// They repeat until nothing changes, so the result is 1-minimal (removing any single actor, op or non-zero
// draw, or any one simplification, makes I pass under the result's schedule) and its preemption count is the
// minimum over all schedules of the reduced scenario (when `preemptions_minimal`).
//
// Budget: `max_runs` candidate executions (deterministic: the same input and max_runs always give the
// same result) and `max_seconds` of wall clock (only to stop early; reported as out_of_time).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sim/campaign/system.h"
#include "sim/engine.h"

namespace allocsim::campaign {

struct ShrinkOptions {
  uint64_t max_runs = 200'000;  // candidate executions, all passes together
  double max_seconds = 60;      // wall clock; <= 0: none
  /// Per execution, as in the run being shrunk; nullopt: the scenario's max_steps, else its system's default.
  std::optional<uint64_t> max_steps;
};

struct ShrinkResult {
  SubjectPtr scenario;               // reduced (its expectations pruned to what remains), as its JSON reads back
  sim::ExecutionResult result;       // its execution along `result.schedule`
  uint64_t runs = 0;                 // candidate executions made
  bool budget_exhausted = false;     // stopped before reaching a fixpoint
  bool out_of_time = false;          // ... because of max_seconds
  bool preemptions_minimal = false;  // the last preemption search completed
};

/// Shrinks (`scenario`, `schedule`). The scenario must carry every mutant (fold --mutant in first); `system`
/// reads the reduced scenario back from its JSON. Throws std::invalid_argument when the schedule's execution
/// violates nothing.
ShrinkResult shrink(const System& system, const SubjectPtr& scenario, std::span<const sim::Choice> schedule,
                    const ShrinkOptions& options);

/// `schedule` without actor `index`'s choices, later actor ids shifted down by one.
std::vector<sim::Choice> schedule_without_actor(std::span<const sim::Choice> schedule, size_t index);

/// `schedule` with actor `index`'s choices given to actor `into` (an index before the removal), later actor ids
/// shifted down by one.
std::vector<sim::Choice> schedule_merging_actor(std::span<const sim::Choice> schedule, size_t index, size_t into);

}  // namespace allocsim::campaign

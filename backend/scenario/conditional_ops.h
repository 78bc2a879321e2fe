// Conditional ops (docs/DESIGN.md §4, "Op modifiers"): two modifiers an op may carry besides its own keys, read once
// for every op by the loader (op_entry) and applied once by the script runner (backend/ops/script_runner.cpp: run,
// run_op), never by an op's row.
//
// - `when` (any op): {"op": I, "outcome": W}. The op runs only if op I of the same script (0-based, as in the
//   JSON pointer /actors/A/script/I; I must be earlier than the op itself) ended in outcome W. Otherwise it
//   records `skipped` and makes no call (no scheduling point), as the other ops that know they have nothing
//   to do (README, "Skipped ops"); so `skipped` joins the op's expect.actors vocabulary. W must be a word
//   op I can end in (its vocabulary, plus `skipped` when op I has a `when` itself). When op I never ended
//   (its actor crashed in it) the op never runs either, like every later op of a crashed actor.
// - `retry` (reserve with `requests` only): {"on": "conflict" | ["conflict", "infeasible"], "max": M}. When an
//   attempt ends in one of `on`, the reserve runs again from scratch: inventory, plan, reserve, each call a
//   scheduling point whose detail carries "retry=N", with a fresh operation id (<actor>:op<k>); at most M
//   more attempts (1..kMaxRetries), so no loop is unbounded. The op records the last attempt's outcome. A
//   dropped response, a raise or a crash ends the op as without retry: `unknown` is never retried, since a
//   claim may exist that the actor cannot see, and a second reserve would then be a second claim (F2).
//   A retry needs `requests`, since a plan made elsewhere (`plan_from`, or an earlier plan op) cannot be
//   re-planned by this op.
//
// - `behind` (a write that needs nothing of its actor's own state: bind_workload, unbind_workload and the foreign
//   writes): true makes it a write-behind. The actor only issues the op, records `issued` and goes on, with no call
//   (no scheduling point); the loader adds a background actor, `<actor>.behind<I>` (I the op's index), after the
//   file's actors, whose one op is this one without `behind` and `when`, and which waits (a lock wait) until the
//   actor has passed op I. It then runs the op as any actor would, at any later point the schedule picks, after
//   the actor ended too: a background worker whose write outlives the step, or the actor, that issued it. When
//   the actor skipped op I (its `when`) or never reached it (it crashed first), the background op records
//   `skipped` and makes no call.
//
// Contract: parse_op_modifiers() leaves the op unchanged when it has neither key and fails with the JSON
// pointer of the bad value otherwise (ScenarioError through the reader); everything it accepts can run.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"

namespace allocsim::harness {

class ScenarioReader;

inline constexpr int kMaxRetries = 8;

/// The keys op kind `k` takes besides its own: "when", and "retry" for reserve.
const std::vector<const char*>& modifier_keys(OpKind k);

/// Reads `when` and `retry` of the op at `ptr` (`earlier`: the ops before it in its script, in order).
void parse_op_modifiers(const ScenarioReader& r, const nlohmann::ordered_json& v, const std::string& ptr,
                        const std::vector<Op>& earlier, Op& op);

/// The outcomes `op` can record: its kind's vocabulary, plus `skipped` when it has a `when`.
std::vector<const char*> outcome_vocabulary(const Op& op);

/// The expect.actors vocabulary of op name `name` in `actor`'s script: the union over its ops of that name, plus
/// `skipped` for a write-behind's background actor.
std::vector<const char*> expect_vocabulary(const ActorSpec& actor, const std::string& name);

/// What a per-occurrence pin of op `index` of `actor` may name (expect_audit.h): the op's outcome_vocabulary, plus
/// `skipped` for a write-behind's background actor, as expect_vocabulary.
std::vector<const char*> occurrence_vocabulary(const ActorSpec& actor, size_t index);

/// Whether an op of kind `k` may carry `behind`.
bool can_write_behind(OpKind k);

/// The name of the background actor of op `op` of `issuer`.
std::string behind_actor_name(const std::string& issuer, size_t op);

/// Makes `sc`'s background actors those its `behind` ops call for (after every other actor, in issuer and op
/// order), dropping any it had: the loader calls it once the actors are read, the shrinker after each change.
void add_behind_actors(Scenario& sc);

/// Adds `when`, `retry` and `behind` to `j` when the op has them (scenario_to_json).
void modifiers_to_json(const Op& op, nlohmann::ordered_json& j);

/// The shrinker dropped op `dropped` of actor `actor`: later `when` indices move down by one; a `when` on the
/// dropped op is removed (the op then runs unconditionally); expect pins of `skipped` that no op can record
/// any more are removed with it.
void reindex_conditions(Scenario& sc, size_t actor, size_t dropped);

}  // namespace allocsim::harness

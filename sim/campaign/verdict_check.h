// The verdict self-check of one explored scenario (docs/DESIGN.md §7, "Verdict self-check"): every tool that
// reads, rewrites or re-runs an execution must say what the execution itself said. Generic: the checks go
// through the library entry points the commands use (run.h, trace_replay.h, trace_file.h, explain.h, shrink.h)
// over the campaign interface (system.h), so no GPU word appears here.
//
// Per execution (check_execution, check_order_blocked: every execution an exploration ran, however it ended):
//   replay-schedule  the strict replay of its schedule has the same verdict (verdict_of: fingerprint and end);
//   replay-seed      a `random` execution re-run from its execution seed has the same verdict;
//   order-blocked    one that ended order-blocked is judged as an execution's end is (verdict_ending.cpp): when
//                    every continuation of it without the order (at most ending_budget, plain DFS) ends with one
//                    violation judged at an execution's end (no-deadlock, a quiescence invariant), ending
//                    order-blocked hid that violation.
// Per violation (check_violation; the violating execution `v` of `scenario`):
//   1 replay-seed (random only), replay-schedule (its schedule string, parsed back) and replay-trace (its
//     trace file's text, parsed back and replayed step by step) reproduce it: no divergence, same verdict;
//   2 shrink: the shrunk scenario, written as JSON, loads; the minimal schedule replays strictly against it;
//     it violates the same invariant; the minimal trace file replays against its embedded scenario;
//   3 explain-invariant: `trace explain` on the minimal trace file gives an explanation, of an execution that
//     violates the trace's invariant, whose summary names it; explain-slice: its causal slice holds the
//     violating step(s) and, closed under happens-before (program order and data conflicts of the recorded
//     footprints: explain.h's rule), every step they depend on; explain-slice-replay: the slice's steps alone,
//     run in their order, break the same invariant (verdict_slice.cpp: the left-out quiet steps stay, for the
//     locks they hand over; quiet_steps below). A minimal trace met again (VerdictOptions::minimal_seen) skips 3, 4;
//   4 order-pin: the explanation's `order` block, appended to the minimal scenario's own, gives the violation
//     in the first execution under each of VerdictOptions::order_strategies; order-pin-file: the same with
//     the block appended to the explored scenario (where a user pastes it; not when the block is empty, as
//     for a sequential explanation, since nothing is printed to paste). An order cannot pin a fault draw:
//     skipped when the minimal schedule draws a fault, and a first execution that drew one and did not
//     violate the invariant is not judged;
//   5 check-modes: ModeProbes of the violating and the minimal execution, which the caller re-runs under the
//     other invariant-check mode (the mode is the system's; campaign code cannot switch it).
// Each disagreement is a Contradiction: its kind (kContradictionKinds), one sentence, a replay line, and the
// files that line needs (texts, written by the caller under VerdictOptions::out).
//
// Determinism: a pure function of (scenario, execution, options): every budget is a count, never seconds.
// Errors: none thrown for a scenario that compiles; every failure of a checked tool is a Contradiction.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/campaign/config.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/system.h"
#include "sim/engine.h"

namespace allocsim::campaign {

/// The kinds of contradiction, in the order reports list them.
inline constexpr const char* kContradictionKinds[] = {"replay-seed",   "replay-schedule",
                                                      "replay-trace",  "order-blocked",
                                                      "shrink",        "explain-invariant",
                                                      "explain-slice", "explain-slice-replay",
                                                      "order-pin",     "order-pin-file",
                                                      "check-modes"};

/// One disagreement between tools about one execution.
struct Contradiction {
  std::string kind;    // one of kContradictionKinds
  std::string detail;  // what disagreed with what, one sentence
  std::string replay;  // a command that shows it (paths under VerdictOptions::out)
  /// The files `replay` needs: (name relative to VerdictOptions::out, text). Same name, same text.
  std::vector<std::pair<std::string, std::string>> files;
};

/// Test-only: rewrites an artefact's text before it is checked, so that a test can prove a check fails on
/// broken input. Artefacts: "execution-verdict" (check_execution's expected verdict_of text),
/// "execution-seed" (decimal), "schedule" (v1 string), "trace" and "minimal-trace" (trace file text),
/// "minimal-scenario" (JSON), "explanation" (explanation_to_json text), "order" (the block's JSON),
/// "mode-verdict" (a ModeProbe's expected verdict_of text; selfcheck.h: also an exploration's first verdict).
using Tamper = std::function<void(std::string_view artefact, std::string& text)>;

struct VerdictOptions {
  uint64_t shrink_runs = 2000;      // candidate runs per shrink
  uint64_t spin_shrink_runs = 100;  // ... of a steps-bounded violation (each run costs max_steps steps)
  /// Check 4's strategies, by their names in the strategy table; "dfs" runs with reduction none (dpor is its own
  /// entry).
  std::vector<std::string> order_strategies = {"random", "pct", "dfs", "dpor"};
  uint64_t order_seed = 0;      // the seeded strategies' run seed in check 4
  uint64_t ending_budget = 64;  // continuations explored per order-blocked execution
  std::string prefix;           // this violation's file names start with it ("s12-pct")
  std::string out;              // where the caller writes the files; replay lines name them there
  std::string tool_version;     // written into trace files
  Tamper tamper;                // empty outside tests
  /// When given: the minimal traces (scenario and schedule) already explained and pinned, e.g. by the other
  /// strategies' violations of one scenario; a minimal trace met again skips checks 3 and 4 (counted in
  /// VerdictChecks::skipped), and a new one is added.
  std::set<std::string>* minimal_seen = nullptr;
};

/// What an exploration found: the violating execution `result` of `scenario` (mutants folded in), run
/// under `config` (strategy, seed; check 1 replays a `random` one from `execution_seed`).
struct FoundViolation {
  SubjectPtr scenario;
  ExploreConfig config;
  uint64_t execution_seed = 0;
  sim::ExecutionResult result;
};

/// An execution to run again under the other invariant-check mode (check 5): the caller switches the mode
/// and calls probe(); a difference becomes `if_differs` with the detail filled in.
struct ModeProbe {
  SubjectPtr scenario;
  std::vector<sim::Choice> schedule;
  uint64_t max_steps = 0;
  std::string expected;  // verdict_of() under the mode it first ran in
  std::string what;      // "the violating execution", "the minimal execution"
  Contradiction if_differs;
};

struct VerdictChecks {
  std::vector<Contradiction> contradictions;  // in check order
  std::map<std::string, uint64_t> run;        // checks made, by kind
  std::map<std::string, uint64_t> skipped;    // checks not made, by "KIND: why"
  std::vector<ModeProbe> probes;
  /// The minimal trace's explanation order block (check 4's input), for callers that derive scenarios.
  std::vector<std::pair<std::string, std::string>> order;
};

/// How an execution ended, with its fingerprint: "<16 hex> quiescent", "... violation INVARIANT", "...
/// order-blocked #C", "... abandoned" or "... cut short". Two runs of one execution must give the same text.
std::string verdict_of(const sim::ExecutionResult& r);

/// Replay checks of one explored execution (see the file comment); std::nullopt when they agree.
/// `index` is its execution index in an exploration under `config` (the seed of a `random` one).
std::optional<Contradiction> check_execution(const Subject& scenario, const ExploreConfig& config, uint64_t index,
                                             const sim::ExecutionResult& r, const VerdictOptions& o,
                                             std::map<std::string, uint64_t>& run);

/// The order-blocked check of execution `r` (see the file comment; std::nullopt unless r ended order-blocked).
/// Counts it in `run`, or in `skipped` when its continuations are over the budget. verdict_ending.cpp.
std::optional<Contradiction> check_order_blocked(const Subject& scenario, const ExploreConfig& config, uint64_t index,
                                                 const sim::ExecutionResult& r, const VerdictOptions& o,
                                                 std::map<std::string, uint64_t>& run,
                                                 std::map<std::string, uint64_t>& skipped);

/// Checks 1-5 of one violation (see the file comment).
VerdictChecks check_violation(const System& system, const FoundViolation& v, const VerdictOptions& o);

/// Re-runs the probe's schedule strictly under the current mode: "" when the verdict is the expected one,
/// else what it was instead.
std::string probe(const ModeProbe& p);

/// A world of a scenario with its `order` taken away (the engine then holds no actor back): the order-blocked
/// check continues an execution without it, and the slice run chooses its own schedule.
class WithoutOrder final : public sim::World {
 public:
  explicit WithoutOrder(std::unique_ptr<sim::World> inner) : inner_(std::move(inner)) {}
  size_t actor_count() const override { return inner_->actor_count(); }
  std::string_view actor_name(sim::ActorId id) const override { return inner_->actor_name(id); }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override { inner_->run_actor(id, ctx); }
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override {
    return inner_->check_step(step, actor);
  }
  std::optional<sim::Violation> check_quiescent() override { return inner_->check_quiescent(); }
  const sim::OrderSpec* order() const override { return nullptr; }

 private:
  std::unique_ptr<sim::World> inner_;
};

// -- verdict_slice.cpp ----------------------------------------------------------------------------------

/// The explain checks (3 above) of `e`, the explanation of the execution of `scenario` along `schedule`, which
/// violated `invariant`: every one that fails, as (kind, sentence); empty when all pass.
/// For each step of `r` (footprints recorded; `roles`: every object's role), whether the slice run may run it
/// where the slice leaves it out: it writes no Data or View object, it does not end holding a lock its actor
/// did not hold before it (sim::Access::held), and when its actor's next step is a lock wait's retry, that
/// retry is quiet too (without the holder the wait vanishes, and the try does what the retry did).
std::vector<bool> quiet_steps(const sim::ExecutionResult& r, const std::map<uint64_t, ObjectName::Role>& roles);

std::vector<std::pair<std::string, std::string>> check_explanation(const Subject& scenario,
                                                                   std::span<const sim::Choice> schedule,
                                                                   uint64_t max_steps, const std::string& invariant,
                                                                   const std::optional<Explanation>& e);

}  // namespace allocsim::campaign

// A strategy chooses; it never switches (that is the engine's job). One strategy per file under
// sim/strategies/, behind this interface (shuttle's Scheduler, loom's path.rs vs scheduler.rs).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/world.h"

namespace allocsim::sim {

/// A runnable actor and what it is about to do.
struct Candidate {
  ActorId actor;
  PointKind kind;
  std::string_view what;
};

struct ExecutionResult;
struct StepRecord;

/// What choose() returns to end the execution there, unfinished, when the strategy knows every continuation
/// is equivalent to an execution it has already explored (DPOR: every runnable actor is in the sleep set).
/// The engine unwinds the actors and marks the result ExecutionResult::abandoned; the explorer neither
/// counts nor observes it (sim/explorer.h).
inline constexpr ActorId kAbandon = kNoActor - 1;

class Strategy {
 public:
  virtual ~Strategy() = default;
  /// Starts an execution. `seed` is the execution seed (docs/DESIGN.md §3); systematic strategies ignore it.
  virtual void begin_execution(uint64_t seed) = 0;
  /// Picks who runs next. `runnable` is non-empty and in ascending actor order; `current` is the actor
  /// that ran the last step (kNoActor before the first). Returns one of runnable[i].actor, or kAbandon.
  virtual ActorId choose(std::span<const Candidate> runnable, ActorId current) = 0;
  /// A number in [0, bound) for a choice inside a step (faults). REQUIRES: bound > 0.
  virtual uint64_t draw(uint64_t bound) = 0;
  /// Called by the engine right after every step (except the steps an order-blocked execution runs out, which
  /// ask the strategy nothing: docs/DESIGN.md §2), before the world's invariant check, with the step's record
  /// (its footprint is filled only under EngineOptions::record_footprints). DPOR needs the footprint of the
  /// step just taken before its next choice (sleep sets); other strategies ignore it.
  virtual void step_done(const StepRecord& step) { (void)step; }
  /// Whether the strategy wants the canonical state before each choice (state caching). The engine then
  /// tracks the actors' local states and calls at_state() right before every choose() (not in an order's
  /// run-out, which makes no choice).
  virtual bool caches_states() const { return false; }
  /// The fingerprint of the canonical state at the coming choice (Engine: the world's part, the step count,
  /// and each actor's status, point and local state).
  virtual void at_state(uint64_t fingerprint) { (void)fingerprint; }
  /// Of the execution now beginning (after begin_execution), how many leading choices (actor choices and draws, in
  /// schedule order) are certainly those of the execution this strategy began before it, and which execution this
  /// is (counting from 1; 0: the strategy does not say). The engine reuses what it computed at those choices
  /// (sim/engine_symmetry.cpp).
  struct ReplayedPrefix {
    uint64_t strategy = 0;  // an id unique to the strategy object in this process (never its address)
    uint64_t execution = 0;
    uint64_t choices = 0;
  };
  virtual ReplayedPrefix replayed_prefix() const { return {}; }
  /// Whether the strategy takes states up to renaming interchangeable actors (sim/symmetry.h). The engine then
  /// calls at_state_renamed() instead of at_state() where the world has interchangeable actors.
  virtual bool uses_symmetry() const { return false; }
  /// The fingerprint of the coming choice's state up to symmetry, and the renaming that took this state to the
  /// representative that fingerprint digests: renaming[a] is the index actor `a` has there. Another state with
  /// the same fingerprint is this one with its actors renamed, and what a strategy stores about actors at a
  /// state (a sleep set) is stored under the representative's names.
  virtual void at_state_renamed(uint64_t fingerprint, std::span<const ActorId> renaming) {
    (void)renaming;
    at_state(fingerprint);
  }
  /// Ends the execution; returns whether the strategy wants another one (exhaustive strategies stop when
  /// their tree is done; sampling strategies always say yes and the explorer bounds them).
  virtual bool end_execution(const ExecutionResult& result) = 0;

  /// Exhaustive strategies: whether the whole tree has been explored. Sampling strategies never are.
  virtual bool exhausted() const { return false; }
  /// The position between executions, for checkpoints (exhaustive strategies: their search state; null for
  /// sampling strategies, whose position is the caller's execution index).
  virtual nlohmann::json save() const { return nullptr; }
  /// Whether a search restored from save() goes on exactly as this one would (the same executions after it). A
  /// sweep checkpoints a work unit's position in the middle only then; otherwise a resumed sweep runs the unit
  /// again from its start, so that `--resume` gives the same report byte for byte.
  virtual bool resumes_exactly() const { return true; }
  /// Restores a save() position into a strategy built with the same options. Throws std::invalid_argument
  /// on a malformed state (or, for a strategy with nothing to save, on any state but null).
  virtual void restore(const nlohmann::json& state) {
    if (!state.is_null()) throw std::invalid_argument("this strategy has no saved position to restore");
  }
};

}  // namespace allocsim::sim

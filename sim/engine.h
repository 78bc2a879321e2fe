// The engine: runs one execution of a World under a Strategy, one Boost.Context fiber per actor.
//
// Execution model (docs/DESIGN.md §2): each actor runs its prologue up to its first scheduling point; then,
// repeatedly, the strategy picks a runnable actor, the engine resumes it until its next scheduling point
// (one step), and the world checks its invariants. An execution ends at quiescence (no actor left), at the
// first violation, at a deadlock (nothing runnable, someone blocked: `no-deadlock`), or at the step limit
// (`steps-bounded`). An exception escaping an actor ends that actor and the execution (`actor-exception`);
// it never crosses a context switch, and Boost's forced_unwind is always rethrown. An ActorCrash
// (sim/world.h) ends only that actor, as crashed: it is recorded in ExecutionResult::crashes and the
// step's detail gains "crashed=<where>" (so traces show it); the execution goes on with the others.
//
// Order (sim/order.h, a world's `order()`): when the world has constraints, the engine counts every actor's
// resumptions per point and, before each choice, removes from the runnable set any actor whose next step is
// the Y of a constraint whose X has not been taken, so every strategy chooses only among eligible actors.
// When actors are runnable but none is eligible, the execution is *order-blocked*
// (ExecutionResult::order_blocked): no schedule of it can meet the order any more. It then *runs out* to its
// end without the order, in one canonical way that asks the strategy nothing: the lowest-id runnable actor
// steps (a function of the state, so equivalent prefixes run out alike); every draw takes 0 (no fault); no
// choice is recorded (the schedule ends at the block and replays the run-out too), and no step of it counts
// as a preemption. The run-out is judged like any execution
// (invariants after every step, quiescence, a deadlock, the step limit), so an order never hides a check
// (docs/DESIGN.md §2 "Order"). Both steps of a constraint record a write of OrderTracker::footprint_object
// (with record_footprints), so DPOR sees them as dependent; DPOR analyses an order-blocked execution as cut
// short at the block (sim/strategies/dpor.h). Without an order none of this runs.
//
// Abandoned: a strategy that chooses kAbandon (sim/strategy.h) ends the execution before that step; the actors
// are unwound as after a violation, and the result says ExecutionResult::abandoned.
//
// Preemption: a choice that switches away from the actor that just ran while it is still runnable.
//
// Switching: between two steps, the engine decides on the stack of the actor that has just stopped (at a point,
// blocked, or finished): it checks that step, asks the strategy for the next one and switches straight to
// that actor, or returns into the same actor when it is picked again. Only the prologue and the end of an
// execution pass through the context that called run()/execute(). Whatever deciding throws (a strategy's
// error, a failed assertion) is rethrown by run()/execute() once every fiber has been unwound; it never
// reaches an actor's own handlers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/strategy.h"
#include "sim/world.h"

namespace allocsim::sim {

/// One object access of a step (its footprint, for DPOR): `object` is a world-chosen 64-bit id.
struct Access {
  uint64_t object;
  bool write;
  /// For a SimMutex's object only: the step's actor holds the lock when the step ends (SimMutex reports it
  /// through ActorContext::touch_lock); false for every other object. Explanations need it to find the step
  /// that let go of a lock a later step took (sim/campaign/explain.h, 3); dependence ignores it.
  bool held = false;
  bool operator==(const Access&) const = default;
};

/// One step: `actor` resumed from the point (kind, what, detail) it was waiting at.
struct StepRecord {
  ActorId actor;
  PointKind kind;
  std::string_view what;  // static storage (see ActorContext::point)
  std::string detail;
  bool preemption;
  /// Filled only with EngineOptions::record_footprints; canonical (sorted by object, one Access per object,
  /// a write wins), as sim/trace_equivalence.h's Footprint.
  std::vector<Access> footprint;
  /// For a step of kind LockWait (the retry of an actor that blocked): the footprint id of the SimMutex it
  /// waited for; 0 otherwise. DPOR needs it to tell a reversible race from one whose second step the first
  /// enabled (a release and the waiter's retry).
  uint64_t waited_lock = 0;
};

/// One choice of a schedule: which actor ran (Actor) or a number drawn inside a step (Draw).
struct Choice {
  enum Kind : uint8_t { Actor, Draw } kind;
  uint64_t value;
  bool operator==(const Choice&) const = default;
};

/// An actor that ended by ActorCrash (sim/world.h): it died during step `step` (0-based index into
/// ExecutionResult::steps) at `where`. A crash is an outcome of the execution, not a finding.
struct Crash {
  ActorId actor;
  uint64_t step;
  std::string where;
  bool operator==(const Crash&) const = default;
};

struct ExecutionResult {
  std::vector<StepRecord> steps;
  std::vector<Crash> crashes;  // in the order they happened
  std::vector<Choice> schedule;
  std::optional<Violation> violation;
  std::optional<ActorId> violation_actor;  // the actor whose step broke it, if any
  /// Cut short (a violation, steps-bounded or order-blocked, not quiescent): the actors that had not finished,
  /// ascending, whether runnable or blocked. Each had more steps that the execution never ran; DPOR treats
  /// those as unseen steps (sim/strategies/dpor.h). Empty for an execution that ran to its end.
  std::vector<ActorId> unfinished;
  /// The strategy ended it by choosing kAbandon (sim/strategy.h): a redundant prefix, not an execution.
  bool abandoned = false;
  uint32_t preemptions = 0;
  bool quiescent = false;  // ended with every actor finished (crashed actors count as finished)
  /// Became order-blocked (see above): the first unmet constraint (index into the world's order) holding back
  /// the lowest-id runnable actor, a sentence saying why its X did not happen, the index of the first step
  /// taken after the block (steps before it are the order's; from it on, the run-out's), and the actors that
  /// had not finished then, ascending. The run-out records no choice: `schedule` ends at the block.
  struct OrderBlock {
    size_t constraint = 0;
    std::string message;
    uint64_t step = 0;
    std::vector<ActorId> unfinished;
  };
  std::optional<OrderBlock> order_blocked;
  /// The world has an order and every choice of this execution had one option (one eligible actor, no draw
  /// over more than one value): the order leaves this one schedule, so no other execution can differ.
  bool single_schedule = false;

  /// XXH3-64 over every step's (actor, kind, what, detail) and the violation's invariant and message:
  /// equal fingerprints mean the same execution, byte for byte (docs/DESIGN.md §3).
  uint64_t fingerprint() const;
};

struct EngineOptions {
  uint64_t max_steps = 10000;  // `steps-bounded` fires when an execution needs more
  /// Per actor fiber. It holds the actor's own frames and, while that actor is the one deciding (see
  /// Switching), the strategy's choice and the world's checks on top of its deepest point.
  size_t stack_bytes = 256 * 1024;
  bool record_footprints = false;  // keep every step's reads and writes (DPOR needs them)
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Runs one execution of `world` (freshly built) under `strategy`, whose begin_execution() the caller
  /// has already called. The world outlives the call; every fiber is finished or unwound on return.
  ExecutionResult run(World& world, Strategy& strategy);

  /// The same execution as run(), recorded into storage the engine keeps: the result is valid until the next
  /// execute() or run() on this engine (copy what must outlive it). After a few executions of a world, the
  /// engine's own part of an execution allocates nothing (step records, their details and footprints, the
  /// schedule are reused); the explorer runs every execution this way.
  const ExecutionResult& execute(World& world, Strategy& strategy);

  const EngineOptions& options() const { return opt_; }
  /// State caching: how many times, over this engine's executions, a step touched an object the world's
  /// canonical state did not list (each folded the whole world's digest instead: sound, but it splits states).
  /// Under symmetry, steps the engine did not fold because the previous execution had (replayed choices,
  /// sim/engine_symmetry.cpp) are not counted.
  uint64_t state_fallbacks() const;

 private:
  struct Impl;
  EngineOptions opt_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace allocsim::sim

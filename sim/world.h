// The contract between the engine and a simulated system (a "world"). The engine knows nothing of what
// the world models; the world knows nothing of how actors are scheduled (mechanism apart from policy:
// the runtime switches, the strategy chooses, the world only models).
//
// - An actor is a function run in its own fiber. It calls ActorContext::point() at every scheduling point
//   (docs/DESIGN.md §2): before every call into the shared system and at every barrier the system fires. The
//   engine may switch to another actor there. Code before an actor's first point() runs eagerly at the
//   start of an execution (the prologue) and must not touch shared state.
// - Shared state needs no OS lock (one fiber runs at a time). Where the modelled system holds a lock across
//   a scheduling point, it uses SimMutex: a contended acquire blocks the actor until the holder releases.
// - After every step the engine asks the world to check its invariants (check_step), in the world's fixed
//   order; at quiescence it asks check_quiescent().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/symmetry.h"

namespace allocsim::sim {

using ActorId = uint32_t;
inline constexpr ActorId kNoActor = UINT32_MAX;

/// What kind of scheduling point an actor is at.
enum class PointKind : uint8_t {
  Call,      // about to make a call into the shared system (an API call)
  Barrier,   // at a barrier the system fired
  LockWait,  // blocked on a SimMutex another actor holds
};

const char* to_string(PointKind k);

/// The point (a step's `what`) of every LockWait step: the engine's own word, which order labels name.
inline constexpr const char* kLockWaitPoint = "lock.wait";

/// An invariant that failed, as the world reports it. `invariant` is from the public vocabulary
/// (`allocsim list invariants`); `state` renders the fields that broke it.
struct Violation {
  std::string invariant;
  std::string message;
  std::string state;
};

class SimMutex;
struct OrderSpec;  // sim/order.h

/// Thrown inside an actor's fiber to end that actor as crashed (a fault, backend/CONTRACT.md §2 `Crash`: the
/// process dies at a barrier, with no cleanup). Deliberately not a std::exception, so that a world's
/// `catch (const std::exception&)` cannot swallow it; nor may a world catch it (or `...`), with one exception:
/// a catch that reports it with ActorContext::crashed() and then returns from run_actor() without running
/// anything of the actor's own.
/// The engine treats it as "the actor ended (crashed)", not as an `actor-exception` finding: it records
/// the crash in ExecutionResult::crashes and marks the step's detail (see Engine). The actor's stack
/// unwinds on the way out, so RAII in the world runs: in particular a SimMutex held through a guard is
/// released, as a real API server does not stay locked by a client that died (docs/DESIGN.md §2; the
/// modelled lock is the server's, not the client's). Its later code never runs. `where` says where it
/// died (a barrier name, say); it must have static storage duration.
struct ActorCrash {
  const char* where;
};

/// What an actor can ask of the engine. Implemented by the engine; valid only inside the actor's fiber.
class ActorContext {
 public:
  virtual ~ActorContext() = default;
  virtual ActorId self() const = 0;
  /// A scheduling point: `what` is the call or barrier name, `detail` its context ("node=n1 ...").
  /// REQUIRES: `what` has static storage duration (a literal or a constant table entry). `detail` is copied
  /// before the call returns (into a buffer the engine reuses), so a view of a caller's scratch buffer is fine.
  virtual void point(PointKind kind, std::string_view what, std::string_view detail) = 0;
  /// A choice other than which actor runs (a fault firing, say): uniform in [0, bound) under `random`,
  /// decided by the strategy in general. REQUIRES: bound > 0.
  virtual uint64_t draw(uint64_t bound) = 0;
  /// Blocks until `m` is free (used by SimMutex::lock). A scheduling point of kind LockWait.
  virtual void wait_for(const SimMutex& m) = 0;
  /// Footprint of the current step: the step reads (write=false) or writes object `object`.
  virtual void touch(uint64_t object, bool write) = 0;
  /// A SimMutex's footprint: a write of `lock`, and whether the actor holds it now (Access::held; the last call
  /// in a step decides). The default records the write only.
  virtual void touch_lock(uint64_t lock, bool held) {
    (void)held;
    touch(lock, true);
  }
  /// Whether touch() records anything at all in this execution (the engine records footprints for DPOR and
  /// the trace tools only, EngineOptions::record_footprints): when it does not, a caller may skip computing
  /// object ids. Constant for the context's life. The default says yes, which is always safe.
  virtual bool records_footprints() const { return true; }
  /// Appends `text` to the detail of the step being taken (for instance "fault=raise" when a draw made a
  /// fault fire), so that traces show what happened inside the step. Ignored in the prologue (there is no
  /// step yet). The default does nothing; the engine implements it.
  virtual void note(std::string_view text) { (void)text; }
  /// The actor has crashed at `where` (an ActorCrash it caught itself): the engine ends it as if the ActorCrash
  /// had reached the engine. REQUIRES: `where` has static storage duration; the actor returns from
  /// run_actor() without another point, running only destructors on the way (ActorCrash says why a world
  /// would: every frame an exception crosses costs about 3k instructions to unwind).
  virtual void crashed(const char* where) = 0;
  /// Whether the engine keeps canonical states in this execution (state caching, docs/DESIGN.md §2 "Canonical
  /// states"); when it does not, local_state() is ignored and a world need not compute its digest.
  virtual bool tracks_states() const { return false; }
  /// The actor's whole local state is `digest` from here on: what it read and drew earlier in this execution no
  /// longer decides anything it will do. A world calls it where its actor's state is explicit (the backend: at
  /// the start of every script op, and at the end), so that executions that reach the same explicit state by
  /// different reads can share a canonical state. Between two such calls the engine digests every object the
  /// actor touches and every value it draws (Engine: the local states), each object with its digest from before
  /// the step. REQUIRES: between this call and the actor's next scheduling point it reads nothing that its own
  /// step wrote before the call (that value would be decided by nothing the engine folds); the backend calls it
  /// at an op's start, which its first call point or lock wait follows with nothing read in between, and at the end.
  /// Under symmetry (World::begin_symmetric_states answered true) `digest` is not read: the actor's part of the
  /// world's symmetric state carries its local state, and a world may pass 0.
  virtual void local_state(uint64_t digest) { (void)digest; }
};

/// A re-entrant mutex between actors of one execution. lock() blocks (a LockWait scheduling point) while
/// another actor holds it; an uncontended acquire is not a scheduling point; unlock() never switches, so
/// it is safe during stack unwinding.
///
/// Footprint (for DPOR, sim/strategies/dpor.h): every acquire attempt, successful or not, and every unlock
/// record a *write* of the object `footprint_id`, so that two steps that take, wait for or release the same
/// lock are dependent. That is what keeps DPOR sound about enabledness: which actor gets the lock first is
/// always a race DPOR explores both ways. The unlock is recorded through the context of the lock() that
/// made the holder (unlock() takes no context; the engine ignores touches while unwinding). The acquire and
/// the unlock also say whether the actor holds the lock afterwards (ActorContext::touch_lock): a crash that
/// unwinds through a guard lets go in the crashing step, and explanations see which step that was.
class SimMutex {
 public:
  /// The default id suits a world with one mutex; give each mutex of a world its own stable id.
  static constexpr uint64_t kDefaultFootprintId = 0x53494d2d4c4f434bull;  // "SIM-LOCK"
  explicit SimMutex(uint64_t footprint_id = kDefaultFootprintId) : id_(footprint_id) {}

  void lock(ActorContext& ctx) {
    const ActorId me = ctx.self();
    // Each attempt writes the lock in the step that makes it (a retry: the step that resumed the waiter);
    // the successful one through touch_lock, one call on the uncontended path.
    while (holder_ != kNoActor && holder_ != me) {
      ctx.touch(id_, true);
      ctx.wait_for(*this);
    }
    holder_ = me;
    holder_ctx_ = &ctx;
    ++depth_;
    ctx.touch_lock(id_, true);
  }
  /// REQUIRES: held by the calling actor.
  void unlock() {
    if (holder_ctx_) holder_ctx_->touch_lock(id_, depth_ > 1);
    if (--depth_ == 0) holder_ = kNoActor, holder_ctx_ = nullptr;
  }
  ActorId holder() const { return holder_; }
  int depth() const { return depth_; }
  uint64_t footprint_id() const { return id_; }

 private:
  uint64_t id_;
  ActorId holder_ = kNoActor;
  ActorContext* holder_ctx_ = nullptr;  // only to record the unlock's footprint; never decides anything
  int depth_ = 0;
};

/// One object a step may touch (its footprint id, ActorContext::touch) and a digest of what it holds now.
struct ObjectDigest {
  uint64_t object;
  uint64_t digest;
};

/// A world's part of a canonical state (World::canonical_state; docs/DESIGN.md §2 "Canonical states").
struct CanonicalState {
  /// Everything of the world that can decide the rest of the execution (what a later step reads, what an
  /// invariant or expectation judges), apart from the actors' local states, digested so that what nothing
  /// can observe does not split states (the order of commuting audit entries, say).
  uint64_t world = 0;
  /// Every object that exists, ascending by id, each with a digest of its content: the engine folds the digests of
  /// the objects a step touched into the local state of the actor that took it.
  std::vector<ObjectDigest> objects;
  /// What the engine folds for a touched id not in `objects` (an object that does not exist: a claim not made yet,
  /// or released). It must decide that such an object is absent: a digest of which objects exist does, as long as
  /// `objects` lists every one that does. `world` always does (the coarse choice, and the default).
  uint64_t unlisted = 0;
};

/// One execution's system under test. Built fresh for every execution (make it cheap: copy a prototype).
class World {
 public:
  virtual ~World() = default;
  virtual size_t actor_count() const = 0;
  virtual std::string_view actor_name(ActorId id) const = 0;
  /// The actor's whole body; runs inside its fiber. Exceptions are caught by the engine and become an
  /// `actor-exception` finding, except ActorCrash, which ends the actor as crashed. An execution may end with the
  /// actor suspended at a point; the engine then unwinds its frames with a forced unwind (sim/engine_abandon.cpp):
  /// destructors run, no typed catch clause matches, and a `catch (...)` must rethrow (`throw;`). Its exception is
  /// not C++'s, so a `catch (...)` that takes it while its thread already holds a caught exception terminates
  /// (libstdc++): no actor may be suspended inside a handler, and Engine::run is not called from one.
  virtual void run_actor(ActorId id, ActorContext& ctx) = 0;
  /// Invariants after step `step` (0-based) taken by `actor`, in a fixed order; the first violation.
  virtual std::optional<Violation> check_step(uint64_t step, ActorId actor) = 0;
  /// Invariants at quiescence (every actor finished or crashed).
  virtual std::optional<Violation> check_quiescent() = 0;
  /// The `order` constraints this world's executions must satisfy (sim/order.h), or null for none. The
  /// engine holds back any actor whose next step would break one (sim/engine.h). The spec outlives the world.
  virtual const OrderSpec* order() const { return nullptr; }
  /// Fills `out` with the world's canonical state at a choice point (no actor is inside a step). Returns false
  /// when the world cannot (the default); a strategy that caches states refuses such a world. Contract: two
  /// choice points of executions of one world whose `out` are equal, and whose actors' local states
  /// (ActorContext::local_state and what the engine folded since) are equal, have the same futures: the same
  /// steps, footprints, violations and final states for every continuation.
  virtual bool canonical_state(CanonicalState& out) {
    (void)out;
    return false;
  }
  /// Classes of interchangeable actors (sim/symmetry.h; docs/DESIGN.md §2 "Symmetry"): each class, ascending,
  /// holds actors whose scripts are the same up to renaming their own names and that nothing else names. Empty
  /// (the default): none. Called at the start of every execution of a strategy that uses symmetry: keep it cheap.
  virtual std::vector<std::vector<ActorId>> interchangeable_actors() const { return {}; }
  /// Fills `out` with the world's state at a choice point as digests with holes (sim/symmetry.h, rules 1-4).
  /// Returns false when the world cannot. REQUIRES: interchangeable_actors() is not empty.
  virtual bool symmetric_state(SymmetricState& out) {
    (void)out;
    return false;
  }
  /// Called once per execution that uses symmetry, before any actor starts: whether symmetric_state() will fill
  /// a state. A world may start recording what its symmetric states need here. The default asks
  /// symmetric_state() for one; a world whose states cost much answers without building one.
  virtual bool begin_symmetric_states() {
    SymmetricState probe;
    return symmetric_state(probe);
  }
};

}  // namespace allocsim::sim

// The engine's internals (sim/engine.h), shared by its two sources, and by nothing else:
// - engine.cpp: the mechanism. Fibers, switching between contexts, the actor context's calls (point, wait_for,
//   draw, touch, note), the prologue and the end of an execution (Engine::execute).
// - engine_decide.cpp: deciding between two steps. The step's checks, the options (runnable, then eligible
//   under an order), the strategy's choice, the preemption count, and the messages of an execution's end.
// What runs at every step is defined here, so that it is inlined where it is used: the point path (point, stop,
// decide_guarded: as calls they cost about 5 % of the engine's instructions per point), the switch, the options,
// the step record and footprints.
#pragma once

#include <boost/context/fiber.hpp>
#ifdef ALLOCSIM_PROTECTED_STACKS
#include "sim/protected_stack.h"
#else
#include <boost/context/pooled_fixedsize_stack.hpp>
#endif
#include <unwind.h>

#include <algorithm>
#include <csetjmp>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/assert.h"
#include "sim/engine.h"
#include "sim/order.h"
#include "sim/symmetry.h"

namespace allocsim::sim {

namespace bctx = boost::context;

namespace engine_detail {

enum class SlotState : uint8_t { AtPoint, Blocked, Done };

struct Slot {
  bctx::fiber fiber;  // the actor while suspended (empty while it runs; once it has finished, empty or spent)
  SlotState state = SlotState::AtPoint;
  PointKind kind = PointKind::Call;
  std::string_view what;
  std::string detail;  // of the point it waits at; its buffer is kept across steps and executions
  const SimMutex* waiting = nullptr;
  std::optional<std::string> exception;
  const char* crashed = nullptr;  // where an ActorCrash ended it
  // State caching only (Impl::track_states, engine_states.cpp): the actor's local state as of its last
  // ActorContext::local_state() and the steps folded since, and what the step in progress touched and drew.
  uint64_t local = 0;
  struct LocalEvent {
    uint64_t value;  // an object id, or a drawn value
    bool drawn;
  };
  std::vector<LocalEvent> since;  // its buffer is kept across steps and executions
  // Abandoning the actor's fiber at the end of an execution (engine_abandon.cpp): where its entry frame is, and
  // where the forced unwind of its frames jumps once it reaches that frame.
  uintptr_t entry_frame = 0;
  bool unwound_one = false;  // the stop function has passed a frame (the first is never the entry)
  std::jmp_buf abandoned;
  _Unwind_Exception abandon{};

  /// As new, `detail` keeping its capacity. Fibers left by an execution that did not end normally (something
  /// thrown on the engine's own context outside deciding, in the prologue say) are unwound here, as destroying
  /// the slot would.
  void reset() {
    if (fiber) fiber = bctx::fiber();
    state = SlotState::AtPoint;
    kind = PointKind::Call;
    what = {};
    detail.clear();
    waiting = nullptr;
    exception.reset();
    crashed = nullptr;
    local = 0;
    since.clear();
  }
};

}  // namespace engine_detail

struct Engine::Impl {
  using Slot = engine_detail::Slot;
  using SlotState = engine_detail::SlotState;

  // Per-actor context handed to the world: it only forwards to the engine with the actor's id.
  // Per-actor context handed to the world: it only forwards to the engine with the actor's id. Its overrides
  // are defined in engine.cpp (the first one is its key function), next to what they forward to.
  struct Ctx final : ActorContext {
    Impl* impl = nullptr;
    ActorId id = kNoActor;
    ActorId self() const override;
    void point(PointKind kind, std::string_view what, std::string_view detail) override;
    uint64_t draw(uint64_t bound) override;
    void wait_for(const SimMutex& m) override;
    void touch(uint64_t object, bool write) override;
    void touch_lock(uint64_t lock, bool held) override;
    bool records_footprints() const override;
    void note(std::string_view text) override;
    void crashed(const char* where) override;
    bool tracks_states() const override;
    void local_state(uint64_t digest) override;
  };

#ifdef ALLOCSIM_PROTECTED_STACKS
  // The sanitizer build (CMake ALLOCSIM_SANITIZE): a guard page turns a stack overflow into a fault ASan
  // reports instead of silent corruption of the heap. The stacks are NOT enlarged for ASan's bigger frames
  // (the suite runs in 256 KiB): ASan's swapcontext interceptor clears the shadow of the whole target stack
  // on every switch, and at 1 MiB (128 KiB of shadow, above its clear_shadow_mmap_threshold) it did so with
  // mmap: two thirds of the suite's time went to the kernel.
  static constexpr size_t kStackScale = 1;
  using StackAllocator = PooledProtectedStack;
#else
  static constexpr size_t kStackScale = 1;
  using StackAllocator = bctx::pooled_fixedsize_stack;  // reuses stacks across executions: no mmap per fiber
#endif

  explicit Impl(const EngineOptions& o) : stacks(o.stack_bytes * kStackScale), record_footprints(o.record_footprints) {}

  StackAllocator stacks;
  std::vector<Slot> slots;
  std::vector<Ctx> ctxs;
  std::vector<Candidate> cands;  // one per actor (begin()); the first `ncands` are the current choice's options
  size_t ncands = 0;
  World* world = nullptr;
  Strategy* strategy = nullptr;
  bool unwinding = false;
  bool record_footprints = false;
  bool branching_draw = false;  // a draw over more than one value happened (ExecutionResult::single_schedule)
  // State caching (engine_states.cpp), on when the strategy caches states: the world's canonical state at the
  // latest choice (its object digests are what the step after it read), and how often a touched object was
  // missing from it.
  bool track_states = false;
  CanonicalState canon;
  uint64_t state_fallbacks = 0;
  // Symmetry (engine_symmetry.cpp), on when the strategy uses it and the world has interchangeable actors: the
  // world's state with holes at the latest choice, each actor's class (-1: none), and scratch for the renamings.
  bool track_symmetry = false;
  // Per actor, its steps' log: each step's touched objects and draws as digests with holes (refs in `refs`),
  // instead of `local` (which a renaming could not reach); its local state is the world's part for it and the
  // entries from `from` on (the steps since its last local_state()). Kept across executions: see SymMemo.
  struct SymLog {
    std::vector<SymPart> events;
    std::vector<ActorId> refs;
    uint32_t from = 0;
  };
  std::vector<SymLog> sym_logs;
  // What the previous execution computed at each choice (its announces, announce_state), for the leading choices
  // the strategy replays (Strategy::replayed_prefix): there the state is the previous execution's, so its
  // fingerprint and renaming are reused and nothing is digested; the logs then still hold the previous
  // execution's entries, and are cut back to the lengths they had at the first choice that is not replayed.
  struct SymMemo {
    uint64_t strategy = 0;  // whose execution the memo holds (Strategy::ReplayedPrefix::strategy), and which one
    uint64_t execution = 0;
    bool valid = false;
    std::vector<uint64_t> sched;    // per announce: the schedule's length at it
    std::vector<uint64_t> fp;       // per announce: the fingerprint
    std::vector<ActorId> renaming;  // per announce, n entries
    std::vector<uint32_t> lens;     // per announce, 3 per actor: events, refs, from
    size_t announces = 0, prev_announces = 0;
    uint64_t same = 0;            // leading schedule entries that are the previous execution's
    bool fresh = true;            // past the replayed choices: the logs are this execution's
    bool replaying_step = false;  // the step now running is the previous execution's: no fold
  } sym_memo;
  SymmetricState sym;
  SymmetricState sym_after;  // fold_symmetric: the state after a step, for the names of objects it made
  std::vector<int> sym_class;
  std::vector<std::vector<ActorId>> sym_classes;
  struct SymScratch {
    std::vector<uint64_t> sig, map, best;
    std::vector<ActorId> order, renaming, inverse;
    std::vector<std::pair<size_t, size_t>> ties;  // [begin, end) in `order` of actors whose signatures tie
  } sym_scratch;

  // The result being recorded, kept between executions so that its storage is reused (Engine::execute):
  // during an execution its first `nsteps` records are this execution's; those after them, and `spare`, are
  // records of earlier executions whose buffers (detail, footprint) the next steps reuse.
  ExecutionResult res;
  size_t nsteps = 0;
  std::vector<StepRecord> spare;
  // The longest detail and footprint recorded so far. Buffers pass between slots and records (a swap per
  // step), so each is brought to these sizes once when it is handed on, instead of growing at random later.
  size_t detail_hint = 0, footprint_hint = 0;

  StepRecord& last_step() { return res.steps[nsteps - 1]; }

  /// The record of the step about to be taken: an old one, its buffers kept, or a new one.
  StepRecord& next_step() {
    std::vector<StepRecord>& steps = res.steps;
    if (nsteps == steps.size()) {
      if (spare.empty()) {
        steps.emplace_back();
      } else {
        steps.push_back(std::move(spare.back()));
        spare.pop_back();
      }
    }
    return steps[nsteps++];
  }

  /// Ends the recording: the records after the last step go to `spare`, so the result holds this execution's.
  void trim_steps() {
    while (res.steps.size() > nsteps) {
      spare.push_back(std::move(res.steps.back()));
      res.steps.pop_back();
    }
  }

  /// State caching: what the running actor touched or drew in this step (engine_states.cpp folds it).
  void note_local(ActorId id, uint64_t value, bool drawn) {
    if (track_states && !unwinding && nsteps != 0 && id != kNoActor) slots[id].since.push_back({value, drawn});
  }
  /// State caching: folds the events of `id`'s last step into its local state, with the digests of the objects as
  /// they were before the step (the canonical state taken at the choice that started it).
  void fold_local(ActorId id);
  /// State caching: the fingerprint of the canonical state at this choice (and `canon`, taken now).
  uint64_t state_fingerprint();
  /// State caching: tells the strategy the state at this choice (at_state, or at_state_renamed under symmetry).
  void announce_state();
  /// Symmetry: fold_local's counterpart (the step's events as digests with holes, from `sym`).
  void fold_symmetric(ActorId id);
  /// Symmetry: the memo and logs at the start of an execution of `st` with `n` actors.
  void begin_symmetric(const Strategy& st, size_t n);
  /// Symmetry: the least fingerprint over the renamings of this choice's state that sort each class by its
  /// actors' signatures (ties tried every way, up to a bound); sym_scratch.renaming is the one that gave it.
  uint64_t symmetric_fingerprint();

  void touch(uint64_t object, bool write) {
    note_local(current, object, false);
    if (!record_footprints || unwinding || nsteps == 0) return;
    add_access(last_step().footprint, object, write);
  }

  void touch_lock(uint64_t lock, bool held) {
    note_local(current, lock, false);
    if (!record_footprints || unwinding || nsteps == 0) return;
    add_access(last_step().footprint, lock, true).held = held;
  }

  /// Keeps `fp` canonical (StepRecord::footprint), so DPOR and trace fingerprints read it as it is.
  Access& add_access(std::vector<Access>& fp, uint64_t object, bool write) {
    const auto at =
        std::lower_bound(fp.begin(), fp.end(), object, [](const Access& a, uint64_t o) { return a.object < o; });
    if (at != fp.end() && at->object == object) {
      at->write |= write;
      return *at;
    }
    const auto added = fp.insert(at, {object, write});
    footprint_hint = std::max(footprint_hint, fp.size());
    return *added;
  }

  void note(std::string_view text) {
    if (unwinding || nsteps == 0) return;  // no step yet (prologue), or the execution is over
    std::string& d = last_step().detail;
    if (!d.empty()) d += ' ';
    d += text;
    detail_hint = std::max(detail_hint, d.size());
  }

  // -- switching (the mechanism; what runs next is decided by decide() and the strategy) --
  //
  // Contexts switch directly: an actor that reaches a point decides, on its own stack, which actor takes the
  // next step and switches straight to it (or goes on itself, with no switch at all); only the prologue and
  // the end of an execution go through the context that called execute() (kMain). Before, every step went actor ->
  // main -> actor: two switches a step instead of at most one.
  static constexpr ActorId kMain = kNoActor - 2;  // the context that called execute(); not an actor id
  bctx::fiber main_ctx;                           // that context while an actor runs
  ActorId from = kMain;                           // the context that made the last switch
  bool prologue = false;                          // points go back to main (each actor's first point)
  std::exception_ptr error;                       // thrown while deciding on an actor's stack

  bctx::fiber& fiber_of(ActorId c) { return c == kMain ? main_ctx : slots[c].fiber; }

  /// Switches from context `self` to `to`, and returns once some context switches back to `self`. Every actor
  /// suspends here, so an actor resumed by unwind_all() is abandoned here (engine_abandon.cpp), once `back` has
  /// gone out of scope: this frame then has nothing left to clean up.
  void switch_to(ActorId self, ActorId to) {
    from = self;
    {
      bctx::fiber back = std::move(fiber_of(to)).resume();
      // Whoever switched here left its continuation (empty, or spent under ucontext, when its actor has just
      // finished).
      fiber_of(from) = std::move(back);
    }
    if (unwinding && self != kMain) abandon_here(self);
  }

  /// Where actor `id` goes when it stops at a point or blocks: back to main in the prologue; else it decides
  /// the next step, and goes on itself when that is its own. Inlined into point() and wait_for(): as a call
  /// it cost about 20 instructions a step.
  [[gnu::always_inline]] void stop(ActorId id) {
    ALLOCSIM_ASSERT(!slots[id].crashed, "actor {} reached a point after reporting its crash at {}", id,
                    slots[id].crashed);
    if (prologue) return switch_to(id, kMain);
    const ActorId next = decide_guarded(true);
    if (next != id) switch_to(id, next == kNoActor ? kMain : next);
  }

  /// The hot path of every step, here so that the context inlines it whole (stop() and deciding's entry).
  void point(ActorId id, PointKind kind, std::string_view what, std::string_view detail) {
    // While fibers are being unwound at the end of an execution, nothing may switch.
    if (unwinding) return;
    Slot& s = slots[id];
    s.state = SlotState::AtPoint;
    s.kind = kind;
    s.what = what;
    // Copied into the slot's own buffer (no allocation once it has grown); the empty test skips a call into
    // the library for the common empty detail.
    if (detail.empty())
      s.detail.clear();
    else
      s.detail.assign(detail);
    stop(id);
  }

  void wait_for(ActorId id, const SimMutex& m);

  uint64_t draw(uint64_t bound);

  bool runnable(ActorId id) const {
    const Slot& s = slots[id];
    if (s.state == SlotState::AtPoint) return true;
    return s.state == SlotState::Blocked && s.waiting->holder() == kNoActor;
  }

  void start_fiber(ActorId id);

  /// Runs actor `id`'s prologue: up to its first point, or its end.
  void start(ActorId id);

  /// Records a crash of `id` during the last step, once (the slot is Done afterwards, never resumed).
  void record_crash(ActorId id);

  std::optional<Violation> exception_violation(ActorId id);

  std::string deadlock_state() const;

  /// Why constraint `c`'s X did not happen while its Y was due (the execution is order-blocked).
  std::string order_block_message(const OrderTracker& order, size_t c) const;

  /// Removes from the options the actors `order` holds back. When none is left, returns the order block (the
  /// constraint holding back the first candidate).
  std::optional<ExecutionResult::OrderBlock> filter(const OrderTracker& order);

  /// Fresh slots and contexts for an execution of `w` (n actors) under `st`, and a fresh result. Storage is
  /// kept (the result's vectors, the step records' and the slots' buffers): an engine that has run a few
  /// executions of a world runs the next ones without a heap allocation of its own.
  void begin(World& w, Strategy& st, ActorId n);

  /// The runnable actors (ascending ids) as the options (the first `ncands` of `cands`); whether some actor
  /// is blocked. Here, so that update_options(), its one caller, and decide() inline it.
  bool collect() {
    const auto n = static_cast<ActorId>(slots.size());
    Candidate* out = cands.data();
    size_t k = 0;
    bool blocked = false, waiting = false;
    for (ActorId i = 0; i < n; ++i) {
      const Slot& s = slots[i];
      waiting |= s.state == SlotState::Blocked;
      if (runnable(i)) {
        cand_at[i] = static_cast<uint32_t>(k);
        out[k++] = {i, s.kind, s.what};
      } else if (s.state == SlotState::Blocked) {
        blocked = true;
      }
    }
    ncands = k;
    cands_kept = !waiting && !order;
    return blocked;
  }

  // The options kept between steps. After a step in which no actor blocked or ended, with none waiting for a
  // lock before it and no order filtering them, the runnable set is the one of the last collect(): only the
  // actor that took the step is at another point, so its entry is refreshed in place instead of the list being
  // rebuilt (about a tenth of the engine's instructions per point with three actors, tools/bench/README.md).
  // Whatever changes the set clears `cands_kept`: begin(), an actor blocking (wait_for) or ending
  // (start_fiber's epilogue), and a collect() that found an actor waiting for a lock, runnable or not (its
  // lock can be taken or released during any other actor's step; and it stays Blocked through the step that
  // takes the lock, until its next point) or an order (filter() removes options).
  bool cands_kept = false;
  std::vector<uint32_t> cand_at;  // per actor: its index in `cands` at the last collect()

  /// Brings the options up to date (collect(), or the refresh above); returns whether some actor is blocked.
  [[gnu::always_inline]] bool update_options() {
    if (cands_kept && current != kNoActor) {
      const Slot& s = slots[current];
      Candidate& c = cands[cand_at[current]];
      ALLOCSIM_ASSERT(c.actor == current && s.state == SlotState::AtPoint, "kept options out of date for actor {}",
                      current);
      c.kind = s.kind;
      c.what = s.what;
      return false;
    }
    return collect();
  }
  std::span<const Candidate> options() const { return {cands.data(), ncands}; }

  /// Records the step `pick` is about to take (preempting or not); decide()'s caller then runs it. Inlined into
  /// decide(), its one caller: as a call its entry and exit were a quarter of its cost.
  [[gnu::always_inline]] void record_step(ActorId pick, bool preempt) {
    // Every field of a reused record is set below: a field added to StepRecord must be set here too.
    static_assert(sizeof(StepRecord) == 96, "StepRecord changed: set its new field in record_step");
    if (!running_out) res.schedule.push_back({Choice::Actor, pick});
    Slot& s = slots[pick];
    StepRecord& st = next_step();
    st.actor = pick;
    st.kind = s.kind;
    st.what = s.what;
    // The slot's detail becomes the step's; the slot takes the record's old buffer for its next point.
    if (!s.detail.empty() || !st.detail.empty()) {
      st.detail.swap(s.detail);
      detail_hint = std::max(detail_hint, st.detail.size());
      s.detail.clear();
      if (s.detail.capacity() < detail_hint) s.detail.reserve(detail_hint);
    }
    st.preemption = preempt;
    st.footprint.clear();
    if (st.footprint.capacity() < footprint_hint) st.footprint.reserve(footprint_hint);
    st.waited_lock = s.state == SlotState::Blocked ? s.waiting->footprint_id() : 0;
    if (order && !running_out) order_took(pick, s.what, st);
  }

  // -- the order (sim/order.h), active only when the world has one --
  std::optional<OrderTracker> order;
  bool one_option = true;  // every choice so far had one eligible actor
  /// The execution became order-blocked and runs out (ExecutionResult::OrderBlock, docs/DESIGN.md §2 "Order"):
  /// from here the engine picks every step itself (the lowest-id runnable actor) and every draw takes 0,
  /// without asking the strategy or recording a choice.
  bool running_out = false;
  std::vector<size_t> labelled;

  void order_begin(const World& w);

  /// The execution has just become order-blocked (res.order_blocked set by filter()): records where, and starts
  /// the run-out.
  void begin_run_out();

  /// Records the step `pick` is about to take from `what`; with footprints, both steps of a constraint write
  /// its object (OrderTracker::footprint_object).
  void order_took(ActorId pick, std::string_view what, StepRecord& step) {
    order->take(pick, what, labelled);
    if (record_footprints)
      for (size_t c : labelled) add_access(step.footprint, OrderTracker::footprint_object(c), true);
  }

  void unwind_all();
  /// Runs actor `id`'s script on its fiber (start_fiber), recording how it ended in its slot. False when
  /// unwind_all() abandoned it instead (engine_abandon.cpp).
  bool run_actor_until_abandoned(ActorId id);
  /// On actor `id`'s suspended fiber: runs the cleanups of its frames and jumps back into
  /// run_actor_until_abandoned(), which returns false. Never returns.
  [[noreturn]] void abandon_here(ActorId id);

  // -- deciding: between two steps, on the stack of whichever context stopped last --
  ActorId current = kNoActor;  // the actor that took the last step (kNoActor before the first)
  uint64_t max_steps = 0;

  /// With `after`: checks the step `current` has just taken (its crash, its exception, the invariants). Then,
  /// unless that ended the execution: the next step, chosen by the strategy among the eligible actors and
  /// recorded. Returns the actor to run, or kNoActor when the execution is over (the result says why).
  ActorId decide(bool after);

  /// decide(), with whatever it throws (a strategy's logic_error, a failed assertion) kept for execute() to
  /// rethrow once every fiber is unwound: on an actor's stack it must not reach the actor's own handlers.
  [[gnu::always_inline]] ActorId decide_guarded(bool after) {
    try {
      return decide(after);
    } catch (...) {
      error = std::current_exception();
      return kNoActor;
    }
  }
};

}  // namespace allocsim::sim

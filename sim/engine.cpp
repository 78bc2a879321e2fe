// Engine (sim/engine.h): the mechanism, fibers and switching (sim/engine_impl.h says how the engine's two
// sources divide their work).
#include "sim/engine.h"

#include <fmt/format.h>

#include <iterator>
#include <stdexcept>
#include <utility>

#include "sim/assert.h"
#include "sim/engine_impl.h"

namespace allocsim::sim {

ActorId Engine::Impl::Ctx::self() const { return id; }
void Engine::Impl::Ctx::point(PointKind kind, std::string_view what, std::string_view detail) {
  impl->point(id, kind, what, detail);
}
uint64_t Engine::Impl::Ctx::draw(uint64_t bound) { return impl->draw(bound); }
void Engine::Impl::Ctx::wait_for(const SimMutex& m) { impl->wait_for(id, m); }
void Engine::Impl::Ctx::touch(uint64_t object, bool write) { impl->touch(object, write); }
void Engine::Impl::Ctx::touch_lock(uint64_t lock, bool held) { impl->touch_lock(lock, held); }
bool Engine::Impl::Ctx::records_footprints() const { return impl->record_footprints; }
void Engine::Impl::Ctx::note(std::string_view text) { impl->note(text); }
void Engine::Impl::Ctx::crashed(const char* where) { impl->slots[id].crashed = where; }
bool Engine::Impl::Ctx::tracks_states() const { return impl->track_states; }
void Engine::Impl::Ctx::local_state(uint64_t digest) {
  if (!impl->track_states || impl->unwinding) return;
  impl->slots[id].local = digest;
  impl->slots[id].since.clear();
  // Symmetry: the world's symmetric state carries the new local state (sim/symmetry.h); the log starts again. While
  // the previous execution's choices are replayed, the log's start comes back from the memo instead.
  if (impl->track_symmetry && impl->sym_memo.fresh)
    impl->sym_logs[id].from = uint32_t(impl->sym_logs[id].events.size());
}

void Engine::Impl::wait_for(ActorId id, const SimMutex& m) {
  if (unwinding) throw std::logic_error("wait_for during unwinding");
  Slot& s = slots[id];
  s.state = SlotState::Blocked;
  s.kind = PointKind::LockWait;
  s.what = kLockWaitPoint;
  s.detail.clear();
  if (m.holder() != kNoActor) fmt::format_to(std::back_inserter(s.detail), "held by {}", world->actor_name(m.holder()));
  s.waiting = &m;
  cands_kept = false;
  stop(id);
  s.waiting = nullptr;
}

uint64_t Engine::Impl::draw(uint64_t bound) {
  if (bound == 0) throw std::invalid_argument("draw(0)");
  if (running_out) return 0;  // the run-out draws nothing: every draw is "no fault" (engine_impl.h)
  branching_draw |= bound > 1;
  const uint64_t v = strategy->draw(bound);
  ALLOCSIM_ASSERT(v < bound, "the strategy drew {} outside [0, {})", v, bound);
  res.schedule.push_back({Choice::Draw, v});
  note_local(current, v, true);
  return v;
}

void Engine::Impl::start_fiber(ActorId id) {
  slots[id].fiber = bctx::fiber(std::allocator_arg, stacks, [this, id](bctx::fiber&& starter) -> bctx::fiber {
    main_ctx = std::move(starter);  // actors are started from main, in the prologue
    // Abandoned at the end of an execution (unwind_all): main resumed it to end it, and gets it back ended.
    if (!run_actor_until_abandoned(id)) return std::move(main_ctx);
    // An actor that returns while being abandoned swallowed the unwind (a catch (...) that did not rethrow,
    // sim/world.h run_actor): deciding now would run a step in the middle of unwind_all().
    ALLOCSIM_ASSERT(!unwinding, "actor {} swallowed the unwind that abandons it (a catch (...) must rethrow)", id);
    slots[id].state = SlotState::Done;
    cands_kept = false;
    // Its last step is over: decide the next one here, and go there as this fiber ends.
    const ActorId next = prologue ? kMain : decide_guarded(true);
    from = id;
    return std::move(fiber_of(next == kNoActor ? kMain : next));
  });
}

void Engine::Impl::start(ActorId id) {
  start_fiber(id);
  switch_to(kMain, id);
}

void Engine::Impl::begin(World& w, Strategy& st, ActorId n) {
  world = &w;
  strategy = &st;
  track_states = st.caches_states();
  if (track_states) {
    // Checked before any fiber starts: nothing to unwind. Local states are folded from footprints.
    if (!record_footprints)
      throw std::invalid_argument("state caching needs footprints: EngineOptions::record_footprints must be on");
    canon.objects.clear();
    if (!w.canonical_state(canon))
      throw std::invalid_argument(
          "this world has no canonical state (World::canonical_state): it cannot be "
          "explored with state caching");
  }
  track_symmetry = false;
  if (track_states && st.uses_symmetry()) {
    sym_classes = w.interchangeable_actors();
    track_symmetry = !sym_classes.empty();
    if (track_symmetry) {
      sym_class.assign(n, -1);
      for (size_t c = 0; c < sym_classes.size(); ++c)
        for (const ActorId a : sym_classes[c]) {
          if (a >= n || sym_class[a] != -1)
            throw std::logic_error("interchangeable_actors: an actor out of range or in two classes");
          sym_class[a] = int(c);
        }
      if (!w.begin_symmetric_states())
        throw std::invalid_argument(
            "this world has interchangeable actors but no symmetric state (World::symmetric_state)");
      begin_symmetric(st, n);
    }
  }
  if (!track_symmetry) sym_memo.valid = false;  // another strategy's execution: the memo is not its predecessor's
  std::vector<StepRecord> steps = std::move(res.steps);
  std::vector<Choice> schedule = std::move(res.schedule);
  std::vector<Crash> crashes = std::move(res.crashes);
  std::vector<ActorId> unfinished = std::move(res.unfinished);
  res = ExecutionResult{};  // every other field as new
  res.steps = std::move(steps);
  schedule.clear(), res.schedule = std::move(schedule);
  crashes.clear(), res.crashes = std::move(crashes);
  unfinished.clear(), res.unfinished = std::move(unfinished);
  nsteps = 0;
  current = kNoActor;
  from = kMain;
  error = nullptr;
  if (slots.size() != n) slots.resize(n);
  for (Slot& s : slots) s.reset();
  ctxs.resize(n);
  for (ActorId i = 0; i < n; ++i) ctxs[i].impl = this, ctxs[i].id = i;
  cands.resize(n);
  cand_at.resize(n);
  ncands = 0;
  cands_kept = false;
}

Engine::Engine(EngineOptions options) : opt_(options), impl_(std::make_unique<Impl>(opt_)) {}
Engine::~Engine() = default;
uint64_t Engine::state_fallbacks() const { return impl_->state_fallbacks; }

ExecutionResult Engine::run(World& world, Strategy& strategy) {
  execute(world, strategy);
  return std::move(impl_->res);  // the caller owns it: the next execution starts from empty storage
}

const ExecutionResult& Engine::execute(World& world, Strategy& strategy) {
  Impl& m = *impl_;
  ExecutionResult& r = m.res;
  const auto n = static_cast<ActorId>(world.actor_count());
  m.begin(world, strategy, n);
  m.max_steps = opt_.max_steps;

  // Prologue: each actor, in id order, runs up to its first scheduling point (no shared effects).
  m.prologue = true;
  for (ActorId i = 0; i < n && !r.violation; ++i) {
    m.start(i);
    if (auto v = m.exception_violation(i)) r.violation = v, r.violation_actor = i;
  }
  m.prologue = false;

  m.order_begin(world);
  if (!r.violation) {
    // The first step; from then on each context decides the next one, and the last switches back here.
    const ActorId first = m.decide_guarded(false);
    if (first != kNoActor) m.switch_to(Impl::kMain, first);
  }
  r.single_schedule = m.order && m.one_option && !m.branching_draw;
  if (!r.quiescent)
    for (ActorId a = 0; a < n; ++a)
      if (m.slots[a].state != Engine::Impl::SlotState::Done) r.unfinished.push_back(a);
  m.unwind_all();
  m.trim_steps();
  m.world = nullptr;
  m.strategy = nullptr;
  if (m.error) std::rethrow_exception(std::exchange(m.error, nullptr));
  return r;
}

}  // namespace allocsim::sim

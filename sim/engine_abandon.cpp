// Ending the actors' fibers at the end of an execution (docs/DESIGN.md §2, "Sleep-set-blocked prefixes"): a path
// cut at a visited state, or blocked by its sleep set, leaves every actor suspended mid-script.
//
// Why not Boost's way: destroying a suspended bctx::fiber throws Boost's forced_unwind on its stack, a C++ throw,
// so the unwinder walks every frame twice (phase 1 searches for the handler at the fiber's entry, phase 2 runs the
// cleanups). Under state caching nearly every path ends that way (251,262 of 260,219 on the family of four
// reservers with release).
//
// How: unwind_all() resumes each suspended fiber; the actor, back in switch_to() with `unwinding` set, calls
// abandon_here(), which starts a forced unwind (_Unwind_ForcedUnwind: phase 2 only, as glibc cancels a thread).
// The exception class is not C++'s, so no typed catch clause of the actor's matches, and a catch (...) must rethrow
// it (sim/world.h run_actor): only cleanups run, the destructors of what the actor's frames own, with `unwinding`
// set so that nothing switches. Before each frame the stop function looks at the stack pointer that frame had at
// its call. Once that lies above run_until_abandoned()'s frame address, the frame is that function's caller:
// every frame above it has been unwound, and the stop function longjmps back into run_until_abandoned(), which has
// no cleanup of its own, so the jump skips no destructor (the rule of [csetjmp.syn]). It returns false, and the
// fiber ends as if its actor had returned, without deciding a next step.
#include <csetjmp>
#include <cstdio>
#include <cstdlib>

#include "sim/engine_impl.h"

namespace allocsim::sim {

namespace {

constexpr _Unwind_Exception_Class kAbandonClass = 0x414c4c4f43414244ull;  // "ALLOCABD": not a C++ exception

/// The forced unwind's stop function, called before each frame's cleanups with the stack pointer that frame had
/// at its call (_Unwind_GetCFA: the canonical frame address of the frame below). Once that lies above
/// run_until_abandoned()'s frame address, the frame is its caller: its frames above are unwound, jump back into it.
_Unwind_Reason_Code stop_at_entry(int, _Unwind_Action actions, _Unwind_Exception_Class, _Unwind_Exception*,
                                  _Unwind_Context* context, void* slot) {
  auto& s = *static_cast<engine_detail::Slot*>(slot);
  const bool entry = (actions & _UA_END_OF_STACK) != 0 || _Unwind_GetCFA(context) > s.entry_frame;
  // The first frame is abandon_here()'s, far above the entry: stopping there would skip every destructor.
  if (entry && !s.unwound_one) {
    std::fprintf(stderr, "allocsim: internal error: abandoning an actor: its entry frame is not below its stack\n");
    std::abort();
  }
  s.unwound_one = true;
  if (entry) std::longjmp(s.abandoned, 1);
  return _URC_NO_REASON;
}

/// Runs actor `id` of `world` on its fiber; false when abandoned. It has no cleanup and no handler of its own, and
/// the jump lands here before its caller's handlers are looked at (a catch (...) there would take the unwind for
/// an exception of the actor's). noinline: it needs a frame of its own. Its frame address, not a local's: under
/// ASan's detect_stack_use_after_return a local whose address is taken lives on a heap "fake stack".
[[gnu::noinline]] bool run_until_abandoned(World& world, ActorId id, ActorContext& ctx, engine_detail::Slot& s) {
  s.entry_frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (setjmp(s.abandoned) != 0) return false;
  world.run_actor(id, ctx);
  return true;
}

}  // namespace

bool Engine::Impl::run_actor_until_abandoned(ActorId id) {
  Slot& s = slots[id];
  try {
    return run_until_abandoned(*world, id, ctxs[id], s);
  } catch (const bctx::detail::forced_unwind&) {
    throw;  // Boost unwinds a fiber destroyed outside unwind_all (Slot::reset) with this; swallowing it would
            // corrupt the switch
  } catch (const ActorCrash& c) {
    s.crashed = c.where;  // the actor ended (crashed); its stack has unwound, RAII has run
  } catch (const std::exception& e) {
    s.exception = e.what();
  } catch (...) {
    s.exception = "an exception that is not a std::exception";
  }
  return true;
}

void Engine::Impl::abandon_here(ActorId id) {
  Slot& s = slots[id];
  s.abandon = _Unwind_Exception{};  // in the slot: a landing pad's calls overwrite the stack below its frame
  s.abandon.exception_class = kAbandonClass;
  s.unwound_one = false;
  const _Unwind_Reason_Code r = _Unwind_ForcedUnwind(&s.abandon, stop_at_entry, &s);
  // Only an unwinder that cannot walk the fiber's frames comes back here, and they are half unwound.
  std::fprintf(stderr, "allocsim: internal error: abandoning actor %u's fiber: the forced unwind failed (%d)\n",
               unsigned(id), int(r));
  std::abort();
}

void Engine::Impl::unwind_all() {
  unwinding = true;
  for (ActorId a = 0; a < slots.size(); ++a) {
    if (!slots[a].fiber) continue;  // finished, or never started
    // Resumed as by a switch from main: the actor is suspended in switch_to(), which sees `unwinding` and calls
    // abandon_here(). (resume_with(abandon_here) would add Boost's frame, with a cleanup of its own, on top.)
    from = kMain;
    slots[a].fiber = std::move(slots[a].fiber).resume();
  }
  unwinding = false;
}

}  // namespace allocsim::sim

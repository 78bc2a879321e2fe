// Engine (sim/engine.h): deciding between two steps, on the stack of whichever context stopped last
// (sim/engine_impl.h).
#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>
#include <utility>

#include "sim/assert.h"
#include "sim/engine_impl.h"
#include "sim/support/words.h"

namespace allocsim::sim {

namespace {

Violation steps_bounded(uint64_t max_steps) {
  return Violation{"steps-bounded",
                   fmt::format("the execution did not end within {} (--max-steps, or the scenario's max_steps); "
                               "likely an actor that polls or retries without bound, or a livelock between actors",
                               support::count_of(max_steps, "step")),
                   ""};
}

}  // namespace

void Engine::Impl::record_crash(ActorId id) {
  if (!slots[id].crashed || nsteps == 0) return;
  const uint64_t step = nsteps - 1;
  if (!res.crashes.empty() && res.crashes.back().actor == id && res.crashes.back().step == step) return;
  res.crashes.push_back({id, step, slots[id].crashed});
  note(fmt::format("crashed={}", slots[id].crashed));
}

std::optional<Violation> Engine::Impl::exception_violation(ActorId id) {
  if (!slots[id].exception) return std::nullopt;
  return Violation{"actor-exception", fmt::format("actor {} threw: {}", world->actor_name(id), *slots[id].exception),
                   ""};
}

std::string Engine::Impl::deadlock_state() const {
  std::string out;
  for (ActorId i = 0; i < slots.size(); ++i) {
    if (slots[i].state != SlotState::Blocked) continue;
    const ActorId h = slots[i].waiting->holder();
    out += fmt::format("{} waits for the lock held by {}{}\n", world->actor_name(i),
                       h == kNoActor ? "nobody" : std::string(world->actor_name(h)),
                       h != kNoActor && slots[h].state == SlotState::Done ? " (finished while holding it)" : "");
  }
  return out;
}

std::string Engine::Impl::order_block_message(const OrderTracker& order, size_t c) const {
  const OrderConstraint& oc = order.spec().constraints[c];
  const ActorId x = oc.before.actor;
  const Slot& s = slots[x];
  std::string why;
  if (s.state == SlotState::Done)
    why = s.crashed ? fmt::format("{} crashed at {} first", oc.before.actor_name, s.crashed)
                    : fmt::format("{} ended first", oc.before.actor_name);
  else if (s.state == SlotState::Blocked && !runnable(x))
    why = fmt::format("{} was waiting for a lock", oc.before.actor_name);
  else if (x == oc.after.actor)
    why = fmt::format("{} reached {} first", oc.before.actor_name, oc.after.point);
  else if (auto other = order.holding_back(x, s.what))
    why = fmt::format("{} was itself held back by {}", oc.before.actor_name, order.spec().constraints[*other].text());
  else
    why = fmt::format("{} was at {} instead", oc.before.actor_name, s.what);
  return fmt::format("constraint {} was never met ({} did not happen before {}: {})", oc.text(), oc.before.text(),
                     oc.after.text(), why);
}

std::optional<ExecutionResult::OrderBlock> Engine::Impl::filter(const OrderTracker& order) {
  std::optional<size_t> first;
  size_t kept = 0;
  for (size_t i = 0; i < ncands; ++i) {
    const Candidate c = cands[i];
    const auto held = order.holding_back(c.actor, c.what);
    if (!held)
      cands[kept++] = c;
    else if (!first)
      first = held;
  }
  ncands = kept;
  if (kept > 0) return std::nullopt;
  return ExecutionResult::OrderBlock{*first,
                                     order_block_message(order, *first),
                                     0,
                                     {}};  // begin_run_out() fills the rest
}

void Engine::Impl::order_begin(const World& w) {
  order.reset();
  if (const OrderSpec* o = w.order(); o && !o->empty()) order.emplace(*o);
  one_option = true;
  branching_draw = false;
  running_out = false;
}

void Engine::Impl::begin_run_out() {
  ExecutionResult::OrderBlock& b = *res.order_blocked;
  b.step = nsteps;
  for (ActorId a = 0; a < slots.size(); ++a)
    if (slots[a].state != SlotState::Done) b.unfinished.push_back(a);
  running_out = true;
  collect();  // filter() emptied the options: every runnable actor is one again
}

ActorId Engine::Impl::decide(bool after) {
  ExecutionResult& r = res;
  if (after) {
    const ActorId pick = current;
    if (slots[pick].crashed) record_crash(pick);
    // A run-out step (DESIGN.md §2) asks the strategy nothing, and tells it nothing either.
    if (!running_out) strategy->step_done(last_step());
    if (track_symmetry)
      fold_symmetric(pick);
    else if (track_states)
      fold_local(pick);
    if (slots[pick].exception) {
      r.violation = exception_violation(pick), r.violation_actor = pick;
      return kNoActor;
    }
    if (auto v = world->check_step(nsteps - 1, pick)) {
      r.violation = std::move(v), r.violation_actor = pick;
      return kNoActor;
    }
  }
  const bool blocked = update_options();
  if (ncands == 0) {
    if (blocked) {
      r.violation = Violation{"no-deadlock", "no actor can run, and some are blocked", deadlock_state()};
    } else {
      r.quiescent = true;
      r.violation = world->check_quiescent();
    }
    return kNoActor;
  }
  if (order && !running_out) {
    if ((r.order_blocked = filter(*order)))
      begin_run_out();
    else
      one_option &= ncands == 1;
  }
  if (nsteps >= max_steps) {
    r.violation = steps_bounded(max_steps);
    return kNoActor;
  }
  if (running_out) {
    // The lowest-id runnable actor (engine_impl.h, running_out): a function of the state alone, so executions
    // whose prefixes are equivalent run out alike. Not a preemption: no strategy chose it.
    const ActorId pick = cands[0].actor;
    record_step(pick, false);
    current = pick;
    return pick;
  }
  const std::span<const Candidate> opts = options();
  if (track_states) announce_state();
  const ActorId pick = strategy->choose(opts, current);
  if (pick == kAbandon) {
    r.abandoned = true;
    return kNoActor;
  }
  // Without an order the candidates are exactly the runnable actors: one lookup instead of a scan.
  const auto n = static_cast<ActorId>(slots.size());
  const bool valid = order ? std::any_of(opts.begin(), opts.end(), [&](const Candidate& c) { return c.actor == pick; })
                           : pick < n && runnable(pick);
  ALLOCSIM_ASSERT(valid, "the strategy chose actor {}, which is not runnable", pick);
  // Whether `current` could have continued does not depend on `pick`: computed first, so that the only
  // use of the (under `random`, unpredictable) pick is branch-free.
  bool current_runnable = current != kNoActor && runnable(current);
  // An actor the order holds back is not preempted when another runs: the switch is forced, as when it
  // blocks (DFS's preemption bound counts only switches a strategy chose).
  if (order && current_runnable)
    current_runnable = std::any_of(opts.begin(), opts.end(), [&](const Candidate& c) { return c.actor == current; });
  const bool preempt = current_runnable & (current != pick);
  r.preemptions += preempt;
  record_step(pick, preempt);
  current = pick;
  return pick;
}

}  // namespace allocsim::sim

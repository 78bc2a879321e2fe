#include "sim/campaign/trace_replay.h"

#include <fmt/format.h>

#include "sim/campaign/run.h"
#include "sim/shrink.h"
#include "sim/strategies/replay.h"

namespace allocsim::campaign {

namespace {

std::string describe(const TraceStep& s) {
  return fmt::format("{} at {} {} #{}{}{}", s.actor, s.kind, s.point, s.occurrence, s.detail.empty() ? "" : ": ",
                     s.detail);
}

std::string describe_end(const sim::ExecutionResult& r) {
  if (!r.violation) return "the execution ends without a violation";
  return fmt::format("the execution ends with {}: {}", r.violation->invariant, r.violation->message);
}

std::string describe_end(const Trace& t) {
  if (!t.violation) return "the execution ends without a violation";
  return fmt::format("the execution ends with {}: {}", t.violation->invariant, t.violation->message);
}

}  // namespace

std::string step_label(const TraceStep& s) { return fmt::format("{} {} #{}", s.actor, s.point, s.occurrence); }

sim::ExecutionResult run_lenient(const Subject& sc, std::span<const sim::Choice> schedule, uint64_t max_steps) {
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps});
  sim::LenientReplayStrategy s(schedule);
  return run_one(engine, *compiled, s);
}

std::string state_before_last_step(const Subject& sc, const sim::ExecutionResult& r, uint64_t max_steps) {
  if (!r.violation || r.violation->state.empty() || r.steps.empty()) return "";
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  // Stop one step short: the engine checks its step limit before each choice.
  sim::Engine engine(sim::EngineOptions{.max_steps = std::min<uint64_t>(max_steps, r.steps.size() - 1)});
  sim::LenientReplayStrategy s(r.schedule);
  std::string out;
  run_one(engine, *compiled, s, [&](const sim::World& w) { out = sc.render_like(w, r.violation->state); });
  return out;
}

StrictReplay replay_strict(const Subject& sc, std::span<const sim::Choice> schedule, uint64_t max_steps) {
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps});
  sim::ReplayStrategy s(std::vector<sim::Choice>(schedule.begin(), schedule.end()), sc.actor_names());
  StrictReplay out{run_one(engine, *compiled, s), std::nullopt};
  std::optional<std::string> why;
  size_t at = schedule.size();
  if (s.divergence()) {
    why = *s.divergence();
    at = s.divergence_choice().value_or(at);
  } else if (!s.consumed_all() && out.result.order_blocked) {
    why = fmt::format(
        "choice {}: the order blocked the execution at step {} (the steps after it ran out without the order, "
        "taking no choice), but the schedule goes on",
        s.position(), out.result.order_blocked->step);
    at = s.position();
  } else if (!s.consumed_all()) {
    why = fmt::format("choice {}: the execution ended but the schedule goes on", s.position());
    at = s.position();
  }
  if (why) {
    // The step the diverging choice belonged to: actor choices before it (draws happen inside a step).
    uint64_t step = 0;
    for (size_t i = 0; i < at && i < schedule.size(); ++i) step += schedule[i].kind == sim::Choice::Actor;
    if (at < schedule.size() && schedule[at].kind == sim::Choice::Draw && step > 0) --step;
    out.divergence = Divergence{step, fmt::format("choice {}", at), "the schedule is followed", std::move(*why),
                                s.divergence_runnable()};
  }
  return out;
}

TraceReplay replay_trace(const Trace& t) {
  TraceReplay out;
  const std::vector<std::string> names = t.scenario->actor_names();
  const auto label_at = [&](uint64_t i) {
    return i < t.steps.size() ? step_label(t.steps[i]) : std::string("the end");
  };
  // Names to ids; an actor the scenario no longer has diverges at the step it was to take.
  std::vector<sim::Choice> schedule;
  uint64_t step = 0;
  for (const TraceChoice& c : t.choices) {
    if (c.draw) {
      schedule.push_back({sim::Choice::Draw, c.value});
      continue;
    }
    size_t id = 0;
    while (id < names.size() && names[id] != c.actor) ++id;
    if (id == names.size()) {
      out.divergence = Divergence{step,
                                  label_at(step),
                                  fmt::format("actor {} takes a step", c.actor),
                                  fmt::format("the scenario has no actor named {}", c.actor),
                                  {}};
      return out;
    }
    schedule.push_back({sim::Choice::Actor, id});
    ++step;
  }
  StrictReplay sr = replay_strict(*t.scenario, schedule, t.max_steps);
  out.result = std::move(sr.result);
  const std::vector<TraceStep> got = label_steps(out.result, names);
  const size_t common = std::min(got.size(), t.steps.size());
  size_t first = common;
  for (size_t i = 0; i < common && first == common; ++i)
    if (!(got[i] == t.steps[i])) first = i;
  if (sr.divergence && sr.divergence->step < first && sr.divergence->step < t.steps.size()) {
    const uint64_t i = sr.divergence->step;
    const std::string& why = sr.divergence->actual;
    out.divergence =
        Divergence{i, label_at(i), describe(t.steps[i]),
                   i < got.size() ? fmt::format("{} ({})", describe(got[i]), why) : why, sr.divergence->runnable};
  } else if (first < common) {
    // Two steps can differ in their preemption mark alone, which describe() leaves out: then it is what to show.
    std::string expected = describe(t.steps[first]), did = describe(got[first]);
    if (expected == did) {
      expected += t.steps[first].preemption ? " (a preemption)" : " (no preemption)";
      did += got[first].preemption ? " (a preemption)" : " (no preemption)";
    }
    out.divergence = Divergence{first, label_at(first), std::move(expected), std::move(did), {}};
  } else if (got.size() != t.steps.size()) {
    out.divergence = got.size() < t.steps.size()
                         ? Divergence{common, label_at(common), describe(t.steps[common]), describe_end(out.result), {}}
                         : Divergence{common, "the end", describe_end(t), describe(got[common]), {}};
  } else {
    const bool same_violation = out.result.violation.has_value() == t.violation.has_value() &&
                                (!t.violation || (out.result.violation->invariant == t.violation->invariant &&
                                                  out.result.violation->message == t.violation->message));
    const std::string fp = fmt::format("{:016x}", out.result.fingerprint());
    if (!same_violation)
      out.divergence = Divergence{common, "the end", describe_end(t), describe_end(out.result), {}};
    else if (fp != t.fingerprint)
      out.divergence = Divergence{common, "the end", "fingerprint " + t.fingerprint, "fingerprint " + fp, {}};
    else if (sr.divergence)
      out.divergence = Divergence{common, "the end", "the schedule is followed to its end", sr.divergence->actual,
                                  sr.divergence->runnable};
  }
  if (!out.divergence) out.state_before = state_before_last_step(*t.scenario, out.result, t.max_steps);
  return out;
}

}  // namespace allocsim::campaign

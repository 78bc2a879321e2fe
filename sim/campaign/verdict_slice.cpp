// Check 3 of the verdict self-check (verdict_check.h): the explanation of a trace against the execution it
// explains. Three questions, each answered without reading explain.cpp's own graph:
//   - does it explain the trace's violation (an explanation at all, its summary naming the invariant, the
//     execution it analyses violating that invariant)?
//   - is its causal slice closed: the violating step(s) and, transitively, every step they depend on by
//     explain.h's rule (program order; two steps of different actors touching one object, one writing it,
//     Sync objects left out, the View object only into a violating step), computed here from the footprints
//     by a backward search;
//   - is it enough: the slice's steps alone, in their order, break the same invariant. The steps left out are
//     the ones the violation does not depend on, so leaving them out must not change what the kept steps do.
//     Locks carry no state and are left out of the dependencies (explain.h), so the run keeps, in their
//     places, the left-out steps that are quiet (quiet_steps, verdict_check.h: they write no state and do not
//     end holding a lock they did not hold before, so they cannot change what the invariant sees, and they
//     hand locks over as the execution did); a lock wait may still vanish or appear. A left-out step that ends
//     holding a new lock does not run: its release may be in a step that writes state, and the slice, which
//     does not need the lock taken, would find it held for good.
//     A left-out step that writes state never runs: the violation must not need it. The scenario's `order` is
//     taken away for this run: it could only hold back a step the run chose (a constraint on a lock wait that
//     no longer happens, say).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "sim/campaign/run.h"
#include "sim/campaign/verdict_check.h"
#include "sim/shrink.h"

namespace allocsim::campaign {

namespace {

/// The violating step(s): the last step, or at quiescence the last step of every actor (explain.h, 3).
std::vector<uint64_t> violating_steps(const sim::ExecutionResult& r) {
  if (r.steps.empty()) return {};
  if (r.violation_actor) return {r.steps.size() - 1};
  std::map<sim::ActorId, uint64_t> last;
  for (uint64_t i = 0; i < r.steps.size(); ++i) last[r.steps[i].actor] = i;
  std::vector<uint64_t> out;
  for (const auto& [a, i] : last) out.push_back(i);
  std::sort(out.begin(), out.end());
  return out;
}

/// The steps the violating steps depend on, transitively (see the file comment), with for each the step
/// that needs it and the object words of their conflict ("" for program order).
struct Needed {
  std::map<uint64_t, std::pair<uint64_t, std::string>> why;  // step -> (the step that needs it, on what)
  std::set<uint64_t> steps;
  std::map<uint64_t, ObjectName::Role> roles;  // every object touched
};

Needed needed_steps(const Subject& sc, const sim::ExecutionResult& r, const std::vector<uint64_t>& sinks) {
  std::vector<std::string> details;
  for (const sim::StepRecord& s : r.steps) details.push_back(s.detail);
  std::map<uint64_t, ObjectName> names;
  for (const sim::StepRecord& s : r.steps)
    for (const sim::Access& a : s.footprint)
      if (!names.count(a.object)) names.emplace(a.object, sc.name_object(a.object, details));
  const std::set<uint64_t> sink(sinks.begin(), sinks.end());
  // The first object two steps conflict on, in words; nullopt when they do not.
  const auto conflict = [&](uint64_t i, uint64_t j) -> std::optional<std::string> {
    for (const sim::Access& a : r.steps[i].footprint)
      for (const sim::Access& b : r.steps[j].footprint) {
        if (a.object != b.object || !(a.write || b.write)) continue;
        const ObjectName& n = names.at(a.object);
        if (n.role == ObjectName::Sync || (n.role == ObjectName::View && !sink.count(j))) continue;
        return n.words;
      }
    return std::nullopt;
  };
  Needed out;
  for (const auto& [object, n] : names) out.roles[object] = n.role;
  std::vector<uint64_t> work(sinks.begin(), sinks.end());
  out.steps.insert(sinks.begin(), sinks.end());
  while (!work.empty()) {
    const uint64_t j = work.back();
    work.pop_back();
    for (uint64_t i = 0; i < j; ++i) {
      if (out.steps.count(i)) continue;
      std::optional<std::string> on;
      if (r.steps[i].actor == r.steps[j].actor)
        on = "";
      else
        on = conflict(i, j);
      if (!on) continue;
      out.steps.insert(i);
      out.why[i] = {j, *on};
      work.push_back(i);
    }
  }
  return out;
}

/// Runs the slice's steps, and the left-out steps that are `quiet` (quiet_steps), in the execution's order (see the file comment). A quiet step cannot change what the invariant sees;
/// keeping it keeps the lock hand-overs the execution had. Choices: the next such step's actor when it is
/// runnable at that step's point; a lock wait the execution had and this run does not is passed over, one this
/// run has and the execution did not is let through. A kept step of the slice that cannot be taken ends the run
/// (stuck); a left-out one is dropped, with the rest of its actor's. Draws: each actor's own, in its order.
class SliceReplay final : public sim::Strategy {
 public:
  SliceReplay(const sim::ExecutionResult& r, const std::vector<uint64_t>& slice, const std::vector<std::string>& names,
              const std::vector<bool>& quiet)
      : r_(r), names_(names), in_slice_(r.steps.size(), false) {
    for (uint64_t k : slice)
      if (k < r.steps.size()) in_slice_[k] = true;
    for (uint64_t k = 0; k < r.steps.size(); ++k)
      if (in_slice_[k] || quiet[k]) targets_.push_back(k);
    // Steps by their recorded actor, not by the schedule's actor choices: an order-blocked execution's run-out
    // (docs/DESIGN.md §2) takes steps that the schedule does not record.
    for (uint64_t k = 0; k < r.steps.size(); ++k) {
      const sim::ActorId a = r.steps[k].actor;
      grow(a);
      pos_in_actor_.push_back(steps_of_[a].size());
      steps_of_[a].push_back(k);
    }
    sim::ActorId actor = sim::kNoActor;
    for (const sim::Choice& c : r.schedule) {
      if (c.kind == sim::Choice::Actor) {
        actor = static_cast<sim::ActorId>(c.value);
      } else if (actor == sim::kNoActor) {
        prologue_draws_.push_back(c.value);
      } else {
        grow(actor);
        draws_of_[actor].push_back(c.value);
      }
    }
  }
  void begin_execution(uint64_t) override {}
  sim::ActorId choose(std::span<const sim::Candidate> runnable, sim::ActorId) override;
  uint64_t draw(uint64_t bound) override {
    std::vector<uint64_t>& q = current_ == sim::kNoActor ? prologue_draws_ : draws_of_[current_];
    size_t& at = current_ == sim::kNoActor ? prologue_at_ : draw_at_[current_];
    const uint64_t v = at < q.size() ? q[at] : 0;
    ++at;
    return v < bound ? v : 0;
  }
  bool end_execution(const sim::ExecutionResult&) override { return false; }

  /// Every step of the slice was taken.
  bool all_taken() const { return next_ == targets_.size() && stuck_.empty(); }
  const std::string& stuck() const { return stuck_; }

 private:
  void grow(sim::ActorId a) {
    if (a >= steps_of_.size()) steps_of_.resize(a + 1), draws_of_.resize(a + 1), draw_at_.resize(a + 1);
    if (a >= taken_.size()) taken_.resize(a + 1, 0), dropped_.resize(a + 1, false);
  }
  bool at(const sim::Candidate& c, uint64_t k) const {
    return c.kind == r_.steps[k].kind && c.what == r_.steps[k].what;
  }
  std::string label(uint64_t k) const {
    const sim::ActorId a = r_.steps[k].actor;
    return fmt::format("step {} ({} at {})", k, a < names_.size() ? names_[a] : std::to_string(a), r_.steps[k].what);
  }
  sim::ActorId take(sim::ActorId a) { return current_ = a; }
  sim::ActorId give_up(std::string why) {
    stuck_ = std::move(why);
    return sim::kAbandon;
  }
  /// Whether actor `a`, at a lock wait now, waits where the execution did not.
  bool extra_wait(sim::ActorId a) const {
    return taken_[a] >= steps_of_[a].size() || r_.steps[steps_of_[a][taken_[a]]].kind != sim::PointKind::LockWait;
  }

  const sim::ExecutionResult& r_;
  const std::vector<std::string>& names_;
  std::vector<bool> in_slice_;
  std::vector<uint64_t> targets_;                // the slice's steps and the left-out quiet ones
  std::vector<size_t> pos_in_actor_;             // step -> its position among its actor's steps
  std::vector<std::vector<uint64_t>> steps_of_;  // actor -> its steps, in order
  std::vector<size_t> taken_;                    // actor -> how many of its steps this run has taken
  std::vector<bool> dropped_;                    // actor -> a left-out step of it could not be taken
  std::vector<std::vector<uint64_t>> draws_of_;
  std::vector<size_t> draw_at_;
  std::vector<uint64_t> prologue_draws_;
  size_t prologue_at_ = 0, next_ = 0;
  sim::ActorId current_ = sim::kNoActor;
  std::string stuck_;
};

sim::ActorId SliceReplay::choose(std::span<const sim::Candidate> runnable, sim::ActorId) {
  while (next_ < targets_.size()) {
    const uint64_t t = targets_[next_];
    const sim::ActorId a = r_.steps[t].actor;
    grow(a);
    if (taken_[a] > pos_in_actor_[t] || (!in_slice_[t] && dropped_[a])) {  // passed over, or its actor dropped
      ++next_;
      continue;
    }
    const auto c =
        std::find_if(runnable.begin(), runnable.end(), [&](const sim::Candidate& x) { return x.actor == a; });
    const uint64_t k = steps_of_[a][taken_[a]];  // <= t: the actor's next step of the execution
    if (c != runnable.end() && k == t && at(*c, k)) {
      ++taken_[a];
      ++next_;
      return take(a);
    }
    if (c != runnable.end() && r_.steps[k].kind == sim::PointKind::LockWait && !at(*c, k)) {
      ++taken_[a];  // the execution waited for a lock here; this run did not
      continue;
    }
    if (c != runnable.end() && c->kind == sim::PointKind::LockWait) return take(a);  // waits where it did not
    if (!in_slice_[t]) {  // a left-out step that cannot be taken: leave the rest of its actor out too
      dropped_[a] = true;
      ++next_;
      continue;
    }
    if (k != t) return give_up(fmt::format("{} comes before {} but is not in the slice", label(k), label(t)));
    if (c == runnable.end()) return give_up(fmt::format("{} cannot run (it waits for a lock)", label(t)));
    return give_up(fmt::format("{} is at {} where the execution had {}", names_.at(a), c->what, label(k)));
  }
  // Every step ran and no violation has fired: a kept step may have stopped at a lock wait the execution did not
  // have; let it retry.
  for (const sim::Candidate& x : runnable)
    if (x.kind == sim::PointKind::LockWait && extra_wait(x.actor)) return take(x.actor);
  return sim::kAbandon;
}

}  // namespace

std::vector<bool> quiet_steps(const sim::ExecutionResult& r, const std::map<uint64_t, ObjectName::Role>& roles) {
  std::vector<bool> quiet;
  std::map<std::pair<sim::ActorId, uint64_t>, bool> holds;  // (actor, lock) -> held after its last step so far
  for (const sim::StepRecord& st : r.steps) {
    bool q = true;
    for (const sim::Access& a : st.footprint) {
      if (roles.at(a.object) != ObjectName::Sync) {
        q = q && !a.write;
        continue;
      }
      const bool held_before = std::exchange(holds[{st.actor, a.object}], a.held);
      q = q && !(a.held && !held_before);
    }
    quiet.push_back(q);
  }
  // A try at a lock runs only with its retry: where the holder does not run, the wait vanishes and the try
  // goes on to do what the retry did.
  std::map<sim::ActorId, size_t> next;  // actor -> its next step, scanning backwards
  for (size_t k = r.steps.size(); k-- > 0;) {
    const auto it = next.find(r.steps[k].actor);
    if (it != next.end() && r.steps[it->second].kind == sim::PointKind::LockWait)
      quiet[k] = quiet[k] && quiet[it->second];
    next[r.steps[k].actor] = k;
  }
  return quiet;
}

std::vector<std::pair<std::string, std::string>> check_explanation(const Subject& sc,
                                                                   std::span<const sim::Choice> schedule,
                                                                   uint64_t max_steps, const std::string& inv,
                                                                   const std::optional<Explanation>& e) {
  // The execution explain analyses (explain.h, 1): the schedule re-run leniently, footprints recorded.
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = true});
  sim::LenientReplayStrategy lenient(schedule);
  const sim::ExecutionResult r = run_one(engine, *compiled, lenient);
  const std::string got = r.violation ? r.violation->invariant : std::string("no invariant");
  if (!e) {
    if (r.steps.size() > kMaxExplainSteps) return {};  // explain's documented limit: not a verdict
    return {{"explain-invariant",
             fmt::format("trace explain says the trace violates no invariant; replayed, it violates {}", inv)}};
  }
  if (got != inv)
    return {
        {"explain-invariant", fmt::format("the execution trace explain analyses violates {}, the trace {}", got, inv)}};
  std::vector<std::pair<std::string, std::string>> out;
  if (e->summary.find(inv) == std::string::npos)
    out.emplace_back("explain-invariant",
                     fmt::format("the explanation's summary does not name {}: \"{}\"", inv, e->summary));
  const std::vector<std::string> names = sc.actor_names();
  const std::vector<std::string> labels = step_labels(r, names);
  const std::set<uint64_t> slice(e->slice.begin(), e->slice.end());
  const std::vector<uint64_t> sinks = violating_steps(r);
  const Needed need = needed_steps(sc, r, sinks);
  for (uint64_t i : need.steps) {
    if (slice.count(i)) continue;
    const auto it = need.why.find(i);
    out.emplace_back(
        "explain-slice",
        it == need.why.end()
            ? fmt::format("the causal slice ({} of {} steps) leaves out the violating step {} ({})", slice.size(),
                          r.steps.size(), i, labels[i])
            : fmt::format("the causal slice ({} of {} steps) leaves out step {} ({}), which step {} ({}) depends on "
                          "({})",
                          slice.size(), r.steps.size(), i, labels[i], it->second.first, labels[it->second.first],
                          it->second.second.empty() ? "program order" : "both touch " + it->second.second));
    break;  // the first one says enough
  }
  // Enough: the slice's steps alone break the invariant.
  const std::vector<bool> quiet = quiet_steps(r, need.roles);
  sim::Engine plain(sim::EngineOptions{.max_steps = max_steps});
  SliceReplay only(r, e->slice, names, quiet);
  only.begin_execution(0);
  // The slice run picks every step itself: the scenario's order could only hold a step back (a constraint on a
  // lock wait that this run does not have, say).
  WithoutOrder world(compiled->make_world());
  const sim::ExecutionResult s = plain.run(world, only);
  const std::string steps = fmt::format("the causal slice's {} steps alone", e->slice.size());
  if (!only.stuck().empty())
    out.emplace_back("explain-slice-replay", fmt::format("{} cannot be run: {}", steps, only.stuck()));
  else if (s.violation && (s.violation->invariant != inv || !only.all_taken()))
    out.emplace_back("explain-slice-replay", fmt::format("{} break {} after {} steps, not {} after the slice's last",
                                                         steps, s.violation->invariant, s.steps.size(), inv));
  else if (s.order_blocked)
    out.emplace_back("explain-slice-replay", fmt::format("{} end order-blocked: {}", steps, s.order_blocked->message));
  else if (!s.violation)
    out.emplace_back("explain-slice-replay", fmt::format("{} do not break {}", steps, inv));
  return out;
}

}  // namespace allocsim::campaign

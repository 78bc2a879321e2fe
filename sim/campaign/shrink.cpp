#include "sim/campaign/shrink.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "sim/campaign/run.h"
#include "sim/campaign/trace_replay.h"
#include "sim/shrink.h"

namespace allocsim::campaign {

namespace {

// `schedule` without actor `index`, its choices dropped (`into` unset) or given to actor `into` (an index before
// the removal); later actor ids shifted down by one.
std::vector<sim::Choice> remove_actor(std::span<const sim::Choice> schedule, size_t index, std::optional<size_t> into) {
  std::vector<sim::Choice> out;
  for (sim::Choice c : schedule) {
    if (c.kind == sim::Choice::Actor && c.value == index) {
      if (!into) continue;
      c.value = *into > index ? *into - 1 : *into;
    } else if (c.kind == sim::Choice::Actor && c.value > index) {
      --c.value;
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::vector<sim::Choice> schedule_without_actor(std::span<const sim::Choice> schedule, size_t index) {
  return remove_actor(schedule, index, std::nullopt);
}

std::vector<sim::Choice> schedule_merging_actor(std::span<const sim::Choice> schedule, size_t index, size_t into) {
  return remove_actor(schedule, index, into);
}

namespace {

class Shrinker {
 public:
  // `invariant`: the one start violates (passed in: GCC 12 cannot see that start.violation is engaged).
  Shrinker(SubjectPtr sc, sim::ExecutionResult start, std::string invariant, const ShrinkOptions& opt)
      : opt_(opt),
        budget_(opt.max_runs, opt.max_seconds),
        sc_(std::move(sc)),
        cur_(std::move(start)),
        invariant_(std::move(invariant)),
        world_(by_world(*sc_, cur_)) {}

  ShrinkResult run() {
    bool need_search = true;
    while (!budget_.exhausted()) {
      const bool scenario_changed = scenario_pass();
      const bool schedule_changed = schedule_pass();
      if (budget_.exhausted()) break;
      need_search |= scenario_changed;
      if (need_search) {
        // A new schedule may make another actor or op removable: always look again after a search.
        search();
        need_search = false;
        continue;
      }
      if (scenario_changed || schedule_changed) continue;
      // Plainer forms last, once nothing else shrinks: tried earlier, a plainer op can change the schedule's
      // shape so that ops which would have gone must stay (a smaller scenario of a worse kind). A kept one sends
      // the passes round again.
      if (!simplify_pass()) break;
      need_search = true;
    }
    ShrinkResult out;
    out.scenario = std::move(sc_);
    out.result = std::move(cur_);
    out.runs = budget_.runs();
    out.budget_exhausted = budget_.exhausted();
    out.out_of_time = budget_.out_of_time();
    out.preemptions_minimal = minimal_ && !budget_.exhausted();
    return out;
  }

 private:
  // Whether `r` broke at a write of the world (Subject::world_write, explain.h's kind "world").
  static bool by_world(const Subject& sc, const sim::ExecutionResult& r) { return broken_by_world(sc, r); }

  // The same finding: the same invariant, broken the same way. A violation the protocol caused must not shrink
  // into one a foreign write causes by itself (a relabel under a live claim breaks capacity at once: smaller,
  // but a fact of the world, not the protocol's flaw), nor the other way round.
  bool same(const Subject& sc, const sim::ExecutionResult& r) const {
    return r.violation && r.violation->invariant == invariant_ && by_world(sc, r) == world_;
  }

  // One candidate run; the result when it is still the same finding.
  std::optional<sim::ExecutionResult> attempt(const Subject& sc, std::span<const sim::Choice> schedule) {
    if (!budget_.take()) return std::nullopt;
    sim::ExecutionResult r = run_lenient(sc, schedule, *opt_.max_steps);
    if (same(sc, r)) return r;
    return std::nullopt;
  }

  static bool better(const sim::ExecutionResult& a, const sim::ExecutionResult& b) {
    return std::make_tuple(a.preemptions, a.steps.size()) < std::make_tuple(b.preemptions, b.steps.size());
  }

  void commit_scenario(SubjectPtr sc, sim::ExecutionResult r) {
    sc_ = std::move(sc);
    cur_ = std::move(r);
    minimal_ = false;  // a smaller scenario may need fewer preemptions
  }

  bool scenario_pass() {
    bool any = false;
    for (bool changed = true; changed && !budget_.exhausted();) {
      changed = false;
      for (size_t a = 0; a < sc_->actor_names().size();) {
        SubjectPtr c = sc_->without_actor(a);
        std::optional<sim::ExecutionResult> r;
        if (c) r = attempt(*c, schedule_without_actor(cur_.schedule, a));
        if (r)
          commit_scenario(std::move(c), std::move(*r)), changed = any = true;
        else
          ++a;
      }
      for (size_t a = 0; a < sc_->actor_names().size(); ++a)
        for (size_t k = 0; k < sc_->ops_of(a);) {
          SubjectPtr c = sc_->without_op(a, k);
          if (auto r = attempt(*c, cur_.schedule))
            commit_scenario(std::move(c), std::move(*r)), changed = any = true;
          else
            ++k;
        }
      for (size_t i = 0; i < cur_.schedule.size(); ++i) {
        if (cur_.schedule[i].kind != sim::Choice::Draw || cur_.schedule[i].value == 0) continue;
        std::vector<sim::Choice> s = cur_.schedule;
        s[i].value = 0;
        if (auto r = attempt(*sc_, s)) cur_ = std::move(*r), minimal_ = false, changed = any = true;
      }
    }
    return any;
  }

  // The plainer forms (Subject::simplified) that keep the finding; whether any was kept. A kept one leaves k
  // for the next.
  bool simplify_pass() {
    bool any = false;
    for (size_t k = 0; !budget_.exhausted();) {
      std::optional<Subject::Simplified> c = sc_->simplified(k);
      if (!c) break;
      // A dropped actor's steps run, if anywhere, where its choices go: first to the actor that takes its work
      // over, at the points they were (a write-behind that landed early lands early), then nowhere.
      std::vector<std::vector<sim::Choice>> schedules;
      if (!c->dropped_actor)
        schedules.push_back(cur_.schedule);
      else {
        if (c->choices_to)
          schedules.push_back(schedule_merging_actor(cur_.schedule, *c->dropped_actor, *c->choices_to));
        schedules.push_back(schedule_without_actor(cur_.schedule, *c->dropped_actor));
      }
      std::optional<sim::ExecutionResult> r;
      for (size_t i = 0; i < schedules.size() && !r; ++i) r = attempt(*c->subject, schedules[i]);
      if (r)
        commit_scenario(std::move(c->subject), std::move(*r)), any = true;
      else
        ++k;
    }
    return any;
  }

  // One improving schedule edit, or false.
  bool schedule_step() {
    const auto& s = cur_.schedule;
    for (size_t len = 0; len < s.size(); ++len) {  // the shortest prefix that still fails
      auto r = attempt(*sc_, std::span(s).first(len));
      if (r && better(*r, cur_)) return cur_ = std::move(*r), true;
    }
    for (size_t p : sim::preemption_choices(cur_)) {  // let the running actor continue instead
      std::vector<sim::Choice> c = s;
      for (size_t i = p; i-- > 0;)
        if (s[i].kind == sim::Choice::Actor) {
          c[p].value = s[i].value;
          break;
        }
      auto r = attempt(*sc_, c);
      if (r && better(*r, cur_)) return cur_ = std::move(*r), true;
    }
    for (size_t i = 0; i < s.size(); ++i) {  // one choice fewer
      std::vector<sim::Choice> c = s;
      c.erase(c.begin() + static_cast<std::ptrdiff_t>(i));
      auto r = attempt(*sc_, c);
      if (r && better(*r, cur_)) return cur_ = std::move(*r), true;
    }
    return false;
  }

  bool schedule_pass() {
    bool any = false;
    while (!budget_.exhausted() && schedule_step()) any = true;
    return any;
  }

  void search() {
    const std::unique_ptr<Compiled> compiled = sc_->compile({});
    sim::Engine engine(sim::EngineOptions{.max_steps = *opt_.max_steps});
    const sim::RunOnce run = [&](sim::Strategy& s) { return run_one(engine, *compiled, s); };
    const sim::Accept accept = [&](const sim::ExecutionResult& r) { return same(*sc_, r); };
    std::vector<uint64_t> draws;
    for (const sim::Choice& c : cur_.schedule)
      if (c.kind == sim::Choice::Draw) draws.push_back(c.value);
    sim::PreemptionSearch found = sim::search_min_preemptions(run, accept, draws, cur_.preemptions, budget_);
    if (found.found) cur_ = std::move(*found.found);
    minimal_ = found.complete;
  }

  const ShrinkOptions& opt_;
  sim::RunBudget budget_;
  SubjectPtr sc_;
  sim::ExecutionResult cur_;
  std::string invariant_;
  bool world_;  // the start broke at a write of the world (by_world)
  bool minimal_ = false;
};

}  // namespace

ShrinkResult shrink(const System& system, const SubjectPtr& scenario, std::span<const sim::Choice> schedule,
                    const ShrinkOptions& given) {
  ShrinkOptions options = given;  // the Shrinker reads *max_steps: resolve it once, here
  options.max_steps = scenario->max_steps(given.max_steps);
  sim::ExecutionResult start = run_lenient(*scenario, schedule, *options.max_steps);
  if (!start.violation)
    throw std::invalid_argument("the schedule's execution violates no invariant: nothing to shrink");
  std::string invariant = start.violation->invariant;
  ShrinkResult out = Shrinker(scenario, std::move(start), std::move(invariant), options).run();
  // What the trace embeds is the scenario as JSON: run exactly that, so replaying the file gives these bytes.
  out.scenario = system.parse(out.scenario->to_json().dump(), scenario->path(), scenario->path(), scenario->digest());
  out.result = run_lenient(*out.scenario, out.result.schedule, *options.max_steps);
  return out;
}

}  // namespace allocsim::campaign

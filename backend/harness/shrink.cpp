#include "backend/harness/shrink.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "backend/harness/conditional_ops.h"
#include "backend/harness/scenario_json.h"
#include "backend/harness/trace_replay.h"
#include "backend/harness/world.h"
#include "sim/shrink.h"

namespace allocsim::harness {

size_t op_count(const Scenario& sc) {
  size_t n = 0;
  for (const ActorSpec& a : sc.actors) n += a.script.size();
  return n;
}

namespace {

// Drops expect.actors entries for ops an actor no longer has (the loader rejects them).
void prune_expect(Scenario& sc) {
  auto& actors = sc.expect.actors;
  for (size_t i = 0; i < actors.size();) {
    const ActorSpec* spec = nullptr;
    for (const ActorSpec& a : sc.actors)
      if (a.name == actors[i].first) spec = &a;
    auto& ops = actors[i].second;
    for (size_t k = 0; spec && k < ops.size();) {
      bool present = false;
      for (const Op& op : spec->script) present |= ops[k].first == op_name(op.kind);
      if (present)
        ++k;
      else
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(k));
    }
    if (spec && !ops.empty())
      ++i;
    else
      actors.erase(actors.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace

std::optional<Scenario> without_actor(const Scenario& sc, size_t index) {
  if (sc.actors.size() <= 1) return std::nullopt;
  const std::string& name = sc.actors[index].name;
  for (size_t a = 0; a < sc.actors.size(); ++a)
    for (const Op& op : sc.actors[a].script)
      if (a != index && ((op.plan_from && *op.plan_from == name) || (op.kind == OpKind::Recover && op.flow == name)))
        return std::nullopt;  // another actor's op names it
  // faults.actors: the name leaves the list. Dropping its only entry would make every actor eligible, so an
  // actor that still has ops stays. One without ops makes no call, so no fault can strike anywhere: the
  // faults go with it (an empty script column in a minimal trace is noise).
  auto& eligible = sc.faults.actors;
  const auto listed = std::find(eligible.begin(), eligible.end(), name);
  const bool only_eligible = listed != eligible.end() && eligible.size() == 1;
  if (only_eligible && !sc.actors[index].script.empty()) return std::nullopt;
  Scenario out = sc;
  out.actors.erase(out.actors.begin() + static_cast<std::ptrdiff_t>(index));
  if (only_eligible)
    out.faults = FaultSpec{};
  else
    std::erase(out.faults.actors, name);
  prune_expect(out);
  return out;
}

Scenario without_op(const Scenario& sc, size_t actor, size_t op) {
  Scenario out = sc;
  auto& script = out.actors[actor].script;
  script.erase(script.begin() + static_cast<std::ptrdiff_t>(op));
  reindex_conditions(out, actor, op);  // `when` indices (conditional_ops.h)
  prune_expect(out);
  return out;
}

std::vector<sim::Choice> schedule_without_actor(std::span<const sim::Choice> schedule, size_t index) {
  std::vector<sim::Choice> out;
  for (sim::Choice c : schedule) {
    if (c.kind == sim::Choice::Actor) {
      if (c.value == index) continue;
      if (c.value > index) --c.value;
    }
    out.push_back(c);
  }
  return out;
}

namespace {

class Shrinker {
 public:
  Shrinker(const Scenario& sc, sim::ExecutionResult start, const ShrinkOptions& opt)
      : opt_(opt),
        budget_(opt.max_runs, opt.max_seconds),
        sc_(sc),
        cur_(std::move(start)),
        invariant_(cur_.violation->invariant) {}

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
      if (!scenario_changed && !schedule_changed) break;
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
  // One candidate run; the result when it still violates the same invariant.
  std::optional<sim::ExecutionResult> attempt(const Scenario& sc, std::span<const sim::Choice> schedule) {
    if (!budget_.take()) return std::nullopt;
    sim::ExecutionResult r = run_lenient(sc, schedule, *opt_.max_steps);
    if (r.violation && r.violation->invariant == invariant_) return r;
    return std::nullopt;
  }

  static bool better(const sim::ExecutionResult& a, const sim::ExecutionResult& b) {
    return std::make_tuple(a.preemptions, a.steps.size()) < std::make_tuple(b.preemptions, b.steps.size());
  }

  void commit_scenario(Scenario sc, sim::ExecutionResult r) {
    sc_ = std::move(sc);
    cur_ = std::move(r);
    minimal_ = false;  // a smaller scenario may need fewer preemptions
  }

  bool scenario_pass() {
    bool any = false;
    for (bool changed = true; changed && !budget_.exhausted();) {
      changed = false;
      for (size_t a = 0; a < sc_.actors.size();) {
        std::optional<Scenario> c = without_actor(sc_, a);
        std::optional<sim::ExecutionResult> r;
        if (c) r = attempt(*c, schedule_without_actor(cur_.schedule, a));
        if (r)
          commit_scenario(std::move(*c), std::move(*r)), changed = any = true;
        else
          ++a;
      }
      for (size_t a = 0; a < sc_.actors.size(); ++a)
        for (size_t k = 0; k < sc_.actors[a].script.size();) {
          Scenario c = without_op(sc_, a, k);
          if (auto r = attempt(c, cur_.schedule))
            commit_scenario(std::move(c), std::move(*r)), changed = any = true;
          else
            ++k;
        }
      for (size_t i = 0; i < cur_.schedule.size(); ++i) {
        if (cur_.schedule[i].kind != sim::Choice::Draw || cur_.schedule[i].value == 0) continue;
        std::vector<sim::Choice> s = cur_.schedule;
        s[i].value = 0;
        if (auto r = attempt(sc_, s)) cur_ = std::move(*r), minimal_ = false, changed = any = true;
      }
    }
    return any;
  }

  // One improving schedule edit, or false.
  bool schedule_step() {
    const auto& s = cur_.schedule;
    for (size_t len = 0; len < s.size(); ++len) {  // the shortest prefix that still fails
      auto r = attempt(sc_, std::span(s).first(len));
      if (r && better(*r, cur_)) return cur_ = std::move(*r), true;
    }
    for (size_t p : sim::preemption_choices(cur_)) {  // let the running actor continue instead
      std::vector<sim::Choice> c = s;
      for (size_t i = p; i-- > 0;)
        if (s[i].kind == sim::Choice::Actor) {
          c[p].value = s[i].value;
          break;
        }
      auto r = attempt(sc_, c);
      if (r && better(*r, cur_)) return cur_ = std::move(*r), true;
    }
    for (size_t i = 0; i < s.size(); ++i) {  // one choice fewer
      std::vector<sim::Choice> c = s;
      c.erase(c.begin() + static_cast<std::ptrdiff_t>(i));
      auto r = attempt(sc_, c);
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
    auto compiled = compile(sc_, {});
    sim::Engine engine(sim::EngineOptions{.max_steps = *opt_.max_steps});
    const sim::RunOnce run = [&](sim::Strategy& s) {
      BackendWorld world(*compiled);
      return engine.run(world, s);
    };
    const sim::Accept accept = [&](const sim::ExecutionResult& r) {
      return r.violation && r.violation->invariant == invariant_;
    };
    std::vector<uint64_t> draws;
    for (const sim::Choice& c : cur_.schedule)
      if (c.kind == sim::Choice::Draw) draws.push_back(c.value);
    sim::PreemptionSearch found = sim::search_min_preemptions(run, accept, draws, cur_.preemptions, budget_);
    if (found.found) cur_ = std::move(*found.found);
    minimal_ = found.complete;
  }

  const ShrinkOptions& opt_;
  sim::RunBudget budget_;
  Scenario sc_;
  sim::ExecutionResult cur_;
  std::string invariant_;
  bool minimal_ = false;
};

}  // namespace

ShrinkResult shrink(const Scenario& scenario, std::span<const sim::Choice> schedule, const ShrinkOptions& given) {
  ShrinkOptions options = given;  // the Shrinker reads *max_steps: resolve it once, here
  options.max_steps = resolve_max_steps(scenario, given.max_steps);
  sim::ExecutionResult start = run_lenient(scenario, schedule, *options.max_steps);
  if (!start.violation)
    throw std::invalid_argument("the schedule's execution violates no invariant: nothing to shrink");
  ShrinkResult out = Shrinker(scenario, std::move(start), options).run();
  // What the trace embeds is the scenario as JSON: run exactly that, so replaying the file gives these bytes.
  Scenario reparsed = parse_scenario(scenario_to_json(out.scenario).dump(), scenario.path);
  reparsed.path = scenario.path;
  reparsed.digest = scenario.digest;
  out.scenario = std::move(reparsed);
  out.result = run_lenient(out.scenario, out.result.schedule, *options.max_steps);
  return out;
}

}  // namespace allocsim::harness

#include "sim/campaign/order_min.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/explorer.h"
#include "sim/strategies/dpor.h"
#include "sim/support/words.h"

namespace allocsim::campaign {

namespace {

/// A world of the trace's scenario whose executions follow `order` instead of the scenario's own.
class OrderedWorld final : public sim::World {
 public:
  OrderedWorld(std::unique_ptr<sim::World> inner, const sim::OrderSpec& order)
      : inner_(std::move(inner)), order_(order) {}
  size_t actor_count() const override { return inner_->actor_count(); }
  std::string_view actor_name(sim::ActorId id) const override { return inner_->actor_name(id); }
  void run_actor(sim::ActorId id, sim::ActorContext& ctx) override { inner_->run_actor(id, ctx); }
  std::optional<sim::Violation> check_step(uint64_t step, sim::ActorId actor) override {
    return inner_->check_step(step, actor);
  }
  std::optional<sim::Violation> check_quiescent() override { return inner_->check_quiescent(); }
  const sim::OrderSpec* order() const override { return &order_; }

 private:
  std::unique_ptr<sim::World> inner_;
  const sim::OrderSpec& order_;
};

sim::StepLabel label_of(const TraceStep& s, const std::vector<std::string>& actors) {
  const auto it = std::find(actors.begin(), actors.end(), s.actor);
  if (it == actors.end()) throw std::invalid_argument("trace step of an actor the scenario does not have: " + s.actor);
  return sim::StepLabel{static_cast<sim::ActorId>(it - actors.begin()), s.actor, s.point, s.occurrence};
}

}  // namespace

ForceCheck order_forces(const Compiled& compiled, const sim::OrderSpec& order, const std::string& invariant,
                        uint64_t max_steps, uint64_t budget) {
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = true});
  sim::DporStrategy dpor;
  ForceCheck c;
  bool all = true, some = false;
  const sim::ExploreSummary sum = sim::explore(
      engine, [&] { return std::make_unique<OrderedWorld>(compiled.make_world(), order); }, dpor,
      sim::ExploreOptions{.executions = budget, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) {
        // An order-blocked execution is a dead end the block leaves open: a strategy can walk into it, and its
        // run-out (sim/engine.h) need not violate, so such a block does not pin the violation.
        const bool hit = !r.order_blocked && r.violation && r.violation->invariant == invariant;
        all = all && hit;
        some = some || hit;
      });
  c.executions = sum.executions;
  c.over_budget = !dpor.exhausted() && !sum.single_schedule;
  c.forces = all && some && !c.over_budget;
  return c;
}

namespace {

/// The full pin of a run's steps, by their labels (see full_pin).
sim::OrderSpec full_pin_of(const std::vector<sim::StepLabel>& labels) {
  sim::OrderSpec spec;
  for (size_t k = 1; k < labels.size(); ++k)
    if (labels[k - 1].actor != labels[k].actor) spec.constraints.push_back({labels[k - 1], labels[k]});
  return spec;
}

/// Drops constraints of `order` (in order) while the rest still forces; `run` is the check.
template <class Run>
void minimise(sim::OrderSpec& order, Run&& run) {
  for (size_t k = 0; k < order.constraints.size();) {
    sim::OrderSpec candidate = order;
    candidate.constraints.erase(candidate.constraints.begin() + static_cast<std::ptrdiff_t>(k));
    if (run(candidate))
      order = std::move(candidate);
    else
      ++k;
  }
}

std::vector<std::pair<std::string, std::string>> as_pairs(const sim::OrderSpec& o) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& c : o.constraints) out.emplace_back(c.before.text(), c.after.text());
  return out;
}

/// What decides the violation besides the order: the steps whose draws took another value than 0 (a fault).
std::string draws_needed(const sim::ExecutionResult& r, const std::vector<std::string>& labels) {
  std::string steps;
  size_t step = 0;
  bool any = false;
  const auto flush = [&] {
    if (!any || step == 0 || step > labels.size()) return;
    const std::string& detail = r.steps[step - 1].detail;
    steps += fmt::format("{}step {} ({}{}{})", steps.empty() ? "" : ", ", step - 1, labels[step - 1],
                         detail.empty() ? "" : ": ", detail);
  };
  for (const sim::Choice& c : r.schedule) {
    if (c.kind == sim::Choice::Actor) {
      flush();
      ++step, any = false;
    } else {
      any = any || c.value != 0;
    }
  }
  flush();
  return steps;
}

}  // namespace

Pin pin_violation(const Subject& subject, const sim::ExecutionResult& r,
                  const std::vector<std::pair<std::string, std::string>>& candidate, uint64_t max_steps,
                  uint64_t budget) {
  Pin out;
  if (!r.violation) return out;
  const std::unique_ptr<Compiled> compiled = subject.compile({});
  const std::vector<std::string> actors = subject.actor_names();
  const std::string& invariant = r.violation->invariant;
  // A block is pasted beside the scenario's own constraints, so it is checked with them: the union, read back
  // through the parser, which refuses labels of another scenario and a cycle (then it cannot force anything).
  const std::unique_ptr<sim::World> world = compiled->make_world();  // owns what order() may point into
  const sim::OrderSpec* own = world->order();
  const nlohmann::ordered_json own_block = own ? sim::order_json(*own) : nlohmann::ordered_json::array();
  const auto forces = [&](const nlohmann::ordered_json& block) {
    nlohmann::ordered_json both = own_block;
    for (const auto& c : block) both.push_back(c);
    sim::OrderSpec spec;
    try {
      spec = sim::parse_order(both, actors);
    } catch (const sim::OrderError&) {
      return false;
    }
    const ForceCheck c = order_forces(*compiled, spec, invariant, max_steps, budget);
    ++out.checks;
    out.executions += c.executions;
    return c.forces;
  };
  if (!candidate.empty()) {
    nlohmann::ordered_json block = nlohmann::ordered_json::array();
    for (const auto& [x, y] : candidate) block.push_back({x, y});
    if (forces(block)) {
      out.how = "pairs", out.order = candidate;
      return out;
    }
  }
  std::vector<sim::StepLabel> labels;
  std::map<std::pair<sim::ActorId, std::string_view>, uint32_t> seen;
  for (const sim::StepRecord& st : r.steps)
    labels.push_back(sim::StepLabel{st.actor, actors[st.actor], std::string(st.what), ++seen[{st.actor, st.what}]});
  std::vector<std::string> texts;
  for (const sim::StepLabel& l : labels) texts.push_back(l.text());
  sim::OrderSpec pin = full_pin_of(labels);
  const auto pin_forces = [&](const sim::OrderSpec& o) { return forces(sim::order_json(o)); };
  if (pin_forces(pin)) {
    minimise(pin, pin_forces);
    out.how = "minimised", out.order = as_pairs(pin);
    return out;
  }
  out.how = "none";
  if (r.order_blocked) {
    // The violation came in the run-out, after the scenario's own order blocked: no order that keeps the
    // scenario's own constraints reaches it.
    out.needs = fmt::format(
        "it broke after the scenario's own order blocked the execution at step {} (the steps after ran out without "
        "the order), so no block added to that order reaches it (replay the trace or its schedule instead)",
        r.order_blocked->step);
    return out;
  }
  const std::string draws = draws_needed(r, texts);
  out.needs = draws.empty() ? fmt::format(
                                  "even the full pin of the execution ({}) leaves executions that do not violate {} "
                                  "(or more than {} to check)",
                                  support::count_of(pin.constraints.size(), "constraint"), invariant,
                                  support::count_of(budget, "execution"))
                            : fmt::format(
                                  "it also needs the draws of {}, which an order cannot pin (replay the trace or its "
                                  "schedule instead)",
                                  draws);
  return out;
}

sim::OrderSpec full_pin(const Trace& t) {
  const std::vector<std::string> actors = t.scenario->actor_names();
  std::vector<sim::StepLabel> labels;
  for (const TraceStep& s : t.steps) labels.push_back(label_of(s, actors));
  return full_pin_of(labels);
}

MinimalOrder minimal_order(const Trace& t, uint64_t budget) {
  if (!t.violation || t.steps.empty()) throw std::invalid_argument("trace order: the trace has no violation to force");
  if (budget == 0) throw std::invalid_argument("trace order: the budget must be at least 1 execution");
  const std::unique_ptr<Compiled> compiled = t.scenario->compile({});
  MinimalOrder out;
  out.order = full_pin(t);
  out.full_pin = out.order.constraints.size();
  const auto run = [&](const sim::OrderSpec& o) {
    const ForceCheck c = order_forces(*compiled, o, t.violation->invariant, t.max_steps, budget);
    ++out.checks;
    out.executions += c.executions;
    out.over_budget += c.over_budget;
    return c.forces;
  };
  out.forces = run(out.order);
  if (out.forces) minimise(out.order, run);
  return out;
}

std::optional<sim::ExecutionResult> run_order_block(const Compiled& compiled, const std::vector<std::string>& actors,
                                                    const nlohmann::json& block, uint64_t max_steps, uint64_t budget) {
  sim::OrderSpec order;
  try {
    order = sim::parse_order(nlohmann::ordered_json::parse(block.dump()), actors);
  } catch (const sim::OrderError&) {
    return std::nullopt;  // the block names what the scenario no longer has: not a way to re-find it
  }
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = true});
  sim::DporStrategy dpor;
  std::optional<sim::ExecutionResult> violating, first;
  sim::explore(
      engine, [&] { return std::make_unique<OrderedWorld>(compiled.make_world(), order); }, dpor,
      sim::ExploreOptions{.executions = budget, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) {
        if (r.order_blocked) return;
        if (!first) first = r;
        if (r.violation && !violating) violating = r;
      });
  return violating ? violating : first;
}

}  // namespace allocsim::campaign

#include "sim/campaign/order_min.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "sim/explorer.h"
#include "sim/strategies/dpor.h"

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

struct Check {
  bool forces = false;
  bool over_budget = false;
  uint64_t executions = 0;
};

/// Whether every execution under `order` that is not order-blocked violates `invariant` (and one does),
/// exploring with DPOR up to `budget` executions.
Check check(const Compiled& compiled, const sim::OrderSpec& order, const std::string& invariant, uint64_t max_steps,
            uint64_t budget) {
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = true});
  sim::DporStrategy dpor;
  Check c;
  bool all = true, some = false;
  const sim::ExploreSummary sum = sim::explore(
      engine, [&] { return std::make_unique<OrderedWorld>(compiled.make_world(), order); }, dpor,
      sim::ExploreOptions{.executions = budget, .interruptible = false},
      [&](uint64_t, uint64_t, sim::World&, const sim::ExecutionResult& r) {
        if (r.order_blocked) return;
        const bool hit = r.violation && r.violation->invariant == invariant;
        all = all && hit;
        some = some || hit;
      });
  c.executions = sum.executions;
  c.over_budget = !dpor.exhausted() && !sum.single_schedule;
  c.forces = all && some && !c.over_budget;
  return c;
}

}  // namespace

sim::OrderSpec full_pin(const Trace& t) {
  const std::vector<std::string> actors = t.scenario->actor_names();
  sim::OrderSpec spec;
  for (size_t k = 1; k < t.steps.size(); ++k)
    if (t.steps[k - 1].actor != t.steps[k].actor)
      spec.constraints.push_back({label_of(t.steps[k - 1], actors), label_of(t.steps[k], actors)});
  return spec;
}

MinimalOrder minimal_order(const Trace& t, uint64_t budget) {
  if (!t.violation || t.steps.empty()) throw std::invalid_argument("trace order: the trace has no violation to force");
  if (budget == 0) throw std::invalid_argument("trace order: the budget must be at least 1 execution");
  const std::unique_ptr<Compiled> compiled = t.scenario->compile({});
  MinimalOrder out;
  out.order = full_pin(t);
  out.full_pin = out.order.constraints.size();
  const auto run = [&](const sim::OrderSpec& o) {
    const Check c = check(*compiled, o, t.violation->invariant, t.max_steps, budget);
    ++out.checks;
    out.executions += c.executions;
    out.over_budget += c.over_budget;
    return c.forces;
  };
  out.forces = run(out.order);
  if (!out.forces) return out;
  for (size_t k = 0; k < out.order.constraints.size();) {
    sim::OrderSpec candidate = out.order;
    candidate.constraints.erase(candidate.constraints.begin() + static_cast<std::ptrdiff_t>(k));
    if (run(candidate))
      out.order = std::move(candidate);
    else
      ++k;
  }
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

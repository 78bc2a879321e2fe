// The scenario-reducing half of the shrinker: the reductions the campaign shrinker (sim/campaign/shrink.h,
// which documents the passes and the budget) tries through ScenarioSubject (system.h). The shrinker bound to a
// Scenario, for tools and tests, is shrink.h.
#pragma once

#include <cstddef>
#include <optional>

#include "backend/scenario/scenario.h"

namespace allocsim::harness {

/// `scenario` without actor `index`: its expect.actors entry and its faults.actors entry go too. nullopt when
/// another actor's op names it (plan_from, recover's flow, a bind's claim: the scenario would not load), when it
/// is the only actor, or when it is the only entry of faults.actors and still has ops (else the faults go with it).
std::optional<Scenario> without_actor(const Scenario& scenario, size_t index);

/// `scenario` without op `op` of actor `actor`, and without every later op of that actor whose `when` names a
/// dropped op (a conditional op never outlives its condition); expect.actors pruned to the ops that remain.
Scenario without_op(const Scenario& scenario, size_t actor, size_t op);

/// A plainer `scenario` with the same ops: the k-th of its simplifications, in a fixed order (first each actor's
/// `owner`, in actor order: the actor acts as its own identity; then each op's `behind`, in actor and op order: the
/// op makes its write itself); nullopt past the last. A dropped `behind` takes its background actor with it:
/// `dropped_actor` is that actor's index in `scenario`, and `choices_to` its issuer's, which now makes the write. Expectations the plainer op can no longer meet (an
/// `issued` pin) go.
struct Simplification {
  Scenario scenario;
  std::optional<size_t> dropped_actor;
  std::optional<size_t> choices_to;
};
std::optional<Simplification> simplified(const Scenario& scenario, size_t k);

/// Number of ops over all scripts.
size_t op_count(const Scenario& scenario);

}  // namespace allocsim::harness

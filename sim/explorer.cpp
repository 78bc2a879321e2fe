#include "sim/explorer.h"

#include "sim/interrupt.h"
#include "sim/prng.h"

namespace allocsim::sim {

ExploreSummary explore(Engine& engine, const WorldFactory& make_world, Strategy& strategy,
                       const ExploreOptions& options, const ExecutionObserver& observe) {
  ExploreSummary sum;
  while (sum.executions < options.executions) {
    if (options.pause && options.pause(sum)) {
      sum.paused = true;
      break;
    }
    if (options.interruptible && interrupt_signal() != 0) {
      sum.interrupted = true;
      break;
    }
    const uint64_t i = options.first_index + sum.executions;
    const uint64_t seed = execution_seed(options.seed, i);
    strategy.begin_execution(seed);
    std::unique_ptr<World> world = make_world();
    const ExecutionResult& r = engine.execute(*world, strategy);  // the engine's storage, reused next time
    if (r.abandoned) {
      // A redundant prefix: it takes no index and reaches no observer, so numbering, fingerprints, tallies
      // and reports are those of the executions alone.
      ++sum.abandoned;
      if (!strategy.end_execution(r)) break;
      continue;
    }
    ++sum.executions;
    sum.steps += r.steps.size();
    if (observe) observe(i, seed, *world, r);
    const bool more = strategy.end_execution(r);
    if (r.order_blocked) {
      ++sum.order_blocked_executions;
      if (!sum.first_order_block) sum.first_order_block = r.order_blocked;
    }
    const bool single = r.single_schedule;
    sum.single_schedule |= single;
    if (r.violation) {
      ++sum.violating_executions;
      ++sum.violations_by_invariant[r.violation->invariant];
      if (!sum.first) sum.first = Finding{i, seed, r};
      if (options.stop_at_first_violation) break;
    }
    if (!more || single) break;
  }
  return sum;
}

}  // namespace allocsim::sim

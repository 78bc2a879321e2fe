#include "sim/strategies/random.h"

namespace allocsim::sim {

ActorId RandomStrategy::choose(std::span<const Candidate> runnable, ActorId) {
  // One draw even when only one actor can run, so that the draw sequence depends only on the number of
  // choices, not on how many were forced (keeps a seed's meaning stable when a scenario gains an actor).
  return runnable[prng_.below(runnable.size())].actor;
}

}  // namespace allocsim::sim

// Knuth's estimator of the size of a backtrack tree (D. E. Knuth, "Estimating the Efficiency of Backtrack
// Programs", Math. Comp. 29, 1975): walk one random root-to-leaf path; the product of the branching
// factors met on it is an unbiased estimate of the number of leaves (here: executions of plain DFS).
// Averaged over a few probes it is good enough for a progress line and an ETA; it is never used for a
// decision or a result. It estimates the unbounded, unreduced tree: an upper bound for DPOR and for a
// preemption-bounded DFS.
#pragma once

#include <cstdint>

#include "sim/explorer.h"

namespace allocsim::sim {

/// The mean of `probes` Knuth estimates of the number of DFS leaves of the world's tree. Probe i walks
/// uniformly at random with seed execution_seed(seed, i): deterministic. `engine` as for explore().
double estimate_leaves(Engine& engine, const WorldFactory& make_world, uint32_t probes, uint64_t seed = 0);

}  // namespace allocsim::sim

// Sleep sets across DPOR work units. A sweep splits a scenario's tree into the subtrees under the schedule
// prefixes of enumerate_prefixes() (sim/strategies/dfs.h) and runs DPOR under each prefix. Every prefix
// node is a plain-DFS choice, so without help each unit re-explores traces that a lexicographically earlier
// unit already covers (measured: 2-4x more executions than one unsplit DPOR on the alloc-033 scenarios).
//
// earlier_siblings() gives each prefix node the sleep-set entries an unsplit DPOR would have there: every
// runnable actor ordered before the prefix's own choice (enumerate_prefixes lists actor alternatives in
// ascending order, so those subtrees belong to earlier units), with the footprint of its step at that node,
// the union over every draw value inside the step. DporOptions::prefix_siblings seeds the unit's sleep sets
// with them. Sound by induction over the units in order: a trace a unit prunes because a sleeping sibling's
// step could go first has a linearization under an earlier unit's prefix (Godefroid's sleep-set theorem,
// applied at the prefix nodes). Checked by tests/sim/dpor_units.cpp: the units' traces together equal
// plain DFS's, on fixed worlds and on random lock-and-touch programs.
//
// Not for preemption-bounded DFS (its prefixes are not in ascending order and DPOR is not used there).
#pragma once

#include <vector>

#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/trace_equivalence.h"

namespace allocsim::sim {

/// A runnable actor at a prefix node and the footprint (canonical) of its step there, over all its draws.
struct SiblingStep {
  ActorId actor;
  Footprint footprint;
  bool operator==(const SiblingStep&) const = default;
};

/// For each position of `prefix` (as enumerate_prefixes() returns it, unbounded): at an actor choice, the
/// runnable actors with a smaller id than the choice, ascending, each with its step's footprint there; empty
/// at a draw. Runs 1 + (one per sibling and per combination of draw values inside its step) executions.
/// `options` gives the step limit; footprints are recorded whatever it says. Throws std::logic_error when
/// `prefix` does not fit the world (a nondeterministic world).
std::vector<std::vector<SiblingStep>> earlier_siblings(const EngineOptions& options, const WorldFactory& make_world,
                                                       const std::vector<Choice>& prefix);

}  // namespace allocsim::sim

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
// Skipping an asleep unit. When the unit's own choice at a prefix node k is asleep there (an earlier
// sibling a at node m <= k, independent of the steps chosen at m..k-1, and the unit chooses a at k), every
// schedule under the prefix is P x_m..x_{k-1} a R ~ P a x_m..x_{k-1} R, under an earlier unit (a at m); so is
// every schedule when all actors runnable right after the prefix are asleep there (a is whichever of them
// goes next). The
// sweep then runs no execution for the unit (UnitSleep::asleep), where it used to run one, sleep-set
// blocked, whose trace the earlier unit sees anyway. That execution cannot be the only one to meet a
// violation, for two reasons. (1) What the invariants check after a step depends only on the writes to
// objects they read, and every such write also writes one shared object (the visibility condition,
// docs/DESIGN.md §2), so those writes are totally ordered, in the same order, in every linearization of a
// trace; the checked state after the i-th of them is the same in all, and properties of what an actor was
// told depend on its own step and what happens before it. Swapping a forward over the independent
// x_m..x_{k-1} therefore shows the invariants the same sequence of checked states: the equivalent schedule
// under the earlier unit meets the same first violation at the same visible write (or an earlier one
// in the same state, which this unit's schedule would have met first). (2) Unsplit DPOR never enters such
// a subtree at all (advance() skips a sleeping actor), and it is checked against plain DFS on the violations
// found (tests/scenarios/dpor_matches_dfs.cpp); the units skip exactly what it skips at the prefix nodes.
// Measured over `sweep scenarios/`: the same traces and the same invariants per scenario (tools/bench/README.md).
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

/// A unit's sleep-set seeds: per position of its prefix, the earlier siblings (below), and whether the
/// unit is covered by earlier units as a whole.
struct UnitSleep {
  std::vector<std::vector<SiblingStep>> siblings;
  /// The unit's own choice at some prefix node is asleep there, or every actor runnable right after the
  /// prefix is: every schedule under the prefix is equivalent to one under an earlier unit's prefix, so the
  /// unit runs nothing (0 executions; it used to run one sleep-set-blocked execution). See "Skipping an
  /// asleep unit" above.
  bool asleep = false;
};

/// For each position of `prefix` (as enumerate_prefixes() returns it, unbounded): at an actor choice, the
/// runnable actors with a smaller id than the choice, ascending, each with its step's footprint there; empty
/// at a draw. And whether the prefix's own choice is asleep at some prefix node (prefix_asleep()).
/// Runs 1 + (one per sibling and per combination of draw values inside its step) executions.
/// `options` gives the step limit; footprints are recorded whatever it says. Throws std::logic_error when
/// `prefix` does not fit the world (a nondeterministic world).
UnitSleep unit_sleep(const EngineOptions& options, const WorldFactory& make_world, const std::vector<Choice>& prefix);

/// unit_sleep(...).siblings.
std::vector<std::vector<SiblingStep>> earlier_siblings(const EngineOptions& options, const WorldFactory& make_world,
                                                       const std::vector<Choice>& prefix);

/// Whether the unit under `prefix` is covered by earlier units: `prefix`'s own choice is asleep at one of
/// its actor nodes, or every actor in `runnable_after` (the actors runnable right after the prefix; empty:
/// no such check) is asleep there, under the sleep sets DporStrategy builds from `siblings` (one entry per
/// prefix position) and `step_footprints` (per prefix position: the canonical footprint of the step chosen
/// there, draws included; a missing entry reads as empty). The rule DporStrategy applies when it replays
/// the prefix (sim/strategies/dpor.h); either way its one execution would end sleep-set blocked.
bool prefix_asleep(const std::vector<Choice>& prefix, const std::vector<std::vector<SiblingStep>>& siblings,
                   const std::vector<Footprint>& step_footprints, const std::vector<ActorId>& runnable_after = {});

}  // namespace allocsim::sim

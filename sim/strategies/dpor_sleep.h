// Sleep-set entries of DporStrategy (sim/strategies/dpor.h), one per step *and draw combination*: the event
// a sleep set holds is "actor A's next step, taking draw values D inside it" (a fault firing or not is part of
// the event), with the footprint of that step under those draws. An entry can also stand for every
// combination at once (`any`, the union footprint): what a sweep unit's seeded siblings and an
// allocsim/dpor-state/v1 checkpoint provide.
//
// Shapes: a Combo lists the draws of one step in the order they were made, each with the bound it was drawn
// under (the bounds let covered() tell when every combination of a step is asleep). Entries of one actor at
// one node describe the same step (a step of that actor removes them all), so two entries that share a
// prefix of draws share that prefix's bounds. Footprints are canonical (sim/trace_equivalence.h).
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/trace_equivalence.h"
#include "sim/world.h"

namespace allocsim::sim {

/// One draw inside a step: the value taken in [0, bound).
struct Draw {
  uint64_t value = 0;
  uint64_t bound = 0;
  bool operator==(const Draw&) const = default;
};
using Combo = std::vector<Draw>;

struct SleepEntry {
  ActorId actor = 0;
  bool any = false;  // every draw combination of the step; `footprint` is their union and `draws` is empty
  Combo draws = {};  // the step's draws (empty: a step that draws nothing)
  Footprint footprint = {};
  bool operator==(const SleepEntry&) const = default;
};

/// Whether every step of `actor` whose draws start with `prefix` is asleep in `sleep`: an `any` entry of the
/// actor, an entry whose draws are exactly `prefix`, or (recursively) every value of the next draw covered.
/// With prefix = {}: the actor is wholly asleep. With a complete combination: that event is asleep.
bool covered(const std::vector<SleepEntry>& sleep, ActorId actor, const Combo& prefix);

/// Whether `sleep` holds any entry of `actor` (asleep for some draws, maybe not for all).
bool has_entry(const std::vector<SleepEntry>& sleep, ActorId actor);

/// Whether `entries` holds the event (actor, any, draws), whatever its footprint.
bool has_event(const std::vector<SleepEntry>& entries, ActorId actor, bool any, const Combo& draws);

/// Appends a copy of `e` unless an equal event (same actor, `any` and draws) is there already.
void add_entry(std::vector<SleepEntry>& to, const SleepEntry& e);

/// Entries as JSON (allocsim/dpor-state/v2): {"actor", "footprint": [[id, write]...], "any", "draws":
/// [[value, bound]...]}. entries_from() reads them back; `v1` reads the older form (no "any" nor "draws": an
/// actor's entry was its step over every draw value, so it becomes an `any` entry).
/// Throws nlohmann::json::exception on a malformed list.
nlohmann::json entries_json(const std::vector<SleepEntry>& entries);
std::vector<SleepEntry> entries_from(const nlohmann::json& j, bool v1);

}  // namespace allocsim::sim

// The one schedule codec. Two forms:
// - schedule strings for people and command lines (`allocsim replay SCENARIO --schedule S`, the `run` and
//   sweep replay lines, trace files' "schedule"): format_schedule / parse_schedule, grammar below;
// - single choices by actor id for machine state (checkpoints, sweep unit results, plan digests, strategy
//   errors): format_choice / parse_choice, "a<id>" for an actor and "d<value>" for a draw.
//
// Grammar (version 1):
//   schedule := "v1:" [ item ( "," item )* ]
//   item     := actor [ "*" count ]          // `count` consecutive choices of that actor (count >= 1)
//             | "#" value [ "*" count ]      // `count` consecutive draws of `value` (a fault choice)
//   actor    := NAME | "@" INDEX             // a scenario actor name, or its 0-based index
// Names are the scenario's actor names (letters, digits, '_' and '-': never ',', '*', '#' or '@').
// format_schedule() always writes names and merges runs, so it is canonical:
// format(parse(s)) == s for every canonical s, and parse(format(x)) == x for every schedule x.
// Example: "v1:flowA*6,flowB,flowA*2,#1,flowB*3".
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.h"

namespace allocsim::sim {

/// A malformed schedule string; what() names the offending item and what was expected.
struct ScheduleError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A choice as text: "a<id>" for an actor, "d<value>" for a draw.
std::string format_choice(Choice c);
/// Inverse of format_choice. Throws std::invalid_argument naming the text.
Choice parse_choice(const std::string& text);

/// The canonical v1 string of `schedule`; `names[id]` is actor id's name.
/// REQUIRES: every actor choice's value < names.size().
std::string format_schedule(std::span<const Choice> schedule, const std::vector<std::string>& names);

/// Parses a v1 schedule string against the actor names `names`. Throws ScheduleError for a missing or
/// unknown version prefix, an unknown actor, a bad index or count, or an empty item. Counts are capped
/// at 10,000,000 choices in total so a typo cannot exhaust memory.
std::vector<Choice> parse_schedule(std::string_view text, const std::vector<std::string>& names);

}  // namespace allocsim::sim

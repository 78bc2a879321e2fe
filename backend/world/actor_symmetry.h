// Interchangeable actors of a scenario (docs/DESIGN.md §2 "Symmetry"; sim/symmetry.h): which actors
// `dfs --reduction symmetry` may rename into each other, and the names a renaming moves.
//
// An actor's own names are its name and the workloads its script names. Two actors are interchangeable when:
//   1. their scripts are the same text once each one's own names are replaced by their place in it (so flowA
//      asking for podA is flowB asking for podB);
//   2. nothing else names them: no own name occurs, as a whole word, anywhere in the scenario outside their own
//      scripts (the start state, other scripts, `expect`, the faults), so the verdicts cannot tell them apart;
//   3. each own name can be found in the backend's strings without ambiguity: it is not all digits (the ids'
//      counters are), none of its words is one the backend writes itself (ids, audit kinds, statuses, barrier
//      and op names, outcomes: reserved_words() in actor_symmetry.cpp), and no own name occurs as a whole word
//      inside another;
//   4. the scenario has no `order` (its labels name actors) and no `recover` of them (a life mutex per flow), they
//      neither issue nor run a write-behind (a gate per background actor), and they have no `owner` identity and
//      none names them as one (an identity stands in operation ids and stamps apart from the actor's name).
// A whole word: the name with no letter, digit or '_' right before or after it. Names are found that way in every
// string the symmetric state digests ("claim-flowA-1", "flowA:op1", the map's "allocsim-flowA-..." entries).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/scenario/scenario.h"
#include "sim/world.h"

namespace allocsim::harness {

/// One own name of an interchangeable actor: the name, its actor, and its place among that actor's own names (0:
/// the actor's name, then its workloads in script order). A renaming maps it to the name at the same place of the
/// other actor, which rule 1 guarantees exists.
struct OwnName {
  std::string name;
  sim::ActorId actor = 0;
  uint32_t place = 0;
};

struct ActorSymmetry {
  /// Classes of two or more interchangeable actors, each ascending; classes ascending by first actor.
  std::vector<std::vector<sim::ActorId>> classes;
  /// Every own name of an actor in a class, with its actor; longest first, so that the longest name wins where
  /// one could start at the same place as another.
  std::vector<OwnName> names;
  /// starts[c]: some name of `names` begins with byte c (split_names skips every other place at once).
  std::array<bool, 256> starts{};
  /// Why each actor outside every class is there, as "ACTOR: reason" in actor order (a rule it breaks: the first the
  /// checks meet, rule 4's `recover` first, then 3, 2 and 1), or one line for the whole scenario ("the scenario has one
  /// actor"): what `run --reduction symmetry` prints for every actor in no class.
  std::vector<std::string> unpaired;
};

/// The interchangeable actors of `sc` (rules 1-4 above). Deterministic; never throws for a loaded scenario.
ActorSymmetry find_interchangeable(const Scenario& sc);

/// Calls `chunk(text)` for the text between names and `name(own)` for each name of `names` that occurs in `s` as
/// a whole word, in order. What the symmetric digest hashes strings with.
template <class Chunk, class Name>
void split_names(std::string_view s, const std::vector<OwnName>& names, const std::array<bool, 256>& starts,
                 Chunk&& chunk, Name&& name);

/// Whether `c` is a word character (a name must not touch one to count).
inline bool name_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

template <class Chunk, class Name>
void split_names(std::string_view s, const std::vector<OwnName>& names, const std::array<bool, 256>& starts,
                 Chunk&& chunk, Name&& name) {
  size_t from = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (!starts[static_cast<unsigned char>(s[i])] || (i > 0 && name_word_char(s[i - 1]))) continue;
    for (const OwnName& own : names) {
      const std::string& n = own.name;
      if (n[0] != s[i] || n.size() > s.size() - i || s.compare(i, n.size(), n) != 0) continue;
      if (i + n.size() < s.size() && name_word_char(s[i + n.size()])) continue;
      chunk(s.substr(from, i - from));
      name(own);
      from = i + n.size();
      i = from - 1;
      break;
    }
  }
  chunk(s.substr(from));
}

}  // namespace allocsim::harness

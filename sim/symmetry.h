// Symmetry for state caching (docs/DESIGN.md §2 "Symmetry"; `dfs --reduction symmetry`): interchangeable actors
// and the canonical state taken up to renaming them, as TLC's symmetry sets do for model values.
//
// A world that has interchangeable actors (World::interchangeable_actors) describes its state as digests with
// holes (SymmetricState): each digest hashes an object's content with every name of an interchangeable actor
// replaced by a hole, and lists the actors its holes stood for, in order. Renaming the actors renames the holes,
// and finish() gives the digest of the renamed content without hashing the content again. So the engine can
// digest one state under several renamings (sim/engine_symmetry.cpp), and the fingerprint of a state is the
// least of them over a set of renamings that depends only on the state's orbit.
//
// Numbered rules a world's symmetric_state() must keep (the engine relies on them):
//   1. Faithful: two states with equal parts, objects and actors' parts (holes and refs included) are equal,
//      except for what World::canonical_state also leaves out.
//   2. Every name of an interchangeable actor in the state is a hole, and every actor index of one is a ref:
//      nothing the renaming moves is hashed as is.
//   3. Equivariant: the world's behaviour treats those names as opaque (equality and concatenation only), so
//      renaming the actors of a reachable state gives a reachable state whose futures are the renamed futures.
//   4. Per-actor arrays are digested as one part per actor, naming the actor by a ref, never by position.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/state_hash.h"

namespace allocsim::sim {

using ActorId = uint32_t;  // as sim/world.h

/// A digest with holes: `h` digests the content with each hole marked, and the actors the holes named, in order,
/// are refs[at, at + n) of the SymmetricState (or the engine's log) that holds it.
struct SymPart {
  uint64_t h = 0;
  uint32_t at = 0;
  uint32_t n = 0;
};

/// A world's state for symmetry reduction at a choice point (World::symmetric_state).
struct SymmetricState {
  std::vector<ActorId> refs;  // the holes of every part below
  /// The world as a multiset: its digest under a renaming is the sum of the parts' finished digests, so that the
  /// order in which per-actor pieces are listed does not matter (rule 4).
  std::vector<SymPart> parts;
  /// Every object that exists (CanonicalState::objects), ascending by footprint id: its name (the id's renamed
  /// form) and its content. The engine folds them into the local states of the actors that touch them.
  struct Object {
    uint64_t id = 0;
    SymPart name;
    SymPart digest;
  };
  std::vector<Object> objects;
  /// What a touched id not in `objects` reads as (CanonicalState::unlisted).
  SymPart unlisted;
  /// Per actor (by index): its local state as of its last ActorContext::local_state(), with holes.
  std::vector<SymPart> actors;
  /// Names of objects that do not exist now but that a step touched (a claim made later or released): by id, so
  /// that a fold can rename them. Ascending by id.
  std::vector<std::pair<uint64_t, SymPart>> absent_names;

  void clear() {
    refs.clear();
    parts.clear();
    objects.clear();
    unlisted = {};
    actors.clear();
    absent_names.clear();
  }
};

/// `p`'s digest with each hole's actor `a` replaced by map[a] (refs: the array p.at indexes).
inline uint64_t finish(const SymPart& p, const ActorId* refs, const uint64_t* map) {
  uint64_t h = state_mix(p.h, p.n);
  for (uint32_t i = 0; i < p.n; ++i) h = state_mix(h, map[refs[p.at + i]]);
  return h;
}

}  // namespace allocsim::sim

// Which actor made a claim, among the replicas of its owner identity (docs/DESIGN.md §4 "Owner identity"): the
// backend records only the owner, and replicas share it, but the ids an actor mints carry its name
// ("claim-<actor>-<k>", ActorCaller::next_id).
//
// Contract: pure; reads the actors' names and identities only (fixed by the file), so it records no footprint.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "backend/world/actor_state.h"

namespace allocsim::harness {

/// The index in `actors` of the actor of owner identity `owner` whose name claim id `claim_id` carries and that has
/// reserved; nullopt for an id no such actor minted (a start-state claim's).
std::optional<size_t> minted_by(const std::vector<ActorState>& actors, std::string_view owner,
                                std::string_view claim_id);

}  // namespace allocsim::harness

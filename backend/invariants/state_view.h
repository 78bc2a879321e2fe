// The fields an invariant reported, rendered again from another state of the world: how the shrinker's
// output shows "the state the invariant saw, before and after the last step".
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "backend/world/world_state.h"

namespace allocsim::harness {

/// The violation an invariant reports: its name, the message, and the state lines rendered below.
inline sim::Violation violation(const char* name, std::string message, std::string state) {
  return sim::Violation{name, std::move(message), std::move(state)};
}
/// `s`, or "-" when it is empty: how the renderings below and the invariants' messages show an absent field.
std::string or_dash(const std::optional<std::string>& s);

/// One-line renderings of the objects an invariant reports in Violation::state, each ending in '\n' and
/// starting with a stable prefix ("node NAME:", "claim ID:", "shared map:", "failed reads:") so that
/// the same fields can be rendered again from another state (render_like, below: before the last step).
std::string render_node(const backend::NodeFixture& n);
/// Which optional fields a claim line adds to the basic ones: the devices granted (no-double-grant) or
/// what readiness is judged on (readiness-answers-its-write). render_like keeps the same choice.
enum class ClaimFields { Basic, Devices, Readiness };
std::string render_claim(const backend::Claim& c, ClaimFields fields = ClaimFields::Basic);
std::string render_map_state(const backend::BackendState& s);
std::string render_failed_reads(const backend::BackendState& s);
/// "stale reserves: [flowA:op1]": the reserves stale-plan-writes-nothing holds to writing nothing.
std::string render_stale_reserves(const WorldState& w);
/// "actor flowA: claims_made=1 claims_held=0": what makes quiescent-clean judge an actor.
std::string render_actor_claims(const ActorState& a);

/// For each line of `reported` (a Violation::state, as the invariants render it), the same object
/// rendered from `world`: "node N:" lines re-render node N, "claim C:" lines claim C, "shared map:" the
/// map and pointer, "failed reads:" the failed reads, "stale reserves:" and "actor A: claims_made=" those;
/// a claim line keeps its optional fields (ClaimFields). An object missing from `world` renders as
/// "node N: (absent)". A line of another shape is one the invariant computed at the violation (capacity,
/// geometry write, flow workload, told): it keeps its subject, the text before its first ':', and its values
/// become "(computed at the violation only)", never the values after the step; the "- " and "+ " lines that
/// follow such a line (a diff the invariant computed) are left out with it. Lines end in '\n'.
std::string render_like(const WorldState& world, const std::string& reported);

}  // namespace allocsim::harness

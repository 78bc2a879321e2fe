// The backend's generator as the swarm draws from it (sim/campaign/swarm.h, SwarmGenerator; docs/DESIGN.md §7,
// "Swarm"): subject i of a run seeded S is swarm_gen.h's scenario of generator seed sim::execution_seed(S, i), with
// the run's mutants in `backend.mutants` and its step bound as `max_steps`, loaded by backend_system() with
// ops-atomic's op-level executions bounded by the executions the swarm gives each scenario (docs/SWARM.md): a
// scenario whose op-level tree is larger is left unjudged for ops-atomic (parse, which draw uses too). A finding's file is the minimal scenario
// encoded (scenario_json.h), named by its slug, expecting its violation, and choosing its invariants as the
// generated scenario did (finding_text: a stale stamp leaves the healing phase out, and so must its finding).
//
// Contract: deterministic in its arguments (the generator's contract, swarm_gen.h); stateless, so the pool's
// threads share the one instance.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/swarm.h"

namespace allocsim::harness {

/// The backend's generator (see above).
const campaign::SwarmGenerator& backend_swarm();

/// The generated scenario of index `index` of a run seeded `seed`, with `mutants` switched on and the step
/// bound `max_steps` (also what the verdict self-check explores, selfcheck.h).
nlohmann::ordered_json swarm_scenario(uint64_t seed, uint64_t index, const std::vector<std::string>& mutants,
                                      uint64_t max_steps = campaign::kSwarmMaxSteps);

/// A scenario document's hash (XXH3 of its compact text): SwarmGenerator::Drawn::text_hash, which the verdict
/// self-check's checkpoints fold too (campaign::fold_generated).
uint64_t scenario_hash(const nlohmann::ordered_json& doc);

struct SwarmFeatures;  // swarm_gen.h
/// A scenario's features as words: SwarmFeatures::names(), with "sharing=a+b" split into one word per kind.
std::vector<std::string> swarm_feature_words(const SwarmFeatures& features);
/// Every feature word a scenario can be drawn with, in SwarmFeatures' order (the coverage's universe).
std::vector<std::string> swarm_feature_universe();

}  // namespace allocsim::harness

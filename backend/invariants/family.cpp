// The helpers several families share (family.h).
#include "backend/invariants/family.h"

namespace allocsim::harness {

const backend::NodeFixture* node_named(const WorldState& w, std::string_view name) {
  const auto& nodes = w.backend().state().nodes;
  const NodeIndex& index = w.compiled().node_index;
  if (index.size() == nodes.size())
    if (const auto i = index.find(name); i && nodes[*i].name == name) return &nodes[*i];
  return w.backend().state().node(name);
}

std::optional<ToldObservation> told_observation(const CheckContext& c) {
  if (c.actor == sim::kNoActor) return std::nullopt;
  const ActorState& a = c.world.actors()[c.actor];
  if (!a.told.observation) return std::nullopt;
  const backend::Claim* cl = c.world.backend().state().claim(a.told.observation->claim_id);
  if (!cl) return std::nullopt;
  return ToldObservation{*a.told.observation, *cl};
}

bool covers(const backend::Claim& c, std::string_view node) {
  for (const auto& n : c.nodes)
    if (n == node) return true;
  return false;
}

}  // namespace allocsim::harness

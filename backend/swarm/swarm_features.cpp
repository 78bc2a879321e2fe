// The names of a generated scenario's features (swarm_gen.h, SwarmFeatures): what a swarm summary counts as drawn
// or never drawn, and what a generated scenario's description lists. The drawing itself is swarm_gen.cpp's.
#include <string>
#include <utility>
#include <vector>

#include "backend/swarm/swarm_gen.h"

namespace allocsim::harness {

std::vector<std::string> SwarmFeatures::names() const {
  std::vector<std::string> out;
  if (mig) out.emplace_back("mig");
  std::string s = "sharing=";
  for (size_t i = 0; i < sharing.size(); ++i) s += (i ? "+" : "") + sharing[i];
  out.push_back(s);
  const std::pair<bool, const char*> flags[] = {{split_reserve, "split-reserve"},
                                                {status_ops, "status-ops"},
                                                {release, "release"},
                                                {second_reserve, "second-reserve"},
                                                {binds, "binds"},
                                                {foreign_writes, "foreign-writes"},
                                                {read_faults, "read-faults"},
                                                {geometry_faults, "geometry-faults"},
                                                {barrier_faults, "barrier-faults"},
                                                {recover, "recover"},
                                                {start_state, "start-state"},
                                                {conditional, "conditional"},
                                                {clock, "clock"},
                                                {flow_clock, "flow-clock"},
                                                {leftover_claim, "leftover-claim"},
                                                {partial_apply, "partial-apply"},
                                                {release_listing, "release-listing"},
                                                {admission_reject, "admission-reject"},
                                                {sweeper, "sweeper"},
                                                {leased_sweeper, "leased-sweeper"},
                                                {operand_pause, "operand-pause"},
                                                {hidden_devices, "hidden-devices"},
                                                {claimed_binds, "claimed-binds"},
                                                {bind_behind, "bind-behind"},
                                                {shared_owner, "shared-owner"},
                                                {bind_resource, "bind-resource"}};
  for (const auto& [on, name] : flags)
    if (on) out.emplace_back(name);
  return out;
}

}  // namespace allocsim::harness

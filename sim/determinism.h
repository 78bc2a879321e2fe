// Determinism, checked (docs/DESIGN.md §3, "Fingerprints"): re-run an execution from its recorded
// schedule on a fresh world and compare the two step lists.
//
// Why a replay and not the original strategy a second time: the strategy is stateful (DFS and DPOR move on
// to the next branch, PCT re-draws priorities), so asking it again would explore a different execution.
// The recorded schedule pins every choice; what is left to differ is the engine and the world, which is
// exactly what must be deterministic. The same fingerprint is then the proof; a different one is a finding.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sim/divergence.h"
#include "sim/engine.h"
#include "sim/explorer.h"

namespace allocsim::sim {

/// The first difference between two results of the same execution (sim/divergence.h: label "step N" or
/// "after step N", expected "first run: ...", actual "second run: ..."): steps compared in order on (actor,
/// kind, what, detail), then the step counts, then the violation (invariant and message). nullopt when equal.
/// `actor_name` renders actor ids in the description.
std::optional<Divergence> first_difference(const ExecutionResult& first, const ExecutionResult& second,
                                           const std::function<std::string(ActorId)>& actor_name);

/// Runs `first.schedule` again through ReplayStrategy on a fresh world from `make_world`, with `engine`, and
/// returns the first difference from `first` (also when the replay could not follow the schedule, which
/// is reported with ReplayStrategy's reason). nullopt when the re-run is identical, fingerprint included.
std::optional<Divergence> recheck_execution(Engine& engine, const WorldFactory& make_world,
                                            const ExecutionResult& first);

}  // namespace allocsim::sim

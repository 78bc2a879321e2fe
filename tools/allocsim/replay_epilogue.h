// What a replayed execution left behind, printed by `replay SCENARIO --seed E | --schedule S` after its table
// (README "Traces and shrinking"): each actor's ops with the outcome each ended in, in script order, then the
// final state of every node and claim, the shared map and the ClusterPolicy pointer; and for --record the
// execution's comparable record, as `run --record` writes one per execution.
//
// Contract: a pure function of the scenario and the execution's schedule; the execution is run again (a
// lenient replay of r.schedule, as the state blocks of a trace are), and when that run does not give r back
// (another fingerprint) nothing is claimed: the text says so instead.
#pragma once

#include <cstdint>
#include <string>

#include "sim/campaign/system.h"
#include "sim/engine.h"

namespace allocsim::cli {

/// What replay prints after its table, and the record --record writes.
struct Replayed {
  /// "outcomes:\n  flowA reserve: claimed\n  flowA release: (not reached)\n...final state:\n  node n1: ...\n"
  /// (lines of backend/invariants/state_view.h).
  std::string text;
  /// The execution's comparable record, one JSON line (backend/system/record.h); "" unless asked for, or
  /// when the run again did not give r back.
  std::string record;
};

/// `subject` is the scenario r ran in (mutants included); `with_record` also builds Replayed::record.
Replayed replay_epilogue(const campaign::Subject& subject, const sim::ExecutionResult& r, uint64_t max_steps,
                         bool with_record);

}  // namespace allocsim::cli

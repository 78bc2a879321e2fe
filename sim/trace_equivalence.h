// Footprints, the dependency relation they induce, and Mazurkiewicz trace equivalence of executions.
//
// Two steps of different actors are *dependent* when one writes an object the other reads or writes
// (Flanagan & Godefroid, POPL 2005; Abdulla et al., POPL 2014). Steps of one actor are always ordered.
// Two executions are Mazurkiewicz-equivalent when one can be turned into the other by swapping adjacent
// independent steps; DPOR (sim/strategies/dpor.h) tries to run one execution per equivalence class, and
// TraceCounter measures how close it gets (executions per distinct trace = redundancy ratio).
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "sim/engine.h"

namespace allocsim::sim {

/// A step's footprint in canonical form: sorted by object id, one Access per object (write wins).
using Footprint = std::vector<Access>;

/// Canonical form of a raw footprint (as recorded in StepRecord::footprint).
Footprint normalized(std::vector<Access> raw);

/// Adds `more` to `into` (both canonical); the result is canonical.
void merge_into(Footprint& into, const Footprint& more);

/// Whether some object is written by one footprint and read or written by the other. Both canonical.
bool dependent(const Footprint& a, const Footprint& b);

/// A fingerprint of the Mazurkiewicz trace of `result`: XXH3-64 of the Foata normal form of its steps
/// under program order plus `dependent`, each step named by (actor, index among that actor's steps, draws
/// made inside it, footprint). Equal fingerprints: equivalent executions (up to hash collisions).
/// REQUIRES: the execution was run with EngineOptions::record_footprints, else every step looks independent.
uint64_t trace_fingerprint(const ExecutionResult& result);

/// Counts the distinct Mazurkiewicz traces among the executions it is shown (ordered set: deterministic).
class TraceCounter {
 public:
  void add(const ExecutionResult& result) { seen_.insert(trace_fingerprint(result)); }
  uint64_t distinct() const { return seen_.size(); }

 private:
  std::set<uint64_t> seen_;
};

}  // namespace allocsim::sim

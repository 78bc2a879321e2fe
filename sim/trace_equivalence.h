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

/// A footprint summarised in 64 bits for a quick independence test: bit (object % 64) of every object it
/// writes, and of every object it touches. Footprint ids are hashes (backend/harness/actor_caller.h), so the
/// bits spread. Summaries that do not meet prove independence; when they meet, ask dependent().
struct FootprintMask {
  uint64_t writes = 0, touches = 0;
};
FootprintMask mask_of(const Footprint& f);
inline bool may_depend(FootprintMask a, FootprintMask b) {
  return ((a.writes & b.touches) | (b.writes & a.touches)) != 0;
}

/// n rows of n bits in one flat buffer that keeps its capacity across reset()s: a happens-before or
/// dependency relation over an execution's steps, without an allocation per execution once warm.
class BitRows {
 public:
  /// n x n, all clear.
  void reset(size_t n) {
    words_ = (n + 63) / 64;
    bits_.assign(n * words_, 0);
  }
  bool test(size_t row, size_t col) const { return (bits_[row * words_ + col / 64] >> (col % 64)) & 1; }
  void set(size_t row, size_t col) { bits_[row * words_ + col / 64] |= uint64_t{1} << (col % 64); }
  /// Row `into` |= row `from`.
  void or_row(size_t into, size_t from) {
    for (size_t w = 0; w < words_; ++w) bits_[into * words_ + w] |= bits_[from * words_ + w];
  }

 private:
  size_t words_ = 0;
  std::vector<uint64_t> bits_;
};

/// A fingerprint of the Mazurkiewicz trace of `result`: XXH3-64 of the Foata normal form of its steps
/// under program order plus `dependent`, each step named by (actor, index among that actor's steps, draws
/// made inside it, footprint). Equal fingerprints: equivalent executions (up to hash collisions).
/// REQUIRES: the execution was run with EngineOptions::record_footprints, else every step looks independent;
/// its footprints are canonical (the engine records them so, StepRecord::footprint).
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

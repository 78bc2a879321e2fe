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
#include "sim/trace_sample.h"

namespace allocsim::sim {

/// A step's footprint in canonical form: sorted by object id, one Access per object (write wins).
using Footprint = std::vector<Access>;

/// Canonical form of a raw footprint (as recorded in StepRecord::footprint).
Footprint normalized(std::vector<Access> raw);

/// Adds `more` to `into` (both canonical); the result is canonical.
void merge_into(Footprint& into, const Footprint& more);

/// Whether some object is written by one footprint and read or written by the other. Both canonical.
bool dependent(const Footprint& a, const Footprint& b);

/// The footprints of one execution's steps as exact object sets: every distinct object gets one bit (in order
/// of first appearance), so that whether two steps are dependent is a few word operations, with the same
/// answer as dependent() on their footprints. An execution with more than kMaxObjects distinct objects is
/// not interned (exact() is false) and the test falls back to dependent(). The storage is kept across
/// build()s: no allocation per execution once warm.
class StepObjects {
 public:
  static constexpr size_t kMaxObjects = 1024;  // distinct objects interned; more: the footprints are compared

  /// Interns the footprints of steps [0, n) of `r`. REQUIRES: n <= r.steps.size().
  void build(const ExecutionResult& r, size_t n);
  bool exact() const { return exact_; }
  /// dependent(r.steps[i].footprint, r.steps[j].footprint) for the `r` of the last build. REQUIRES: i, j < n.
  bool dependent(size_t i, size_t j) const {
    if (words_ == 1) {  // the common case: at most 64 distinct objects
      const uint64_t* a = &bits_[2 * i];
      const uint64_t* b = &bits_[2 * j];
      return ((a[0] & b[1]) | (b[0] & a[1])) != 0;
    }
    return dependent_wide(i, j);
  }

 private:
  bool dependent_wide(size_t i, size_t j) const;

  /// Open addressing over the object ids (they are hashes: their low bits spread); `bit` 0 = empty slot,
  /// else the object's bit + 1.
  static constexpr size_t kSlots = 2 * kMaxObjects;
  struct Slot {
    uint64_t object = 0;
    uint32_t bit = 0;
  };
  const ExecutionResult* r_ = nullptr;
  bool exact_ = false;
  size_t words_ = 0;            // per set; 0 when not exact
  std::vector<uint64_t> bits_;  // per step: its write set, then its touch set, `words_` words each
  std::vector<uint32_t> access_bits_;
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
  std::vector<uint32_t> used_;  // slots to clear before the next build
};

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

/// Counts the distinct Mazurkiewicz traces among the executions it is shown, in bounded memory: exact up to
/// TraceSample's capacity, an estimate from a hash sample past it (sim/trace_sample.h).
class TraceCounter {
 public:
  void add(const ExecutionResult& result) { seen_.add(trace_fingerprint(result)); }
  uint64_t distinct() const { return seen_.distinct(); }
  const TraceSample& sample() const { return seen_; }

 private:
  TraceSample seen_;
};

}  // namespace allocsim::sim

// Distinct Mazurkiewicz traces counted in bounded memory.
//
// Counting distinct traces needs every trace fingerprint seen so far; kept whole, that set grew by about 47
// bytes per execution (a std::set node each: 400 MB after 8.4 M DPOR executions). TraceSample keeps at most
// `capacity` fingerprints. While the distinct count fits, it is exact. Past that it becomes a hash sample
// (adaptive distinct sampling: Flajolet, "On adaptive sampling", Computing 1990; Gibbons, VLDB 2001): at
// level L it keeps only the fingerprints below 2^(64-L), a 1-in-2^L sample of the distinct traces since
// fingerprints are uniform hashes, and it estimates the count as (kept << L). Each time the kept set
// outgrows the capacity, L goes up by one and the fingerprints above the new bound are dropped.
//
// Invariants:
//   1. kept() is sorted, without duplicates, and every element is below 2^(64-level()).
//   2. kept().size() <= capacity() after every add() batch is folded in (fold() runs before any read).
//   3. The result depends only on the set of fingerprints added and the capacity, never on the order of
//      add() and merge() calls: level() is the smallest L at which the fingerprints below 2^(64-L) fit,
//      and kept() is exactly those. So a sweep's units, merged in any order by any number of jobs, give the
//      same count as one run (docs/DESIGN.md §3, determinism).
// Relative standard error of the estimate: about 1/sqrt(capacity / 2), under 0.3% at the default capacity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace allocsim::sim {

class TraceSample {
 public:
  static constexpr size_t kDefaultCapacity = size_t{1} << 18;  // 2 MiB of fingerprints

  TraceSample() : TraceSample(kDefaultCapacity) {}
  explicit TraceSample(size_t capacity);
  /// From a saved sample (a sweep checkpoint or shard report). Throws std::invalid_argument unless `kept`
  /// meets invariant 1 for `level` and `level` is at most 63; a sample over `capacity` is reduced.
  static TraceSample from_parts(unsigned level, std::vector<uint64_t> kept, size_t capacity = kDefaultCapacity);

  void add(uint64_t fingerprint);
  void merge(const TraceSample& other);

  /// The number of distinct fingerprints added: exact when exact(), else the estimate kept().size() << level().
  uint64_t distinct() const;
  bool exact() const { return level() == 0; }
  unsigned level() const;
  const std::vector<uint64_t>& kept() const;
  size_t capacity() const { return capacity_; }

 private:
  bool below(uint64_t fp) const { return level_ == 0 || (fp >> (64 - level_)) == 0; }
  /// Folds pending_ into kept_ and restores invariant 2.
  void fold() const;

  size_t capacity_;
  // Logically const reads fold the pending batch first, so these are mutable.
  mutable unsigned level_ = 0;
  mutable std::vector<uint64_t> kept_;
  mutable std::vector<uint64_t> pending_;  // added, not yet folded in: sorted in batches (8 bytes each)
};

}  // namespace allocsim::sim

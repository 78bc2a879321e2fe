// StateTable: the visited states of a state-caching search, by fingerprint, each with the sleep set it was
// explored under (sim/strategies/state_dfs.h). Memory is bounded, as in TLC's fingerprint set:
//
// 1. Open addressing with linear probing over 16-byte slots (fingerprint, sleep mask); fingerprint 0 marks an
//    empty slot, so a state whose fingerprint is 0 is stored as 1.
// 2. The table starts small and doubles while its load passes 1/2, until the next doubling would exceed
//    `max_bytes`. Then it fills up to 3/4 and stops storing: insert() returns false, and the search explores
//    such states without caching them. Sound (a state not stored is explored again), only slower; full() says
//    it happened.
// 3. Two distinct states with one fingerprint would make the search skip the second: the price of hashing,
//    as in TLC. collision_probability() estimates it over the states stored (n^2 / 2^65 for 64-bit
//    fingerprints: about 3e-6 at 10 M states), and reports print it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace allocsim::sim {

class StateTable {
 public:
  /// 256 MiB of slots: up to 12.5 M states (3/4 of 16 M). While the table doubles it holds the old slots and the
  /// new ones at once, so the peak is 1.5 times the bound.
  static constexpr size_t kDefaultMaxBytes = size_t{256} << 20;

  explicit StateTable(size_t max_bytes = kDefaultMaxBytes);

  /// The sleep mask stored with `fingerprint`, or nullptr when the state was never stored. Valid until the
  /// next insert().
  uint64_t* find(uint64_t fingerprint);
  /// Stores a state not stored yet. False when the table is full (2): the state is not stored.
  bool insert(uint64_t fingerprint, uint64_t mask);

  uint64_t size() const { return size_; }
  size_t bytes() const { return slots_.size() * sizeof(Slot); }
  size_t max_bytes() const { return max_bytes_; }
  bool full() const { return full_; }
  /// The probability that some two of the states stored share a fingerprint (and one was wrongly skipped).
  double collision_probability() const;

 private:
  struct Slot {
    uint64_t fingerprint = 0;
    uint64_t mask = 0;
  };
  static uint64_t key(uint64_t fingerprint) { return fingerprint == 0 ? 1 : fingerprint; }
  Slot* probe(uint64_t k);
  void grow();

  size_t max_bytes_;
  std::vector<Slot> slots_;
  uint64_t size_ = 0;
  bool full_ = false;
};

}  // namespace allocsim::sim

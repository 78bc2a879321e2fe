#include "sim/state_table.h"

#include <cmath>

namespace allocsim::sim {

namespace {
constexpr size_t kInitialSlots = 1024;
}

StateTable::StateTable(size_t max_bytes) : max_bytes_(max_bytes), slots_(kInitialSlots) {}

StateTable::Slot* StateTable::probe(uint64_t k) {
  // Fingerprints are hashes: their low bits index the table directly.
  const size_t mask = slots_.size() - 1;
  for (size_t i = k & mask;; i = (i + 1) & mask)
    if (slots_[i].fingerprint == k || slots_[i].fingerprint == 0) return &slots_[i];
}

uint64_t* StateTable::find(uint64_t fingerprint) {
  Slot* s = probe(key(fingerprint));
  return s->fingerprint == 0 ? nullptr : &s->mask;
}

void StateTable::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& s : old)
    if (s.fingerprint != 0) *probe(s.fingerprint) = s;
}

bool StateTable::insert(uint64_t fingerprint, uint64_t mask) {
  if (2 * (size_ + 1) > slots_.size() && slots_.size() * 2 * sizeof(Slot) <= max_bytes_) grow();
  if (4 * (size_ + 1) > 3 * slots_.size()) {
    full_ = true;
    return false;
  }
  Slot* s = probe(key(fingerprint));
  if (s->fingerprint != 0) return true;  // stored already
  *s = {key(fingerprint), mask};
  ++size_;
  return true;
}

double StateTable::collision_probability() const {
  // Birthday bound over 2^64 fingerprints: 1 - exp(-n(n-1)/2^65).
  const double n = double(size_);
  return -std::expm1(-n * (n - 1) / std::ldexp(1.0, 65));
}

}  // namespace allocsim::sim

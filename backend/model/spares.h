// Spares<T>: values the backend removed, kept for their heap buffers (docs/DESIGN.md §5, "Storage reused across
// executions": an execution that allocates nothing once warm). Storage only: which spare a caller gets never shows in
// any state, answer or text, because every caller assigns in full each field it later reads.
//
// Contract:
// - take() hands out a kept value (contents: some removed value's) or, with none kept, a new T{}; in check mode
//   (check_mode.h) either is poisoned first, so that a field the caller forgets to assign shows at once;
//   take_parts() lends the last kept value (poisoned likewise) to a function that swaps out the buffers it
//   wants, then drops it;
// - give() keeps a value for a later take(), at most kMax of them (the rest are destroyed);
// - borrow() is take() with a give() when the Borrowed leaves its scope, however it leaves (a backend call may
//   unwind from a barrier: an actor crash);
// - a copy of the owner starts with none: a copied backend shares no storage with its source (as Scratch);
// - resize_keeping() and assign_keeping() resize and assign a std::vector whose elements own buffers, handing
//   the elements a shrink drops to a Spares and taking a growth's new elements from it (a std::vector destroys
//   what it drops: a list of texts that is one long in one execution and empty in the next would free and
//   allocate its text each time).
// Not thread-safe: a backend and its spares belong to one execution at a time.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "backend/model/check_mode.h"

namespace allocsim::backend {

template <class T, size_t kMax = 64>
class Spares {
 public:
  Spares() = default;
  Spares(const Spares&) {}
  Spares& operator=(const Spares&) { return *this; }
  ~Spares() = default;

  T take() {
    if (kept_.empty()) {
      T fresh{};
      if (check_mode()) poison(fresh);
      return fresh;
    }
    T value = std::move(kept_.back());
    kept_.pop_back();
    if (check_mode()) poison(value);
    return value;
  }
  /// Calls `use(kept)` with the last kept value, for the caller to swap out the buffers it wants, then drops that
  /// value; false, calling nothing, when none is kept. For a big T of which the caller wants a few buffers: no
  /// whole T is moved.
  template <class F>
  bool take_parts(F&& use) {
    if (kept_.empty()) return false;
    if (check_mode()) poison(kept_.back());
    use(kept_.back());
    kept_.pop_back();
    return true;
  }
  void give(T&& value) {
    if (kept_.size() < kMax) kept_.push_back(std::move(value));
  }

  /// A taken value, given back when this leaves scope. Neither copied nor moved.
  class Borrowed {
   public:
    explicit Borrowed(Spares& owner) : owner_(owner), value(owner.take()) {}
    Borrowed(const Borrowed&) = delete;
    Borrowed& operator=(const Borrowed&) = delete;
    ~Borrowed() { owner_.give(std::move(value)); }

   private:
    Spares& owner_;

   public:
    T value;
  };
  Borrowed borrow() { return Borrowed(*this); }

 private:
  std::vector<T> kept_;
};

/// `v.resize(n)`, its dropped elements given to `spare` and its new ones taken from it (contents: some earlier
/// element's, or poison in check mode, for the caller to overwrite in full).
template <class T, size_t kMax>
void resize_keeping(std::vector<T>& v, size_t n, Spares<T, kMax>& spare) {
  while (v.size() > n) {
    spare.give(std::move(v.back()));
    v.pop_back();
  }
  while (v.size() < n) v.push_back(spare.take());
}

/// `to = from`, element by element (a copy-assignment keeps an element's buffers when they are big enough), with
/// the elements `to` drops or gains going through `spare` as in resize_keeping.
template <class T, size_t kMax>
void assign_keeping(std::vector<T>& to, const std::vector<T>& from, Spares<T, kMax>& spare) {
  resize_keeping(to, from.size(), spare);
  for (size_t i = 0; i < from.size(); ++i) to[i] = from[i];
}

}  // namespace allocsim::backend

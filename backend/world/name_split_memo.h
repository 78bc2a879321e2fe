// NameSplitMemo: the symmetric digest of a string (docs/DESIGN.md §2 "Symmetry"), computed once per distinct text.
//
// Under `--reduction symmetry` every string the state holds is searched for the own names of interchangeable
// actors (split_names, actor_symmetry.h), at every choice: the same node names, claim ids and plan notes again and
// again. The memo keeps, per text, what that search gives: one 64-bit digest of the text with each name replaced
// by a hole for its place, and the actors of the holes in order. Hasher::s (state_hasher.h) mixes the digest in
// and appends the actors.
//
// Contract:
//   1. get(s) is a pure function of `s` and of the names the memo was made for: a hit and a miss give the same
//      digest and actors, so the memo changes no fingerprint, only the time it takes.
//   2. A hit compares the whole text, not only its hash: two texts never share an entry.
//   3. Memory is bounded: at most kEntries texts. The table is open-addressed over kSlots keys (the texts' XXH3),
//      twice the entries, so probes stay short; when it is full it starts again empty.
// REQUIRES: one memo per ActorSymmetry (the storage of one compiled scenario holds it), used by one thread. A
// Split returned by get() is valid until the next get().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/world/actor_symmetry.h"
#include "sim/state_hash.h"

namespace allocsim::harness {

class NameSplitMemo {
 public:
  /// The text's digest with holes, and the actor of each hole in order.
  struct Split {
    uint64_t digest = 0;
    std::vector<sim::ActorId> actors;
  };

  static constexpr size_t kSlots = 8192;          // a power of two; the family of four reservers meets about 600 texts
  static constexpr size_t kEntries = kSlots / 2;  // what is kept before the table starts again
  static constexpr uint64_t kNameHole = 0x686f6c65ull << 32;  // "hole" + place: an own name
  static constexpr uint64_t kTextEnd = 0x656e64ull << 32;     // "end": after the last piece

  const Split& get(std::string_view s, const std::vector<OwnName>& names, const std::array<bool, 256>& starts) {
    if (keys_.empty()) keys_.assign(kSlots, 0), at_.assign(kSlots, 0), entries_.reserve(kEntries);
    const uint64_t key = XXH3_64bits(s.data(), s.size()) | 1;  // 0 marks an empty slot
    size_t i = key & (kSlots - 1);
    for (; keys_[i] != 0; i = (i + 1) & (kSlots - 1))
      if (keys_[i] == key && entries_[at_[i]].text == s) return entries_[at_[i]].split;
    if (entries_.size() == kEntries) {
      std::fill(keys_.begin(), keys_.end(), 0);
      entries_.clear();
      i = key & (kSlots - 1);
    }
    keys_[i] = key, at_[i] = uint32_t(entries_.size());
    Entry& e = entries_.emplace_back();
    e.text.assign(s);
    // The pieces between names, each with its length, and a hole per name: renaming changes a name's length, so
    // the holes carry places, and the end mark delimits the text.
    uint64_t d = 0x73706c6974ull;  // "split"
    split_names(
        s, names, starts, [&](std::string_view text) { d = sim::state_mix_text(d, text); },
        [&](const OwnName& o) {
          d = sim::state_mix(d, kNameHole + o.place);
          e.split.actors.push_back(o.actor);
        });
    e.split.digest = sim::state_mix(d, kTextEnd);
    return e.split;
  }

 private:
  struct Entry {
    std::string text;
    Split split;
  };
  std::vector<uint64_t> keys_;  // kSlots once used (a world that never digests with holes allocates none)
  std::vector<uint32_t> at_;    // per slot with a key: its entry
  std::vector<Entry> entries_;  // reserved to kEntries: get()'s answers do not move while the table fills
};

}  // namespace allocsim::harness

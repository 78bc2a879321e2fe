// Name lookups that compare numbers before texts: a node name's first 8 bytes as one unsigned number.
//
// Contract: name_head(a) < name_head(b) implies a < b in byte order (std::string_view's compare), and equal heads
// say nothing beyond the first 8 bytes, so ordering by (head, name) is byte order. Where names differ within
// their first 8 bytes (n1, n2, ..., gpu-a, gpu-b) a comparison ends on the numbers, without a memcmp call; names
// with a longer common prefix (gpu-node-01, ...) compare in full after equal heads. Used by the plan's node
// index (backend/model/memory_backend.cpp) and the harness's NodeIndex (backend/world/dirty.h).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace allocsim::backend {

/// The first 8 bytes of `name`, big-endian, zero-padded past its end.
inline uint64_t name_head(std::string_view name) {
  // One load and a byte swap for a long name; a short one is read byte by byte (no load past its end) and shifted into
  // place: as a loop of 8 with a test per byte this was most of a lookup's cost (docs/DESIGN.md §5, "Per-node cost of
  // inventory and plan").
  if (name.size() >= 8) {
    uint64_t word;
    std::memcpy(&word, name.data(), 8);
    if constexpr (std::endian::native == std::endian::little) word = __builtin_bswap64(word);
    return word;
  }
  if (name.empty()) return 0;
  uint64_t head = 0;
  for (const char c : name) head = (head << 8) | static_cast<unsigned char>(c);
  return head << (8 * (8 - name.size()));  // 8 - size is 1..7: never a shift by 64
}

/// `a == b` for names, inline: the lengths, then the bytes (names are short, so this beats a memcmp call).
inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace allocsim::backend

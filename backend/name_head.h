// Name lookups that compare numbers before texts: a node name's first 8 bytes as one unsigned number.
//
// Contract: name_head(a) < name_head(b) implies a < b in byte order (std::string_view's compare), and equal heads
// say nothing beyond the first 8 bytes, so ordering by (head, name) is byte order. Where names differ within
// their first 8 bytes (n1, n2, ..., gpu-a, gpu-b) a comparison ends on the numbers, without a memcmp call; names
// with a longer common prefix (gpu-node-01, ...) compare in full after equal heads. Used by the plan's node
// index (backend/memory_backend.cpp) and the harness's NodeIndex (backend/harness/dirty.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace allocsim::backend {

/// The first 8 bytes of `name`, big-endian, zero-padded past its end.
inline uint64_t name_head(std::string_view name) {
  uint64_t head = 0;
  for (size_t i = 0; i < 8; ++i) head = (head << 8) | (i < name.size() ? static_cast<unsigned char>(name[i]) : 0u);
  return head;
}

/// `a == b` for names, inline: the lengths, then the bytes (names are short, so this beats a memcmp call).
inline bool same_name(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace allocsim::backend

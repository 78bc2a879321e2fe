// Python's printed forms, for messages upstream builds with `{x!r}`, `str(dict)` or `str(list)`.
//
// Upstream's error and audit texts embed Python reprs (e.g. "node n1 is owned by 'flowB'", "free per
// node: {'n1': 2}"); scenarios and tests compare those texts, so the port renders them the same way.
// Header-only: small, and shared by mig_geometry.cpp and memory_backend.cpp.
#pragma once

#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "backend/model/contract.h"

namespace allocsim::backend::py {

/// `repr(s)` for a str appended to `out`: single quotes unless `s` holds a ' and no ", escapes as CPython does for
/// ASCII controls; non-ASCII bytes pass through (CPython keeps printable non-ASCII characters as they are).
inline void repr_into(std::string& out, std::string_view s) {
  const bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  const char q = dq ? '"' : '\'';
  out += q;
  for (unsigned char ch : s) {
    if (ch == '\\' || ch == static_cast<unsigned char>(q)) {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch < 0x20 || ch == 0x7f) {
      fmt::format_to(std::back_inserter(out), "\\x{:02x}", ch);
    } else {
      out += static_cast<char>(ch);
    }
  }
  out += q;
}
/// `repr(v)` for an int appended to `out` (no overload for floating point, bool or char: their Python forms
/// differ, and none of upstream's texts has one).
inline void repr_into(std::string& out, int v) { fmt::format_to(std::back_inserter(out), "{}", v); }
inline void repr_into(std::string& out, long v) { fmt::format_to(std::back_inserter(out), "{}", v); }
inline void repr_into(std::string& out, long long v) { fmt::format_to(std::back_inserter(out), "{}", v); }

inline std::string repr(std::string_view s) {
  std::string out;
  repr_into(out, s);
  return out;
}
inline std::string repr(int v) { return std::to_string(v); }
inline std::string repr(long v) { return std::to_string(v); }
inline std::string repr(long long v) { return std::to_string(v); }

/// `str(list_of_str)`, e.g. "['a', 'b']"; "[]" when empty.
inline std::string list(std::span<const std::string> items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i]);
  return out + "]";
}

/// `str(dict)` for a str-keyed dict (std::string or std::string_view keys) in insertion order appended to `out`,
/// e.g. "{'n1': 2}"; "{}" when empty.
template <class K, class V>
void dict_into(std::string& out, const OrderedMap<K, V>& m) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : m) {
    if (!first) out += ", ";
    repr_into(out, k);
    out += ": ";
    repr_into(out, v);
    first = false;
  }
  out += '}';
}
template <class K, class V>
std::string dict(const OrderedMap<K, V>& m) {
  std::string out;
  dict_into(out, m);
  return out;
}

}  // namespace allocsim::backend::py

// Counted nouns in human output: "1 execution", "2 executions", "0 executions". Every formatter that prints
// "N noun" goes through count_of(), so no message says "1 preemptions" (docs/DESIGN.md §7, "Human output").
// Machine-read text (JSON fields, trace files, fingerprints) never goes through here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace allocsim::support {

/// `noun` when n == 1, else `plural`. REQUIRES: both are the noun's forms (e.g. "entry", "entries").
inline std::string_view noun_for(uint64_t n, std::string_view noun, std::string_view plural) {
  return n == 1 ? noun : plural;
}

/// "N noun" with the noun singular for n == 1 and `plural` otherwise: count_of(3, "entry", "entries").
inline std::string count_of(uint64_t n, std::string_view noun, std::string_view plural) {
  std::string out = std::to_string(n);
  out += ' ';
  out += noun_for(n, noun, plural);
  return out;
}

/// "N noun" for a regular noun (plural: noun + "s"): count_of(1, "execution") is "1 execution".
inline std::string count_of(uint64_t n, std::string_view noun) {
  std::string out = std::to_string(n);
  out += ' ';
  out += noun;
  if (n != 1) out += 's';
  return out;
}

}  // namespace allocsim::support

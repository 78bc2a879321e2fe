// Interleaving coverage for sampling strategies (pct, random): which ordered pairs of scheduling-point names
// were seen run back to back by two different actors. A pair (a, b) means: one actor ran the step it resumed
// from point `a`, and the very next step was another actor's, resumed from point `b` (a context switch
// between those two points). More distinct pairs: more kinds of interleaving tried. A measure, not a
// guarantee (it ignores what lies between non-adjacent steps).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/engine.h"

namespace allocsim::sim {

class PairCoverage {
 public:
  /// Orders pairs by content, as std::pair<std::string, std::string> does, and compares them with views
  /// too, so that observe() looks a pair up without copying it into two strings.
  struct Less {
    using is_transparent = void;
    using View = std::pair<std::string_view, std::string_view>;
    static View view(const std::pair<std::string, std::string>& p) { return {p.first, p.second}; }
    static View view(const View& p) { return p; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) < view(b);
    }
  };
  using Set = std::set<std::pair<std::string, std::string>, Less>;

  /// Adds the switches of one execution.
  void observe(const ExecutionResult& result);
  /// Distinct ordered pairs seen so far.
  uint64_t pairs() const { return seen_.size(); }
  /// The pairs, ordered (deterministic reports).
  const Set& seen() const { return seen_; }

 private:
  Set seen_;
  /// A pair by where its names are: address and length of each (StepRecord::what has static storage, so a
  /// name keeps its address).
  struct Where {
    const char* first;
    size_t first_size;
    const char* second;
    size_t second_size;
    bool operator==(const Where&) const = default;
  };
  /// The pairs already in seen_, sorted by where their names are: a lookup without comparing strings. Only a
  /// shortcut to skip the set: it never reaches a report, so the order of addresses decides nothing visible.
  std::vector<Where> known_;
};

/// The kinds of fault that fired in the executions observed: a step whose detail holds the word
/// `fault=KIND` or `fault=KIND:ARG` (the note a system writes into the step where it fires a fault; the
/// backend's: crash, raise, drop_response, fail_reads, fail_geometry, stale_reads, partial_reads) adds KIND.
/// For the reports' coverage ("never reached", docs/DESIGN.md §7); it decides nothing. Cost: one substring
/// search per step detail.
class FaultCoverage {
 public:
  using Set = std::set<std::string, std::less<>>;
  /// Adds the faults of one execution.
  void observe(const ExecutionResult& result);
  /// The kinds seen so far, ordered.
  const Set& kinds() const { return kinds_; }

 private:
  Set kinds_;
};

}  // namespace allocsim::sim

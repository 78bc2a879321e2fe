// Op atomicity (docs/DESIGN.md §5, "Op atomicity"): what an execution's result is, as the oracle compares it, and the
// set of results the scenario's op-level executions give.
//
// An op-level execution (CompiledScenario::atomic_ops) runs every call an op makes as one step: the barriers inside it
// are no scheduling points. An await counts as its polls, a reserve with `requests` as its three calls, a retried op
// as its attempts; the clock's advance and each foreign write are ops of their own. Faults are drawn where they are
// drawn in a barrier-level execution (at the same barriers, inside the op), so an op that crashes or raises part way
// leaves the same partial effect in both. The one interleaving inside a call that the protocol is built to survive (a
// writer between a reserve's read of a node and its compare-and-swap) is stood in for by a draw (ActorCaller,
// op_level_barrier), so a reserve can lose its CAS and roll back in an op-level execution as well.
//
// The result (render_result) is what a user or an invariant can observe once an execution has ended, and nothing that
// only counts how it got there:
//   - every actor's op outcomes, in script order;
//   - per node: its labels, owner and owner epoch, MIG config, state and layout, bound workloads, restore record;
//   - the claims as a set: owner, generation, status, whether its workload is ready, its entry and its nodes;
//   - the shared map's entries as a set (each with its nodes), the tombstone, the pointer and its restore value;
//   - the geometry writes still queued (node and due time), the failing-geometry nodes, the failed reads, the clock.
// Left out: resourceVersion and every other version (they count writes, and a reserve that lost its CAS and rolled
// back wrote), the audit log (judged by expect.audit and audit-explains-state), the order of the claims and of the map's
// entries, and id counters: each id "<kind>-<actor>-<n>" is renumbered by the rank of n among that kind's and actor's
// ids in the result, so that a lost attempt that drew ids does not make its actor's later ids differ.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backend/world/world_state.h"

namespace allocsim::harness {

/// The results of a scenario's op-level executions, computed once per scenario (backend/system/op_level.h).
struct OpLevelResults {
  /// Whether every op-level execution ran to its end within the bound; when not, ops-atomic holds everywhere and
  /// `note` says why it judged nothing.
  bool judged = false;
  std::string note;
  uint64_t executions = 0;  // op-level executions run
  /// The distinct results, by digest (ascending), each with its rendering and the op-level schedule that gave it
  /// first (the witness: "actor:call" units in order).
  struct Result {
    uint64_t digest;
    std::string text;
    std::string witness;
  };
  std::vector<Result> results;
  /// Unique in the process (never reused, unlike an address): what a verdict kept per raw digest is keyed by.
  uint64_t serial = next_serial();

  /// The result with this digest, or nullptr.
  const Result* find(uint64_t digest) const;

 private:
  static uint64_t next_serial();
};

/// The result of the execution `w` has ended, rendered into `out` (cleared first): one line per actor, per node, per
/// claim (sorted), then the map, the pointer, and the queues, as the header says.
void render_result(const WorldState& w, std::string& out);

/// `text` with every id "<kind>-<actor>-<n>" of one of `actors` renumbered "<kind>-<actor>-#<rank>", the rank of n
/// among the numbers of that kind and actor in `text` (1 for the lowest). An id ends a token or is followed by a
/// character that cannot be in one; an entry name "videoflow-<owner>-<generation id>" ends in one.
std::string renumber_ids(const std::string& text, const std::vector<std::string>& actors);

/// A digest of everything render_result() reads, as it is (ids, orders and label stamps included): executions
/// with equal raw digests render equal results, so a verdict can be kept per raw digest and the rendering skipped
/// (ops-atomic, atomicity.cpp). Never part of a report.
uint64_t raw_result_digest(const WorldState& w);

/// The digest of a rendered result (XXH3-64).
uint64_t result_digest(std::string_view text);

/// The lines of `a` and `b` that differ, position by position ("- line of a" / "+ line of b"), at most `max_lines`
/// pairs; and how many positions differ in all.
struct ResultDiff {
  size_t differing = 0;
  std::string text;
};
ResultDiff diff_results(std::string_view a, std::string_view b, size_t max_lines);

}  // namespace allocsim::harness

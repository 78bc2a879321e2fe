// ops-atomic (atomicity.h): the execution's result against the op-level results (docs/DESIGN.md §5, "Op atomicity").
#include "backend/invariants/atomicity.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "backend/world/op_results.h"

namespace allocsim::harness {

namespace {

constexpr const char* kOpsAtomic = "ops-atomic";
/// Differing lines a violation shows (the count says how many there are in all).
constexpr size_t kOpsAtomicShownLines = 8;
/// The state block's first line. Ids are renumbered in a result (op_results.h), so they differ from the trace's.
constexpr const char* kResultHeader =
    "result: this execution (-) against the nearest op-level result (+); ids renumbered by rank per kind and actor "
    "(#1: the actor's lowest id of that kind in the result), since id counters differ between executions that agree";
/// Verdicts kept per thread (check_ops_atomic).
constexpr size_t kOpsAtomicKept = 1024;

}  // namespace

std::optional<sim::Violation> check_ops_atomic(const CheckContext& c) {
  const OpLevelResults* op_level = c.world.compiled().op_level.get();
  if (op_level == nullptr || !op_level->judged) return std::nullopt;
  // The verdicts of results already rendered, per raw digest (op_results.h): most executions of a scenario end in a
  // few final states, and the raw digest costs a fraction of a rendering. Direct-mapped and fixed in size: a slot
  // another raw digest took is rendered again, never judged by the wrong entry.
  struct Kept {
    uint64_t serial = 0, raw = 0;
    bool in_set = false;
  };
  thread_local std::array<Kept, kOpsAtomicKept> kept{};
  const uint64_t raw = raw_result_digest(c.world);
  Kept& slot = kept[raw % kOpsAtomicKept];
  if (slot.serial == op_level->serial && slot.raw == raw && slot.in_set) return std::nullopt;
  thread_local std::string text;  // reused: a check at every quiescence allocates nothing once warm
  render_result(c.world, text);
  const bool in_set = op_level->find(result_digest(text)) != nullptr;
  slot = Kept{op_level->serial, raw, in_set};
  if (in_set) return std::nullopt;
  // The nearest op-level result: fewest differing lines, the lowest digest among equals (deterministic).
  const OpLevelResults::Result* nearest = nullptr;
  ResultDiff best;
  for (const OpLevelResults::Result& r : op_level->results) {
    ResultDiff d = diff_results(text, r.text, kOpsAtomicShownLines);
    if (nearest == nullptr || d.differing < best.differing) nearest = &r, best = std::move(d);
  }
  sim::Violation v;
  v.invariant = kOpsAtomic;
  if (nearest == nullptr) {
    v.message = "the scenario's op-level executions give no result at all, and this execution ended";
    v.state = "result:\n" + text;
    return v;
  }
  v.message = fmt::format(
      "no execution in which each op's calls run without another op's in between gives this result: it is none of "
      "the {} results of the scenario's {} op-level executions; the nearest ({} line{}) comes from the "
      "op-level schedule {}",
      op_level->results.size(), op_level->executions, best.differing, best.differing == 1 ? " differs" : "s differ",
      nearest->witness);
  v.state = fmt::format("{}\n{}", kResultHeader, best.text);
  return v;
}

std::vector<InvariantSpec> atomicity_invariants() {
  // clang-format off
  return {
      {kOpsAtomic, 29, "-", "the execution's result (every op's outcome and the observable final state) is one that some execution gives in which no op's calls interleave with another op's (op-level executions); judged at quiescence, when the scenario's op-level executions are few enough",
       check_ops_atomic, true, {"result:"}, 0, false, nullptr,
       "checked only at quiescence, last: the execution's result (every op's outcome and the observable final state) is one that an execution gives in which no op's calls interleave with another op's. Judged against the scenario's op-level executions (\"Op atomicity\" below), not on a property of one race; unjudged, with a note, for a scenario with more op-level executions than its bound"},
  };
  // clang-format on
}

}  // namespace allocsim::harness

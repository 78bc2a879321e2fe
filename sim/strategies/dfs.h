// `dfs`: every schedule, depth first, in a fixed order; optionally preemption-bounded.
//
// The tree: one node per choice of an execution (which actor runs next, or a value drawn inside a step:
// draws are choices and are branched like actors). Stateless: each execution replays the branch stack
// from the root and extends it with fresh nodes, each taking its first option; end_execution() moves to
// the next unexplored option of the deepest node that has one (Godefroid's VeriSoft style).
// Order: actors ascending by id, draws 0..bound-1. Under a preemption bound the first option at a node is
// the actor that just ran, when it can continue (so a fresh path adds no preemption).
//
// Preemption bounding (Musuvathi & Qadeer, PLDI 2007, CHESS's iterative context bounding): level 0
// explores every schedule with no preemption; a preemptive option met at level b is not taken but saved as
// a work item (the schedule prefix ending with that preemption) for level b+1; level b+1 runs the DFS of
// non-preemptive options under each saved item, in the order they were saved; and so on up to the bound.
// So every schedule with at most K preemptions runs exactly once, in order of preemption count. A
// preemption is the engine's (sim/engine.h): switching away from the actor that just ran while it is still
// runnable. Memory: the saved items of the next level (one prefix each). With a bound, `dfs` is plain DFS:
// DPOR is unsound under a preemption bound (Coons, Musuvathi & McKinley, OOPSLA 2013), so it is not used.
//
// Splitting and checkpoints (for sharded, resumable sweeps):
// - DfsOptions::prefix restricts the exploration to the subtree under a choice prefix (the prefix's nodes
//   are never branched); enumerate_prefixes() lists the prefixes at a depth, so that the subtrees under
//   them partition the whole tree (same bound). Executions shorter than the depth appear as their whole
//   schedule. Under a bound, a prefix's preemptions are learned from its first execution.
// - save()/restore() save and restore the position between executions: the branch stack
//   (per node: kind, the option being explored, the options left), the preemption level, and the work
//   items saved for the current and the next level. Restored into a strategy built with the same options,
//   the exploration continues exactly where it stopped.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine.h"
#include "sim/explorer.h"
#include "sim/schedule.h"  // format_choice / parse_choice (the checkpoint form of a choice)
#include "sim/strategy.h"

namespace allocsim::sim {

struct DfsOptions {
  std::optional<uint32_t> preemption_bound = {};  // nullopt: every schedule
  std::vector<Choice> prefix = {};                // explore only schedules that start with these choices
  std::optional<size_t> branch_depth = {};        // branch only at the first N choices (enumerate_prefixes)
};

class DfsStrategy final : public Strategy {
 public:
  explicit DfsStrategy(DfsOptions options = {});
  void begin_execution(uint64_t seed) override;
  /// Throws std::logic_error when a replayed choice is not possible (a nondeterministic world, or a
  /// prefix that does not fit the scenario).
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  bool end_execution(const ExecutionResult& result) override;

  /// Whether the whole tree (under the prefix, within the bound) has been explored.
  bool exhausted() const override { return done_; }
  /// The preemption level being explored (bounded mode).
  uint32_t level() const { return level_; }

  /// The position, as documented above: {"schema":"allocsim/dfs-state/v1", "level", "level_known",
  /// "fixed", "stack":[{"c":"a1","left":["a2"]}...], "this_level":[["a0","a1"]...], "next_level":[...],
  /// "done"}.
  nlohmann::json save() const override;
  /// Restores a position saved by save(). Throws std::invalid_argument on a malformed state.
  void restore(const nlohmann::json& state) override;

 private:
  struct Node {
    Choice choice;               // the option being explored
    std::vector<uint64_t> left;  // options not yet explored, in order (same kind as `choice`)
  };
  void start_item(const std::vector<Choice>& prefix);
  bool advance();
  std::vector<Choice> path_prefix(size_t len) const;

  DfsOptions opt_;
  std::vector<Node> stack_;
  size_t fixed_ = 0;  // stack_[0, fixed_) is the current root prefix: replayed, never branched
  size_t pos_ = 0;    // next node to replay in this execution
  uint32_t level_ = 0;
  bool level_known_ = true;  // false until the first execution under a user prefix (bounded mode)
  std::deque<std::vector<Choice>> this_level_, next_level_;
  bool done_ = false;
};

/// The distinct schedule prefixes of length `depth` (or whole schedules, when shorter) of the tree that
/// DfsStrategy with `bound` explores, in DFS order. The subtrees under them partition that tree: running
/// DfsStrategy{bound, prefix} for each explores every schedule exactly once overall. Runs one execution per
/// prefix. Worlds come from `make_world`; `engine` as for explore().
std::vector<std::vector<Choice>> enumerate_prefixes(Engine& engine, const WorldFactory& make_world, size_t depth,
                                                    std::optional<uint32_t> bound = std::nullopt);

}  // namespace allocsim::sim

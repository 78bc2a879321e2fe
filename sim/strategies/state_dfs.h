// `dfs --reduction states`: depth-first search with sleep sets and state caching (Godefroid, "Partial-Order
// Methods for the Verification of Concurrent Systems", LNCS 1032, 1996, ch. 5-6; Godefroid, Holzmann & Pirottin,
// "State-space caching revisited", FMSD 1995). Where DPOR runs about one execution per Mazurkiewicz trace, this
// runs about one step per (state, actor): many traces reach the same state, and the search explores what
// follows a state once.
//
// The search (stateless, like `dfs`: each execution replays the branch stack and extends it):
// - At every fresh choice the engine gives the fingerprint of the canonical state (Strategy::at_state; the world's
//   part is World::canonical_state, the engine's is sim/engine_states.cpp). The sleep set on entry holds the actors
//   whose step from an earlier sibling or an ancestor is independent of every step taken since (footprints,
//   sim/trace_equivalence.h); a step with draws sleeps with the union of its draws' footprints.
// - A state not in the table is stored with its sleep set Z, and every runnable actor outside Z is explored.
// - A state in the table, stored with sleep set Z', is explored again only for the actors in Z' \ Z: those the
//   earlier visits slept on and this one does not, under the sleep set Z ∩ Z'; the table then keeps Z' ∩ Z
//   (Godefroid's rule). With nothing
//   to explore, the execution is abandoned there (kAbandon): everything after it was explored from the earlier
//   visit. This rule is what makes sleep sets and state caching together sound: every reachable state is
//   visited, and every step from it is taken from it or from a state where it commutes with what followed.
// - Draws are branched over every value, without sleep sets.
// Why every verdict survives: invariants are checked after every step, and every reachable state is visited;
// the quiescence checks run at every final state reached; outcomes, audit entries and histories that
// expectations judge are part of the canonical state, so an execution cut at a visited state ends, in the
// earlier visit's subtree, in final states that hold them.
// What it needs of the world: World::canonical_state, and local states that the footprints keep honest (see
// sim/engine_states.cpp). Not with a preemption bound (the preemption count is not part of the state). With an
// order, the state includes the order's progress; an order-blocked run-out makes no choice and caches nothing.
//
// Symmetry (StateDfsOptions::symmetry, sim/symmetry.h): a fingerprint then stands for a state's orbit under
// renaming interchangeable actors, and the engine says which renaming took this state to the orbit's
// representative. The sleep masks in the table are kept under the representative's names, so a visit to another
// state of the orbit reads them through its own renaming: what an earlier visit slept on is what the renamed
// earlier state slept on. Verdicts then hold up to renaming: a violation, outcome or final state reached from one
// state of an orbit stands for its renamings (docs/DESIGN.md §2 "Symmetry").
//
// Counts: an execution is a path that reached its end (quiescence or a violation); a path cut at a visited state
// is `pruned`, one whose every runnable actor slept is `sleep_blocked`; neither is an execution (kAbandon).
// `states` counts the fresh choices (states visited, with repeats), the table's size the distinct ones.
//
// Splitting and checkpoints: StateDfsOptions::prefix restricts the search to the subtree under a choice prefix
// (never branched, no sleep sets there), as for `dfs`; each unit keeps its own table. save() keeps the branch
// stack's choices and options left, not the sleep sets nor the table: a restored search explores at least what
// the interrupted one would have (more, where sleep sets or the table would have pruned), but not exactly the
// same paths, so resumes_exactly() is false and a sweep checkpoints a unit of this strategy only when it is done.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine.h"
#include "sim/state_table.h"
#include "sim/strategy.h"
#include "sim/trace_equivalence.h"

namespace allocsim::sim {

struct StateDfsOptions {
  std::vector<Choice> prefix = {};                     // explore only schedules that start with these choices
  size_t state_memory = StateTable::kDefaultMaxBytes;  // the visited-state table's bound
  /// `--reduction symmetry`: states are taken up to renaming interchangeable actors (sim/symmetry.h), and the
  /// sleep set stored with a state is stored under its representative's names.
  bool symmetry = false;
};

/// What a state-caching search has seen so far.
struct StateCacheStats {
  uint64_t states = 0;         // fresh choices: states visited, counting repeats
  uint64_t distinct = 0;       // states stored in the table
  uint64_t pruned = 0;         // paths cut at a visited state with nothing left to explore there
  uint64_t reopened = 0;       // visited states explored again for actors every earlier visit slept on
  uint64_t sleep_blocked = 0;  // paths cut where every runnable actor slept
  bool symmetry = false;       // states were taken up to renaming (the world had interchangeable actors)
  uint64_t renamed = 0;        // of `states`, those whose representative renames some actor
  size_t table_bytes = 0;
  size_t table_max_bytes = 0;
  bool table_full = false;
  double collision_probability = 0;
};

class StateDfsStrategy final : public Strategy {
 public:
  explicit StateDfsStrategy(StateDfsOptions options = {});
  void begin_execution(uint64_t seed) override;
  /// Throws std::logic_error when a replayed choice is not possible (a nondeterministic world, a bad prefix),
  /// std::invalid_argument for an actor id of 64 or more (sleep sets are 64-bit masks in the table).
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  void step_done(const StepRecord& step) override;
  bool end_execution(const ExecutionResult& result) override;
  bool caches_states() const override { return true; }
  void at_state(uint64_t fingerprint) override {
    fingerprint_ = fingerprint;
    renaming_.clear();
  }
  bool uses_symmetry() const override { return opt_.symmetry; }
  /// The stack below its top node: advance() changed only the top's choice.
  ReplayedPrefix replayed_prefix() const override { return {id_, executions_, replayed_}; }
  void at_state_renamed(uint64_t fingerprint, std::span<const ActorId> renaming) override {
    fingerprint_ = fingerprint;
    renaming_.assign(renaming.begin(), renaming.end());
    stats_.symmetry = true;
  }

  bool exhausted() const override { return done_; }
  /// No: save() drops the sleep sets and the table (see the header), so a sweep reruns an interrupted unit.
  bool resumes_exactly() const override { return false; }
  StateCacheStats stats() const;

  /// {"schema": "allocsim/state-dfs-state/v1", "fixed", "done", "stack": [{"c": "a1", "left": ["a2"]}, ...]}.
  nlohmann::json save() const override;
  /// Throws std::invalid_argument on a malformed state.
  void restore(const nlohmann::json& state) override;

 private:
  struct Sleeper {
    ActorId actor;
    Footprint footprint;  // its step from the node where it was explored (draw values merged)
  };
  struct Node {
    Choice choice{};
    std::vector<uint64_t> left = {};     // options not explored yet, in order
    std::vector<Sleeper> sleep = {};     // actor nodes: asleep on entry
    std::vector<Sleeper> explored = {};  // actor nodes: the actors taken here so far (the last: `choice`)
    uint64_t fingerprint = 0;            // actor nodes made by choose(): the state there (0: prefix or restored)
  };
  /// The sleep set on entry to a node pushed now (after the step of the latest actor node).
  void sleep_on_entry(std::vector<Sleeper>& out) const;
  bool advance();
  /// A sleep mask of this state's actors under the representative's names, and back (sim/symmetry.h).
  uint64_t to_representative(uint64_t mask) const;
  uint64_t from_representative(uint64_t mask) const;

  StateDfsOptions opt_;
  StateTable table_;
  std::vector<Node> stack_;
  size_t fixed_ = 0;                   // stack_[0, fixed_) is the prefix: replayed, never branched
  size_t pos_ = 0;                     // next node to replay
  size_t last_actor_node_ = SIZE_MAX;  // this execution's latest actor node
  Footprint last_step_fp_;
  uint64_t fingerprint_ = 0;
  std::vector<ActorId> renaming_;  // this state's actors -> the representative's (empty: the identity)
  uint64_t id_;                    // unique per object (replayed_prefix)
  uint64_t executions_ = 0;        // begun so far
  uint64_t replayed_ = 0;          // choices of the coming execution that are the previous one's (replayed_prefix)
  bool done_ = false;
  StateCacheStats stats_;
};

}  // namespace allocsim::sim

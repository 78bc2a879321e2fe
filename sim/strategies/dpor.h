// `dfs --reduction dpor`: source-set DPOR, with optional sleep sets (Abdulla, Aronis, Jonsson & Sagonas, "Optimal
// Dynamic Partial Order Reduction", POPL 2014, Algorithm 1 "Source-DPOR"; classic DPOR: Flanagan &
// Godefroid, POPL 2005). Explores at least one execution of every Mazurkiewicz trace, usually about one.
//
// Driven by per-step footprints (EngineOptions::record_footprints MUST be on): two steps of different
// actors are dependent when one writes an object the other reads or writes (sim/trace_equivalence.h).
// What the world must guarantee for soundness: every step reports everything it reads or writes,
// including what the invariants read (the visibility condition, docs/DESIGN.md §2: a world whose invariants read
// several objects must make writes to them dependent); SimMutex reports its acquires, waits and releases.
//
// Stateless, like `dfs`: each execution replays the branch stack and extends it. After an execution, every
// race e1 ⋖ e2 (dependent steps of different actors, e1 happens-before e2 with nothing in between) adds, at
// the node before e1, one initial of notdep(e1).e2 unless an initial is already in that node's source set.
// Sleep sets (DporOptions::sleep_sets, on by default): an actor whose subtree at a node is done sleeps in the
// following siblings' subtrees until a dependent step wakes it. Together with source sets this runs about one
// execution per trace (1.00-1.01 on the scenarios, 1.003 over 25,000 random lock programs). Soundness details
// beyond the paper:
// - Draws (faults) are branching points inside a step. A sleep-set event is a step *with its draw values*
//   (sim/strategies/dpor_sleep.h): one entry per draw combination explored, with that combination's footprint,
//   so a sleeper wakes only for the draw values a step conflicts with, and a draw node skips the values whose
//   event sleeps. Race analysis still adds actors to source sets, and an actor taken at a node takes all its
//   draw values that are awake. One more rule keeps that sound: when the *first* choice at a node has a draw
//   combination asleep, every runnable actor joins the node's source set. Why: source-set DPOR relies on the
//   first choice p at a node: for a trace w from the node whose p-event is not first, the races of p's event
//   in p's subtree put an initial of w in the source set. If p's event in w is a sleeping draw value, p's
//   subtree never runs it and that race is never seen. Without the rule, a draws d and writes X+d, b writes
//   X, c writes X+1: after b, a's draw 1 sleeps (explored before b, independent of it); a is taken with draw 0,
//   which conflicts with nothing after, so c never joins that node and "b c a1" is lost (3 traces of 4;
//   tests/sim/dpor_differential.cpp; without the rule, seed 18 of its draws corpus keeps 220 of 231 traces).
//   With a whole source set the question does not arise: every trace's first event belongs to some actor
//   in it, explored unless that very event sleeps. Measured: 1.00 executions per trace on every fault
//   scenario (2.09 with one entry per step and the union footprint of its draws), 1.12 over random drawing
//   programs (1.34). A prefix node (below) is branched over every actor by the units, so a sleeping draw
//   there needs no rule: a unit whose prefix draw sleeps is covered by an earlier one and ends blocked.
// - Blocking (SimMutex): a blocked attempt is a step of its own (it writes the lock), and the waiter's retry
//   is another (StepRecord::waited_lock names its lock). A race i ⋖ j whose j is a retry is reversible only
//   if the retry can run in notdep(i).j, i.e. the lock is free there: the lock's steps in notdep are a prefix
//   of its steps after i, so the enabled set after the last of them (or before i) decides. A release followed
//   by the retry it enabled is not reversible; as in Flanagan & Godefroid's "last dependent, co-enabled
//   transition", the race is then taken with the latest earlier dependent step before which it is (the
//   previous acquire), which reverses the order of the two acquires. Before this check, such a race looked
//   reversible through any enabled initial of notdep, and with sleep sets a lock order went unexplored.
//   Checked against plain DFS over random lock-and-touch programs (tests/sim/dpor_differential.cpp).
// - An execution cut short by a violation (or steps-bounded, or an exception) leaves the next steps of the
//   other actors unseen; each is treated as a step that conflicts with everything, so the races it would
//   have had are still reversed (a violation is a halt that disables everyone).
// - When every runnable actor sleeps (sleep-set blocked), the rest of the execution is redundant: choose()
//   returns kAbandon and the engine ends it there (sim/strategy.h); the explorer does not count it as an
//   execution. Its steps so far are analysed like any execution's. Source sets without wakeup trees cannot
//   avoid these prefixes (Optimal DPOR's wakeup trees can); run out to their end, as they were before, they
//   were the whole of DPOR's redundancy: 2,295 of alloc-009-mixed-sharing's 12,931 executions (1.22 per trace),
//   each equivalent to one explored before. A blocked draw (every value of a step's draw asleep, which the
//   actor choice normally rules out) cannot abandon inside the step: that execution runs on, unbranched,
//   until its next choice.
// - The unseen steps of a cut-short execution are those of its unfinished actors and of the violating actor
//   (the halt is its next event); not those of actors that had finished (analyse() says why).
// Not combined with a preemption bound (unsound, Coons et al., OOPSLA 2013): with a bound, use DfsStrategy.
//
// Splitting and checkpoints: DporOptions::prefix restricts the search to the subtree under a choice prefix;
// races whose reversal lies inside the prefix are ignored, which is sound when the prefixes come from
// enumerate_prefixes() (plain DFS: every alternative inside the prefixes is another shard's prefix).
// DporOptions::prefix_siblings puts the earlier units' first steps to sleep at the prefix nodes
// (sim/strategies/dpor_units.h), so the units together run about what one unsplit DPOR runs; a unit whose own
// prefix choice is asleep is covered by earlier units: a sweep finds it at plan time (unit_sleep()) and runs
// nothing; given one anyway, this strategy ends it after one (sleep-set blocked) execution.
// save()/restore(): the branch stack (per node: kind, choice, runnable set, source set, done set, sleep set and explored footprints per draw
// combination, and for a draw node the actor node whose step draws there).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine.h"
#include "sim/strategies/dpor_sleep.h"
#include "sim/strategies/dpor_units.h"
#include "sim/strategy.h"
#include "sim/trace_equivalence.h"

namespace allocsim::sim {

struct DporOptions {
  std::vector<Choice> prefix = {};  // explore only schedules that start with these choices
  /// Empty, or one entry per prefix position: the earlier siblings at that prefix node and their steps'
  /// footprints (earlier_siblings(), sim/strategies/dpor_units.h), which start out asleep there.
  std::vector<std::vector<SiblingStep>> prefix_siblings = {};
  /// Sleep sets (on by default). Off leaves source sets alone: still sound, several times more executions
  /// per trace (tests/sim/dpor.cpp pins both).
  bool sleep_sets = true;
};

class DporStrategy final : public Strategy {
 public:
  explicit DporStrategy(DporOptions options = {});
  void begin_execution(uint64_t seed) override;
  /// Throws std::logic_error when a replayed choice is not possible (nondeterministic world, bad prefix).
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  void step_done(const StepRecord& step) override;
  bool end_execution(const ExecutionResult& result) override;

  /// Whether every source set under the prefix has been explored.
  bool exhausted() const override { return done_; }
  /// Executions that ended sleep-set blocked (redundant by construction), so far.
  uint64_t sleep_blocked() const { return sleep_blocked_; }

  /// The branch stack as JSON (schema allocsim/dpor-state/v2). Footprint objects are 64-bit ids.
  nlohmann::json save() const override;
  /// Restores a save() position (v2, or v1 whose sleep entries each stand for every draw value of their step).
  /// Throws std::invalid_argument on a malformed state.
  void restore(const nlohmann::json& state) override;

 private:
  struct Node {
    Choice choice{};
    uint64_t bound = 0;                     // draw nodes: values 0..bound-1
    size_t step_node = SIZE_MAX;            // draw nodes: the actor node whose step draws here (SIZE_MAX: prologue)
    std::vector<ActorId> enabled = {};      // actor nodes: runnable here, ascending
    std::vector<ActorId> backtrack = {};    // the source set (ascending; includes done)
    std::vector<ActorId> done = {};         // explored or being explored, in order
    std::vector<SleepEntry> sleep = {};     // asleep on entry
    std::vector<SleepEntry> explored = {};  // per done actor and draw combination: its step's footprint here
    bool redundant = false;                 // under a sleep-set-blocked point: never branched
  };
  /// The sleep set on entry to the node about to be pushed, into `sleep` (cleared first).
  void sleep_on_entry(std::vector<SleepEntry>& sleep) const;
  /// A node as new, from the storage of one popped earlier when there is one (its vectors' capacity kept).
  Node fresh_node();
  /// Pops the stack's last node into that storage.
  void pop_node();
  bool draws_asleep(size_t actor_node, const Combo& draws) const;
  Combo draws_before(size_t draw_node) const;
  void analyse(const ExecutionResult& result);
  /// Adds an initial of notdep(i).j to the source set at step i's node; false when every initial is blocked.
  bool add_race(size_t i, size_t j, ActorId j_actor);
  bool advance();

  DporOptions opt_;
  std::vector<Node> stack_;
  size_t fixed_ = 0;
  size_t pos_ = 0;
  size_t last_actor_node_ = SIZE_MAX;  // this execution's most recent actor node
  Footprint last_step_fp_;
  Combo step_draws_;  // the draws of the step in progress (since the last actor choice)
  // Storage reused across executions, not search state (save() ignores it): choose()'s runnable ids, and
  // popped nodes, whose vectors the next new nodes take over. Before, each new node and each choice
  // allocated (about 120 allocations per execution on the alloc-033 crash scenarios).
  std::vector<ActorId> enabled_;
  std::vector<Node> spare_;
  bool blocked_ = false;  // this execution went sleep-set blocked
  bool done_ = false;
  uint64_t sleep_blocked_ = 0;
  /// analyse()'s working storage, kept between executions so that race analysis does not allocate per
  /// execution (before, its happens-before matrix of vector<bool> rows and copied footprints were about a third
  /// of a DPOR sweep's instructions). Not part of the search state: save() and restore() ignore it.
  struct Analysis {
    std::vector<size_t> node_of_step, v, direct;
    std::vector<ActorId> actor, unseen, seen, initials;
    StepObjects objects;
    BitRows hb;
  } a_;
};

}  // namespace allocsim::sim

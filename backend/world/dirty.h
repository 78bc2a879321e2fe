// Incremental invariants (docs/DESIGN.md §5, "Incremental checking"): what a step wrote, and the memo the invariant
// checks keep between steps so that a step's check costs what the step touched, not the size of the state.
//
// Contract:
// - CheckMode: `full` runs every enabled invariant over the whole state after every step (the behaviour
//   before incremental checking); `incremental` (the default) runs, after a step, only the rows whose declared reads
//   (InvariantSpec::reads_kinds, backend/invariants/family.h) the step wrote, and per-node rows only on the
//   affected nodes; at quiescence, the quiescent-only rows in full and the rest only where they read something
//   there alone.
//   An execution's first check is incremental from the start state when compile() found that state clean
//   (StartMemo), else full. The mode is process-wide, set once from the command line (--check-invariants)
//   before any run; tests switch it between runs.
// - In incremental mode every state change must come through ActorCaller::touch (every backend call, fault
//   and foreign op does); a test that edits the state by hand marks its edits (DirtySet::write) or runs full.
// - NodeIndex: node name -> index in the scenario's node order; names not in the scenario give nullopt.
// - DirtySet::write() is called for every object write a step makes (ActorCaller::touch, the one funnel of
//   every backend write, faults and foreign ops included). It never allocates: nodes are bits in a vector
//   sized per scenario. A node write whose name no index resolves makes the next check full (conservative).
// - InvariantMemo: one per WorldState; reset() sizes it for the scenario (allocation only then).
// Nothing here hashes, reads a clock or depends on addresses.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/model/caller.h"
#include "backend/model/memory_backend.h"

namespace allocsim::harness {

enum class CheckMode : uint8_t { Incremental, Full };

/// The mode every check_invariants() call uses (process-wide; Incremental unless set).
CheckMode check_mode();
void set_check_mode(CheckMode mode);
/// "incremental" | "full" -> the mode; nullopt for anything else (the flag's error names the choices).
std::optional<CheckMode> check_mode_by_name(std::string_view name);

/// The kinds of state an invariant reads (InvariantSpec::reads_kinds): a row re-runs after a step that wrote
/// any of its kinds. kReadsStep: the row reads per-step harness state (stale reserves, pending geometry
/// writes), so it runs after every step. kReadsTold: the row judges only what the stepping actor was told
/// during the step (Told: a plan result, an observation, a recovery, an answer's envelope) and passes when it
/// was told nothing, so it runs after the steps that told something (Told::any()).
enum ReadKind : uint32_t {
  kReadsNodes = 1u << 0,
  kReadsClaims = 1u << 1,
  kReadsMap = 1u << 2,      // the shared map: entries, version, tombstone, deletion
  kReadsPointer = 1u << 3,  // the ClusterPolicy pointer and its version
  kReadsAudit = 1u << 4,    // audit entries appended since the previous check
  kReadsStep = 1u << 5,
  kReadsQuiescence = 1u << 6,  // the row reads more at quiescence (audit-explains-state: mutations())
  kReadsTold = 1u << 7,
};

/// Node name -> index in the scenario's node order, by binary search over names sorted once per scenario.
class NodeIndex {
 public:
  NodeIndex() = default;
  /// REQUIRES: `nodes` outlives the index (it keeps views of the names).
  explicit NodeIndex(const std::vector<backend::NodeFixture>& nodes);
  /// The index of the node named `name` (the last one, should two share a name), or nullopt.
  std::optional<uint32_t> find(std::string_view name) const;
  size_t size() const { return sorted_.size(); }

 private:
  struct Entry {
    uint64_t head;  // backend/model/name_head.h: most lookups compare these alone
    std::string_view name;
    uint32_t index;
  };
  std::vector<Entry> sorted_;  // by (head, name, index)
};

/// A set of node indices as bits; iterated in ascending order.
class NodeBits {
 public:
  void resize(size_t nodes) {
    // As new and empty. The same size as before (every execution's reset) only clears: assign() cost several
    // times more.
    const size_t words = (nodes + 63) / 64;
    if (words == words_.size())
      clear();
    else
      words_.assign(words, 0);
  }
  void set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  void assign(size_t i, bool on) {
    const uint64_t bit = uint64_t{1} << (i % 64);
    words_[i / 64] = on ? words_[i / 64] | bit : words_[i / 64] & ~bit;
  }
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
  void clear() { std::fill(words_.begin(), words_.end(), 0); }
  void merge(const NodeBits& o) {
    for (size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
  }
  bool any() const {
    for (uint64_t w : words_)
      if (w) return true;
    return false;
  }
  /// Replaces `out` with the set's indices, ascending (no allocation once `out` has the capacity).
  void list(std::vector<uint32_t>& out) const;
  /// Calls `f(index)` for every index in the set, ascending.
  template <class F>
  void each(F f) const {
    for (size_t w = 0; w < words_.size(); ++w)
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
  }

 private:
  std::vector<uint64_t> words_;
};

/// What the steps since the previous check wrote, and apart, which nodes the whole execution wrote.
class DirtySet {
 public:
  /// Sized for `nodes` nodes, empty, both the per-check part and the execution's (a new execution).
  void reset(size_t nodes);
  /// A write of object (`what`, `name`) (ActorCaller::touch with write = true).
  void write(backend::Obj what, std::string_view name, const NodeIndex& index);
  uint32_t kinds() const { return kinds_; }
  void add_kinds(uint32_t k) { kinds_ |= k; }
  const NodeBits& nodes() const { return nodes_; }
  /// A write the index could not place: the next check must be full.
  bool unresolved() const { return unresolved_; }
  /// After a check: forgets what the steps since the previous check wrote; the execution's part stays.
  void clear();
  /// The nodes written since reset() (every check's writes): what the next execution's world reset restores
  /// from the prototype (world_state.cpp). Exact only if every node write came through write().
  const NodeBits& execution_nodes() const { return execution_nodes_; }
  /// Some write since reset() named a node no index resolves (or could move any node): the world reset must
  /// copy every node.
  bool execution_unresolved() const { return execution_unresolved_; }

 private:
  void unresolved_write() { unresolved_ = execution_unresolved_ = true; }
  NodeBits nodes_;
  NodeBits execution_nodes_;
  uint32_t kinds_ = 0;
  bool unresolved_ = false;
  bool execution_unresolved_ = false;
};

/// audit-explains-state's replay of the audit log, kept across steps so that a step folds in only the
/// entries it appended (backend/invariants/audit.cpp). Values are sources, not pointers (the log reallocates as it
/// grows): kNone, kStart (the start state's value) or the audit index whose entry wrote it. InvariantMemo::reset
/// resets it field by field (to keep the vectors' capacity): a field added here is reset there too.
struct AuditReplay {
  static constexpr int64_t kNone = -1, kStart = -2;
  struct Node {
    int64_t owner = kStart, mig_config = kStart, restore_record = kStart;
  };
  std::vector<Node> nodes;
  /// Shared map entries in insertion order: >= 0 the audit index whose target names it; < 0 the start map's
  /// entry -(e + 3).
  std::vector<int64_t> entries;
  int64_t pointer = kStart;
  int64_t map_writes = 0, pointer_writes = 0;
  size_t applied = 0;  // audit entries folded in (from the start state's own log length)
  /// Nodes an entry folded in since the last comparison targeted (their replayed value may have moved).
  NodeBits targeted;
  bool valid = false;
};

/// Per scenario (CompiledScenario::start_memo): whether the start state, before any step, passes every
/// per-step invariant, and the memo's node sets for it. When it does, an execution's first check can be
/// incremental from the start state (the checks compile() ran on it stand for the full first check).
struct StartMemo {
  bool holds = false;
  NodeBits claim_nodes, entry_nodes, owned_nodes;
};

/// Per-world state of the incremental checks.
struct InvariantMemo {
  DirtySet dirty;
  bool primed = false;                // a full check has run in this execution
  NodeBits claim_nodes;               // nodes the claims referenced at the last check
  NodeBits entry_nodes;               // nodes on allocsim geometry (mig_config with the entry prefix) then
  NodeBits owned_nodes;               // nodes with an owner stamp then (all quiescent-clean needs to visit)
  NodeBits scratch;                   // the affected nodes of the check under way
  std::vector<uint32_t> all;          // 0 .. nodes-1: the full check's node list
  std::vector<uint32_t> some;         // the affected nodes, ascending
  std::vector<uint32_t> audit_nodes;  // audit-explains-state's: affected plus targeted by new log entries
  AuditReplay replay;
  // -- scratch the checks reuse so that they allocate nothing once these have grown: each check clears what it
  // uses before it uses it; never read as state --
  std::vector<std::pair<std::string_view, const backend::Claim*>> granted;  // no-double-grant: device -> claim
  std::vector<std::string_view> uuids;                                      // capacity-within-cards
  std::vector<std::pair<std::string_view, int>> layout_want, layout_got;    // mig-layout-matches-grant
  std::vector<std::string_view> entry_want, entry_got;                      // entry-lists-its-nodes
  std::vector<backend::Mutation> mutations;                                 // audit-explains-state: mutations()
  std::vector<std::string> mutation_kinds;                                  // audit-explains-state: its kind filter
  AuditReplay full_replay;                                                  // audit-explains-state, full check
  void reset(size_t nodes);
};

}  // namespace allocsim::harness

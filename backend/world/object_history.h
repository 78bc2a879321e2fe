// Object histories (docs/DESIGN.md §5, "Lost updates"): within one execution, the version history of every shared
// object the protocol's writers contend for, and the first lost update found in it.
//
// Objects: per node its owner stamp, its MIG config (the nvidia.com/mig.config label) and its restore record;
// the shared mig-parted map; the ClusterPolicy pointer. A version is made by a write that changes the object:
// an entry of the backend's audit log (upstream's `_record`, one row of history_rules() per kind) or a foreign
// write (backend/ops/op_foreign.cpp: another controller). The writer of a version is its principal: the flow on
// whose behalf the backend wrote (the actor named in the operation id, or for `recover` the flow it recovers: under
// a shared owner identity, the replica that made the released claim, backend/world/claim_maker.h),
// or the foreign actor. The map and the pointer are shared by every flow by design (the pointer names the map
// while any entry exists), so the backend's writes of them have one principal, the adapter. The start state is
// version 0, written by no principal.
//
// A principal observes a version when it writes it, or when a rule says the write's critical section read the
// object (record-restore copies the config it records; publish-entry reads the pointer it may switch).
//
// Lost update: a write whose rule says it is decided from the writer's last observation (Basis::LastObserved:
// the value comes from a record or an earlier read, not from the object as it is) replaces a present version
// that another principal wrote and the writer never observed. A write decided under the backend lock from the
// object as it is (Basis::Current: a compare-and-swap, an owner/epoch comparison, a map edit) cannot lose an
// update while the lock holds, and replacing an absent value (a cleared stamp or record) loses nothing; nor does
// replacing a version whose value is the one the writer last saw (another writer's round trip back to it). A
// write meant to create (Basis::Absent) that finds a present version loses it, whoever wrote it.
// Foreign writes make versions but are not judged: another controller is modelled as writing blind by design.
//
// Versions advance: every write the backend makes through the API (an audit entry whose rule names a Counter) moves
// its object's counter on (the node's resourceVersion, the map's or the pointer's version) by at least one per
// write; the API server moves it by one. The protocol's compare-and-swaps (the reserve's re-check before its owner
// stamp, the plan's generation, which is the sum of the nodes' resourceVersions) read only the nodes' counters, so a
// node write that does not advance its resourceVersion is one no CAS can see. A step whose writes of an object
// outnumber how far its counter moved is recorded (`unversioned`).
// Writes outside the API's audit (bind_workload's bump, the harness's version bumps) are not counted: they only
// move counters further, but for the op-level stand-in for another writer (shift_resource_version), whose +1 and
// -1 fall in one op-level step that counts no write of that node.
// A write that leaves the value as it was makes no version and loses nothing (a restore that writes back the
// config an administrator also chose), but is a sight of it; the map's values are not compared (every write of
// it makes a version: the backend's are all decided under the lock).
//
// Contract: after_step() is called after every step, in step order, with the step's index; foreign() and
// recovering() during the step they describe. The first lost update is kept (`lost`) and never replaced.
// Allocation: the tables are sized at reset() and reused across executions (WorldStorage).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/memory_backend.h"
#include "backend/world/dirty.h"

namespace allocsim::harness {

struct ActorState;

/// The objects whose versions are kept. Node fields are one object per node.
enum class Field : uint8_t { Owner, Config, Restore, Map, Pointer };
std::string_view field_name(Field f);

/// How a write is decided (see the header comment). Absent: the write is meant to create, decided from the
/// object being absent (upstream's `if node.restore_record is None`); replacing any present version loses it,
/// whoever wrote it.
enum class Basis : uint8_t { Current, LastObserved, Absent };

/// One effect of an audit entry on one object.
struct HistoryEffect {
  Field field;
  enum Kind : uint8_t { Write, Clear, Observe } kind;
  Basis basis;  // for Write and Clear
};

/// The version counter an audit kind's write advances (header comment, "Versions advance"). None: the entry is part
/// of another entry's write (record-restore rides on label-geometry's patch), or a planted mutant's deletion.
enum class Counter : uint8_t { None, Node, Map, Pointer };

/// One row of the history table: an audit kind (upstream's `_record` kinds, backend/CONTRACT.md §1), what it does
/// to the objects and the counter it advances, with the reason its basis is what it is (docs/DESIGN.md §5, "Lost
/// updates").
struct HistoryRule {
  std::string_view kind;
  std::vector<HistoryEffect> effects;
  Counter advances;
  std::string_view why;
};
/// Every audit kind the backend writes. An entry of a kind without a row is a port change the table has not
/// caught up with: after_step() throws std::logic_error.
const std::vector<HistoryRule>& history_rules();

/// Who made or observed a version.
struct VersionSource {
  int principal = -1;      // actor index; the actor count: the adapter (map, pointer); -1: the start state
  int64_t audit = -1;      // index into the backend's audit log, or -1
  int actor = -1;          // a foreign write's actor (its principal), or -1
  std::string_view what;   // the audit kind, or the foreign op's name
  std::string_view value;  // a foreign write's value (a view into the scenario); audit values are read from the log
  uint64_t step = 0;
};

struct ObjectVersion {
  uint32_t number = 0;
  bool present = false;
  VersionSource by;
};

/// A principal's sight of an object: the version it saw, as its writer made it, and the step that saw it (a
/// write of it, or a read the write's rule declares).
struct Sight {
  uint32_t number = 0;
  ObjectVersion version;
  VersionSource at;
};

/// The first step of an execution whose API writes of an object did not advance its counter as far as they number:
/// `writes` writes moved it from `before` to `after` (after - before < writes).
struct UnversionedWrite {
  Counter counter = Counter::None;
  uint32_t node = 0;  // the node's index, for Counter::Node
  int64_t before = 0;
  int64_t after = 0;
  uint32_t writes = 0;
  VersionSource by;  // the step's last write of the object
};

/// The first lost update of an execution.
struct LostUpdate {
  uint32_t object = 0;
  ObjectVersion replaced;             // the version lost
  ObjectVersion written;              // the write that replaced it
  Basis basis = Basis::LastObserved;  // the replacing write's rule
  std::optional<Sight> last_seen;     // the writer's last sight of the object; nullopt: never
};

class ObjectHistories {
 public:
  bool enabled = false;
  std::optional<LostUpdate> lost;
  std::optional<UnversionedWrite> unversioned;
  /// Every version made so far, in order (for the explanation's history block).
  std::vector<std::pair<uint32_t, ObjectVersion>> versions;

  /// Starts an execution over start state `s`; `actors` are the world's actors (principals by index).
  void reset(bool on, const backend::BackendState& s, const std::vector<ActorState>& actors);
  /// Folds in the audit entries appended since the last call (and the foreign writes noted during the step).
  /// REQUIRES: reset() before the first step; `index` is the compiled scenario's node index.
  void after_step(const backend::BackendState& s, const NodeIndex& index, const std::vector<ActorState>& actors,
                  uint64_t step);
  /// A foreign write by actor `actor` (foreign op `op`, value `value`) of `field` of node `node` (ignored for the
  /// map and the pointer), made in the current step.
  void foreign(Field field, uint32_t node, int actor, std::string_view op, std::string_view value, bool changed);
  /// The backend writes of operation `op_id` are on behalf of flow actor `flow` (`recover`).
  void recovering(std::string_view op_id, int flow);

  /// The value version `v` of object `object` holds: its audit entry's detail, a foreign write's value, or the
  /// start state's; empty when absent. `s` is the state whose audit log made the history.
  std::string_view value_of(uint32_t object, const ObjectVersion& v, const backend::BackendState& s) const;

  uint32_t object_count() const { return static_cast<uint32_t>(objects_.size()); }
  uint32_t object(Field f, uint32_t node) const;
  Field field_of(uint32_t object) const;
  /// The node index of a node field's object.
  uint32_t node_of(uint32_t object) const { return object % nodes_; }
  /// The digest of what decides later verdicts (canonical states, backend/world/state_digest.h): the current
  /// versions, the sights, the recoveries and the pending foreign writes; versions name their audit entry by its
  /// content in `s`, and step numbers are left out. The counters are left out too: between steps they are the
  /// state's own, which the backend's digest holds; so is `unversioned`, which ends the execution where
  /// write-advances-version is checked and decides nothing where it is not. Defined in state_digest.cpp.
  uint64_t canonical_digest(const backend::BackendState& s) const;

 private:
  friend struct HistoryDigest;  // the symmetric digest's parts (symmetric_digest.cpp)
  void write(uint32_t object, const HistoryEffect& e, const VersionSource& by, int principal,
             const backend::BackendState& s);
  /// Counts a write of `rule`'s counter (node `node` for Counter::Node) in this step; after_step compares.
  void count_write(const HistoryRule& rule, std::optional<uint32_t> node, const VersionSource& by);
  /// Each counter against the writes counted this step (`unversioned`), then the counters as they are now.
  void check_counters(const backend::BackendState& s);
  void observe(uint32_t object, int principal, const VersionSource& at);
  int principal_of(std::string_view op_id, const std::vector<ActorState>& actors) const;

  uint32_t nodes_ = 1;
  int principals_ = 0;
  size_t audit_seen_ = 0;
  std::vector<ObjectVersion> objects_;
  std::vector<std::string> start_values_;   // per object: its value in the start state
  std::vector<std::optional<Sight>> seen_;  // principal * objects + object: the last sight
  // (operation id, flow) of the recoveries so far; the first recovering_count_ are this execution's (the strings
  // keep their buffers across executions).
  std::vector<std::pair<std::string, int>> recovering_;
  size_t recovering_count_ = 0;
  struct Foreign {
    uint32_t object;
    VersionSource by;
    bool changed;
  };
  std::vector<Foreign> pending_;
  // Per counter (the nodes' resourceVersions by node index, then the map's version, then the pointer's): its value
  // after the last step, the writes counted this step, and the step's last write of it.
  std::vector<int64_t> counters_;
  std::vector<uint32_t> step_writes_;
  std::vector<VersionSource> step_by_;
};

}  // namespace allocsim::harness

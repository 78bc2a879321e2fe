// MemoryBackend: the upstream's in-memory AcceleratorAllocationBackend (seed/memory_backend.py), ported
// line for line. A cluster of GPU nodes as data, with the concurrency protocol real adapters must honour:
// reads can fail; ownership is a server-side CAS on resourceVersion; readiness is correlated with the
// write it answers; workloads hold devices; the shared mig-parted map is never deleted; every mutation is
// audited.
//
// Contract:
// - Every public operation takes a Caller first (caller.h): the upstream's global barrier, lock and id
//   counter, made explicit. The lock is taken exactly where the upstream's reindented reading holds
//   `self._lock`: owner.read.after, owner.update.before, owner.update.after, delete.before and
//   delete.after fire outside it; claim.create.after, claim.schedule.after, restore.before,
//   restore.after and claim.ready.after fire while it is held. Call by call ("[...]" a `with self._lock:`
//   block, names the barriers fired; tests in tests/backend/lock_table_test.cpp, "[lock-table]"):
//   | call                  | upstream (memory_backend_reindented.py)     | port          | test case ("lock table: ...")  |
//   |-----------------------|---------------------------------------------|---------------|--------------------------------|
//   | fail_reads            | [whole body]                                | same          | reads and test hooks ...       |
//   | inventory             | [whole body]                                | same          | reads and test hooks ...       |
//   | plan                  | none (reads its snapshot; next(_ids) bare)  | same          | plan takes no lock             |
//   | reserve               | [gen sum] then per node: [read] read.after  | same          | reserve's five regions ...     |
//   |                       | ([rollback] on a foreign owner) update.     |               | reserve's rollback ...         |
//   |                       | before [CAS write / rollback] update.after; |               |                                |
//   |                       | [claim create.after ... schedule.after obs] |               |                                |
//   | fail_geometry         | [whole body]                                | same          | reads and test hooks ...       |
//   | apply_pending_geometry| [whole body]                                | same          | reads and test hooks ...       |
//   | clock advance         | none: FakeClock.advance, then the caller's  | advance_clock | the clock advances outside ... |
//   |                       | apply_pending_geometry [locked]             | (no lock: as  | + "clock schedule: time ...    |
//   |                       |                                             | the upstream) |                                |
//   | observe               | [whole body]                                | same          | observe, mark_workload_ready...|
//   | mark_workload_ready   | [mark, claim.ready.after]                   | same          | observe, mark_workload_ready...|
//   | bindings, reconcile   | [whole body]                                | same          | observe, mark_workload_ready...|
//   | release               | [lookup ... restore.before ... restore.     | same          | release's four regions ...     |
//   |                       | after] [read map] delete.before [strip,     |               |                                |
//   |                       | last out] delete.after [pop claim]          |               |                                |
//   | bind/unbind_workload  | [whole body]                                | same          | reads and test hooks ...       |
//   | claims_of             | (port-only read for recover)                | [whole body]  | reads and test hooks ...       |
//   | shared_config,        | [whole body] (test reads)                   | state() /     | none: no Caller; read only     |
//   | mutations, node,      | node(), pointer(): none                     | mutations():  | between steps, when no actor   |
//   | pointer               |                                             | no lock       | is inside the backend          |
// - Nodes, claims, the shared map and geometry iterate in insertion order (scenario order), as the
//   upstream's dicts do. Nothing is sorted unless the upstream sorts it.
// - Errors: OwnershipConflict for the upstream's CAS failures (reserve, reconcile). A claim id the upstream
//   would index with `self._claims[...]` (KeyError) throws std::out_of_range naming the claim.
// - Deviations from the upstream (all documented in docs and here):
//   1. ids come from the Caller (per actor under the simulator);
//   2. a claim carries port-only bookkeeping for invariants (`releasing`, `label_versions`, `op_id`)
//      that no upstream behaviour reads;
//   3. mutants (mutants.h) switch on deliberate defects; with none set the behaviour is the upstream's;
//      claims_of() is a port-only read for recovery (ALLOC-033);
//   4. observations are stamped with the fake clock (upstream stamps the real monotonic clock), so that
//      nothing in an execution depends on wall time.
//   5. three port-only geometry test hooks beside the upstream's fail_geometry (geometry_hooks.cpp; the scenario
//      ops in docs/DESIGN.md §4): fail_geometry_for, geometry_without_effect and geometry_partial; unarmed,
//      apply_geometry is the upstream's and touches what it touched before;
//   6. one port-only read hook (read_hooks.cpp): hide_from_release, a release's workload check that misses named
//      workloads; unarmed, release decides as the upstream's, and reads the hook's object only in a backend built
//      with BackendOptions::release_read_hook (a scenario that can arm it).
//   7. one port-only hook of op-level executions (op_level_hooks.cpp; docs/DESIGN.md §5, "Op atomicity"):
//      shift_resource_version, which moves a node's resourceVersion and nothing else, so that a reserve loses its
//      compare-and-swap as it would to a writer between its read and its write; only ops-atomic's op-level
//      executions call it, and they take the move back after the reserve.
// - Porting rules, numbered and checked (check_mode.h; tests in tests/backend/port_rules_test.cpp). A broken one
//   throws PortRuleBroken naming it, never undefined behaviour:
//   1. Lock placement: the lock is taken exactly where the upstream writes `with self._lock:` (a LockGuard per
//      block); a barrier the upstream fires outside that block fires with no LockGuard alive on its caller, one
//      it fires inside with at least one (the table above). Checked at every barrier (barrier(), an int compare).
//   2. Lookups are redone after a barrier: other actors may have run, and a pointer or reference into the state's
//      nodes or claims (the upstream's Python references stay valid across the gap, C++ ones do not) is held only
//      inside a Pinned scope, and no barrier fires while one is alive. Checked at every barrier.
//   3. Recycled storage is assigned before it is read: a spare (spares.h), a Scratch, or an answer a *_into call
//      overwrites keeps an earlier execution's values until the port assigns them, so the port assigns every
//      field it later reads. In check mode each is poisoned before reuse, and every answer a *_into call hands
//      back must hold no poison (poisoned()), so a forgotten assignment fails at the call that forgot it.
//   4. Equal label stamps mean equal labels (StampedLabels); 5. the nodes keep their number and names
//   (mutable_state()'s REQUIRES); 6. answers keep their contract (a known inventory has no reason or detail and
//   lists exactly its scope's nodes, cards and version sum; a plan's devices are the snapshot's or MIG slices as
//   the upstream builds them). Checked in check mode: the memo
//   recomputed, the device list compared with the nodes, each inventory and plan inspected.
// - Footprints (Caller::touch), conservative, for DPOR and the state caches: the port reaches its state only through
//   FootprintedState (footprinted_state.h, which lists the objects), whose accessors record each object as they hand
//   it out; its untracked() only where that header's contract allows. Not a numbered rule: nothing checks it at run
//   time; there is no other way in, and tests/backend/footprint_writes_test.cpp checks the writes from outside. The
//   lock is the Caller's own business. plan() touches nothing: it reads only the snapshot it is given and node
//   products, which never change (FootprintedState::product).
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/backend_state.h"
#include "backend/model/caller.h"
#include "backend/model/check_mode.h"
#include "backend/model/contract.h"
#include "backend/model/contract_poison.h"
#include "backend/model/errors.h"
#include "backend/model/fake_clock.h"
#include "backend/model/footprinted_state.h"
#include "backend/model/gfd.h"
#include "backend/model/mutants.h"
#include "backend/model/packing.h"
#include "backend/model/plan_scratch.h"
#include "backend/model/spares.h"

namespace allocsim::backend {

struct BackendOptions {
  std::string authority = kAuthorityDevicePlugin;
  double mig_apply_seconds = 0.0;  // fake-clock delay before a geometry write reaches success
  MutantSet mutants;
  /// Port-only: some op may arm hide_from_release (read_hooks.cpp), so every release's workload check reads the
  /// hook's footprint object. Unset, releases touch exactly what upstream's did (no trace's footprints change).
  bool release_read_hook = false;
};

class MemoryBackend {
 public:
  /// The cluster `nodes` (scenario order; a repeated name keeps its first position, last value).
  MemoryBackend(std::vector<NodeFixture> nodes, BackendOptions options);

  /// Upstream `capabilities` (backend/CONTRACT.md §8): adapter "memory-<authority>", isolated MIG and hardware
  /// enforcement for managed-mig/dra, cooperative sharing only for local, elastic unless managed-mig.
  /// version_matrix is not modelled (the caller supplies its own).
  AllocationCapabilities capabilities() const;
  /// capabilities() as computed when the backend was built (its options never change after): for the
  /// capabilities-match-authority check at every quiescence, which would otherwise build the adapter name,
  /// longer than a short string's buffer, once per execution.
  const AllocationCapabilities& advertised() const { return advertised_; }

  /// Make `kind` ("nodes" | "pods" | "config") reads fail with `reason`; nullopt restores them.
  void fail_reads(Caller& c, const std::string& kind, std::optional<std::string> reason = "timeout");

  /// `scope_nodes`: nullopt = every node. Unknown when node reads fail; partial (no occupancy) when pod
  /// reads fail (unless the partial-inventory-is-idle mutant is on).
  Observation<InventorySnapshot> inventory(Caller& c, const std::optional<std::vector<std::string>>& scope_nodes);
  /// inventory() into `out`, reusing its containers' storage (the simulator's hot path): afterwards `out` holds
  /// what inventory() returns, except that an Unknown answer leaves `out.value` as it was (meaningless then).
  void inventory_into(Caller& c, const std::optional<std::vector<std::string>>& scope_nodes,
                      Observation<InventorySnapshot>& out);

  /// Upstream `plan`: whole devices by exhaustive per-host packing, MIG sharers on the first free node with
  /// smallest_profile + check_layout. Infeasible reasons worded as the upstream's.
  PlanOutcome plan(Caller& c, const std::vector<WorkloadRequest>& requests, const InventorySnapshot& snapshot);
  /// plan() into `out`, reusing the storage of the FeasiblePlan it holds (the simulator's hot path): afterwards
  /// `out` equals what plan() returns. REQUIRES: `out` is not part of `requests` or `snapshot`.
  void plan_into(Caller& c, const std::vector<WorkloadRequest>& requests, const InventorySnapshot& snapshot,
                 PlanOutcome& out);

  /// Upstream `reserve`: generation check, per-node read / barrier / owner check / barrier / CAS write,
  /// claim, entry, pointer, restore records, labels, (delayed) apply. Throws OwnershipConflict.
  ClaimObservation reserve(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                           const std::optional<std::string>& expected_generation);
  /// reserve() without the exception: a lost CAS sets `conflict` (what reserve() throws) and returns an empty
  /// observation, after exactly the effects reserve() has before it throws. The simulator's hot path.
  ClaimObservation try_reserve(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                               const std::optional<std::string>& expected_generation,
                               std::optional<OwnershipConflict>& conflict);
  /// try_reserve() into `out`'s storage, with the lost CAS as raw values: on success `loss` is empty and `out`
  /// equals what try_reserve() returns; after a lost CAS `loss.error()` is what reserve() throws and `out` is
  /// as it was. Allocates nothing when `loss` and `out` are warm (the simulator's hot path).
  void try_reserve_into(Caller& c, const FeasiblePlan& plan, const std::string& operation_id,
                        const std::optional<std::string>& expected_generation, ReserveLoss& loss,
                        ClaimObservation& out);

  /// Upstream `fail_geometry`: every later geometry application on `node` ends in state "failed" (ALLOC-021).
  void fail_geometry(Caller& c, const std::string& node);
  /// Port-only test hook (the upstream has none; geometry_hooks.cpp): applies on `node` fail until the fake clock
  /// reaches now + `seconds` (a failure that clears). std::invalid_argument for negative seconds.
  void fail_geometry_for(Caller& c, const std::string& node, double seconds);
  /// Port-only test hook (the upstream has none; geometry_hooks.cpp): from now on an apply on `node` reports
  /// `success` for its write (state and state generation) while the node's mig_layout stays as it was.
  void geometry_without_effect(Caller& c, const std::string& node);
  /// Port-only test hook (the upstream has none; geometry_hooks.cpp): the next `applies` applies on `node` carve
  /// only the first slice of the layout a successful apply would carve (its first profile, one instance) and
  /// report `failed` for their write: a half-made layout, as when a GPU instance is made and its compute instance
  /// is not. A second arming adds its applies. std::invalid_argument for applies < 1.
  void geometry_partial(Caller& c, const std::string& node, int applies);
  /// Port-only test hook (the upstream has none; read_hooks.cpp): the next `reads` release workload checks (the
  /// upstream's `busy = [n for n in claim.nodes if self._nodes[n].workloads]`, a recovery's releases included)
  /// list each node's workloads without `workloads` and act on that listing: a pod listing that omits running
  /// pods and says nothing about it. Arming again replaces the old arming. std::invalid_argument for reads < 1.
  void hide_from_release(Caller& c, const std::vector<std::string>& workloads, int reads);
  /// Port-only hook of op-level executions (the upstream has none; op_level_hooks.cpp): adds `by` to `node`'s
  /// resourceVersion and changes nothing else. +1 stands in for the update a barrier-level execution may put between
  /// a reserve's read of the node and its compare-and-swap; -1 takes it back after the reserve.
  /// std::invalid_argument for an unknown node.
  void shift_resource_version(Caller& c, const std::string& node, int64_t by);
  /// Upstream `apply_pending_geometry`: applies, in queue order, every write whose due time <= clock now.
  void apply_pending_geometry(Caller& c);
  /// Upstream `observe`: Unknown("<reason>", "node read failed") when node reads fail, Unknown("unreachable",
  /// "no claim <id>") for an unknown claim, else the claim's status by the precedence of backend/CONTRACT.md §1.
  Observation<ClaimObservation> observe(Caller& c, const std::string& claim_id);
  /// Upstream `mark_workload_ready`; fires claim.ready.after under the lock. std::out_of_range for an unknown claim.
  void mark_workload_ready(Caller& c, const std::string& claim_id);
  /// Upstream `bindings`: env CUDA_VISIBLE_DEVICES (mig uuid, else uuid, else ordinal) and VF_GPU_COUNT, the
  /// first node as hostname selector, nvidia.com/gpu limit = device count. std::out_of_range for an unknown claim.
  WorkloadBindings bindings(Caller& c, const std::string& claim_id, const std::string& workload_id);
  /// Upstream `reconcile`: OwnershipConflict when `expected_generation` is not the claim's; desired "failed"
  /// forces failed; returns the observation. std::out_of_range for an unknown claim.
  ClaimObservation reconcile(Caller& c, const std::string& claim_id, const std::string& desired,
                             const std::string& expected_generation);
  /// Upstream `release` (backend/CONTRACT.md §1 release outcomes): unknown claim -> released "already released";
  /// wrong generation -> stale; busy nodes or keep_workloads -> pending_recovery; config reads failing ->
  /// pending_recovery with ownership kept; else restores geometry and owners, strips the entry (last one
  /// out restores the pointer and tombstones the map) and removes the claim -> released.
  ReleaseObservation release(Caller& c, const std::string& claim_id, const std::string& operation_id,
                             const std::string& expected_generation, bool keep_workloads = false);
  /// release() into `out`, its buffers reused (docs/DESIGN.md §5, "Storage reused across executions": a warm release
  /// allocates nothing): every field assigned when it returns; when a barrier unwinds it (an actor crash), `out` keeps
  /// what it held.
  void release_into(Caller& c, const std::string& claim_id, const std::string& operation_id,
                    const std::string& expected_generation, bool keep_workloads, ReleaseObservation& out);

  /// Port-only read (the upstream has no claim listing; a Kubernetes adapter lists its ResourceClaims by owner
  /// label): (claim id, generation) of every claim whose owner is `owner`, in insertion order. What a
  /// restarted controller can read back to re-run a crashed flow's cleanup (ALLOC-033). Takes the lock;
  /// writes nothing.
  std::vector<std::pair<std::string, std::string>> claims_of(Caller& c, const std::string& owner);

  /// A workload (ours or foreign) now holds `units` devices on `node`; bumps its resourceVersion (upstream).
  void bind_workload(Caller& c, const std::string& node, const std::string& workload_id, int units);
  /// Drops the workload; deliberately no resourceVersion bump (upstream; backend/CONTRACT.md §8).
  void unbind_workload(Caller& c, const std::string& node, const std::string& workload_id);
  /// Moves the fake clock (negative -> std::invalid_argument) without taking the lock, as the upstream's
  /// FakeClock.advance never does (docs/DESIGN.md §2, "The lock"). Does not apply pending geometry
  /// (apply_pending_geometry does).
  void advance_clock(Caller& c, double seconds);

  /// Ends every claim, audit entry and shared-map entry and the pointer's restore record at once, keeping their storage
  /// for later ones (a world reset, before the state is copied from its prototype; docs/DESIGN.md §5, "Storage reused
  /// across executions"). Same as clearing state().claims, .audit, .shared_config and .pointer_restore, to every
  /// reader.
  void recycle_state();

  /// Everything the backend holds, for invariants and tests (read-only).
  const BackendState& state() const { return s_.untracked(); }
  /// For tests and read faults that build a state by hand. REQUIRES: the nodes keep their number and their
  /// names, gpu_count, product and memory_gib (inventory hands out a device list built from them once).
  BackendState& mutable_state() { return s_.untracked(); }
  /// The state through its accessors, which record footprints (footprinted_state.h): for writers beside the port
  /// (the harness's foreign writes, another controller writing through the API server), so that their writes touch
  /// the objects the port's own reads touch.
  FootprintedState& footprinted() { return s_; }
  const BackendOptions& options() const { return opt_; }

  /// Audit entries, optionally only those of the given kinds.
  std::vector<Mutation> mutations(const std::vector<std::string>& kinds = {}) const;
  /// mutations() into the first n elements of `out`, reusing its elements' storage; returns n. Elements past n
  /// are kept for their buffers (contents unspecified): what the audit-explains-state invariant calls at
  /// quiescence, so that it allocates nothing once `out` has grown. mutations() is this into a new vector.
  size_t mutations_into(const std::vector<std::string>& kinds, std::vector<Mutation>& out) const;

 private:
  friend struct PortRulesTest;  // tests/backend/port_rules_test.cpp: breaks each porting rule on purpose

  /// Where a barrier fires relative to `with self._lock:` (the lock table above).
  enum class At : bool { kOutsideLock, kUnderLock };
  /// Caller::barrier's compiled form, after porting rules 1 and 2 are checked (`name` a known barrier, too, in
  /// check mode). Every barrier the port fires goes through here.
  template <class S, class... Args>
  void barrier(Caller& c, At at, std::string_view name, const S& detail, const Args&... args) {
    if (at == At::kOutsideLock)
      ALLOCSIM_PORT_CHECK(c.lock_guards() == 0, "1 (a barrier fired outside the lock with a LockGuard alive)");
    else
      ALLOCSIM_PORT_CHECK(c.lock_guards() > 0, "1 (a barrier fired under the lock with no LockGuard alive)");
    ALLOCSIM_PORT_CHECK(pinned_ == 0, "2 (a barrier fired while a reference into the state is held)");
    ALLOCSIM_PORT_CHECK_SLOW(barrier_known(name), "barrier names are backend/CONTRACT.md §2's");
    c.barrier(name, detail, args...);
  }
  static bool barrier_known(std::string_view name);  // barriers.h's is_barrier (memory_backend_storage.cpp)
  /// Alive while the port holds a pointer or reference into the state's nodes or claims (porting rule 2). Nests.
  class Pinned {
   public:
    explicit Pinned(MemoryBackend& b) : b_(b) { ++b_.pinned_; }
    ~Pinned() { --b_.pinned_; }
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;

   private:
    MemoryBackend& b_;
  };
  int pinned_ = 0;  // Pinned scopes alive (0 between calls, and so in every copy)

  // The steps of plan_into, try_reserve_into and release_into: each one block of the upstream's function, in its
  // order (the .cpp cites each step's upstream lines). A *Call holds what the steps of one call share. Inline, each
  // defined and called in its own file only: as calls, the steps cost ALLOC-004 about 4 % of its steps/s.
  struct PlanCall;     // memory_backend_plan.cpp
  struct ReserveCall;  // memory_backend_reserve.cpp
  struct ReleaseCall;  // memory_backend_release.cpp
  inline void plan_index_devices(const InventorySnapshot& snapshot);
  inline void plan_free_nodes(PlanCall& call);
  inline void plan_whole_devices(PlanCall& call);
  inline void plan_mig_sharers(PlanCall& call);
  inline bool reserve_generation_ok(Caller& c, ReserveCall& call);
  inline bool reserve_stamp_node(Caller& c, ReserveCall& call, const std::string& node_name);
  inline void reserve_create_claim(Caller& c, ReserveCall& call);
  inline void reserve_publish_geometry(Caller& c, ReserveCall& call, Claim& claim);
  inline void reserve_label_node(Caller& c, ReserveCall& call, Claim& claim, const std::string& node_name);
  inline void release_steps(Caller& c, const std::string& claim_id, const std::string& operation_id,
                            const std::string& expected_generation, bool keep_workloads, ReleaseObservation& out);
  inline bool release_check(Caller& c, ReleaseCall& call);
  inline bool release_restore(Caller& c, ReleaseCall& call);
  inline void release_strip_entry(Caller& c, ReleaseCall& call);
  /// `map`: the shared map's fields, which release_strip_entry's step writes.
  inline void release_last_out(Caller& c, ReleaseCall& call, FootprintedState::SharedMapFields& map);
  inline void release_pop_claim(Caller& c, const std::string& claim_id);
  void rollback(Caller& c, std::span<const std::string> stamped, const std::string& generation,
                const std::string& operation_id);
  void apply_geometry(Caller& c, const std::string& node, int64_t version);
  ClaimObservation observe_claim(Caller& c, const Claim& claim) const;
  void observe_claim_into(Caller& c, const Claim& claim, ClaimObservation& obs) const;
  /// A claim as `Claim{}` starts, holding a spare claim's buffers for the fields try_reserve_into assigns.
  Claim new_claim();
  /// `to = from`, the notes through spare_texts_ (assign_keeping), for a claim's copy of its plan.
  void assign_plan(FeasiblePlan& to, const FeasiblePlan& from);
  /// The upstream's `self._audit.append(Mutation(...))`, into a spare entry's buffers.
  void record(Caller& c, const std::string& op_id, std::string_view kind, std::string_view target,
              std::string_view detail);
  /// The upstream's `self._config.pop(entry, None)` on the map's `entries`, keeping the entry's buffers for a later
  /// publish.
  void erase_entry(FootprintedState::SharedConfig& entries, const std::string& entry);
  template <class T>
  Observation<T> known_now(const FakeClock& clock, T value, std::optional<std::string> generation) const;
  template <class T>
  Observation<T> unknown_now(const FakeClock& clock, std::string reason, std::string detail) const;

  /// The devices inventory lists, line 182's tuple for `scope`: built from fields no call changes (a node's name,
  /// gpu_count, product, memory), so once per scope. The whole pool's list is built with the backend; the last
  /// scoped one is kept with its scope. A copied backend shares them with its source, along with the same nodes.
  const DeviceTuple& devices_for(const std::optional<std::vector<std::string>>& scope);
  /// Porting rule 5 (check mode): the whole pool's device list still matches the nodes it was built from.
  void check_devices() const;

  FootprintedState s_;  // the port reaches its state only through its accessors, which record footprints
  DeviceTuple all_devices_;
  bool all_devices_built_ = false;
  std::optional<std::vector<std::string>> scoped_devices_scope_;  // nullopt: no scoped list built yet
  DeviceTuple scoped_devices_;
  BackendOptions opt_;
  AllocationCapabilities advertised_;  // capabilities(), once (advertised())
  Scratch<PlanScratch> plan_scratch_;
  /// Per node index: the stamp of the labels a GFD classification was last computed from, and its result. A
  /// node's labels never change in the upstream, so inventory classifies each node about once per backend object;
  /// labels written since (a foreign set_labels, a read fault's stale view, a test) carry another stamp.
  struct LabelClass {
    uint64_t stamp = 0;
    std::string_view result;  // a kClass* constant
    bool known = false;
  };
  Scratch<std::vector<LabelClass>> label_classes_;
  std::string_view labels_class(size_t node, const StampedLabels& labels) {
    const std::vector<LabelClass>& memo = label_classes_.get();
    if (node < memo.size() && memo[node].known && memo[node].stamp == labels.stamp()) {
      ALLOCSIM_PORT_CHECK_SLOW(memo[node].result == gfd_class(labels.get()), "4 (equal label stamps, other labels)");
      return memo[node].result;
    }
    return classify_labels(node, labels);
  }
  std::string_view classify_labels(size_t node, const StampedLabels& labels);  // and remember the answer
  // Removed values kept for their buffers (backend/model/spares.h): claims (new_claim, and release's copy of
  // its claim), audit entries, shared-map entries, release's copies of the shared map (its `seen`: one per
  // release in flight, since a release yields between the read and the write), the pointer's restore record.
  using SharedConfig = FootprintedState::SharedConfig;
  Spares<Claim> spare_claims_;
  Spares<Mutation> spare_mutations_;
  Spares<SharedConfig::value_type> spare_entries_;
  Spares<SharedConfig> spare_seen_;
  // Texts: the pointer's restore record, and the entries a list of texts dropped (resize_keeping): a plan's notes,
  // a release's node names (its answer's, its copy's).
  Spares<std::string> spare_texts_;
  Scratch<std::string> text_scratch_;  // an audit detail or a release's reason being built (neither yields)
  Scratch<OrderedMap<std::string, int>> layout_scratch_;  // apply_geometry's layout (it never yields)
};

}  // namespace allocsim::backend

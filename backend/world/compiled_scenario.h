// A scenario compiled once per run (docs/DESIGN.md §1): the prototype backend every execution's world copies,
// the invariants chosen for it (as data: indices into the invariant table and the step rows the check driver
// reads, set by backend/invariants/invariant_table.h set_invariants()), and the spare storage of worlds that ended.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"
#include "backend/world/actor_symmetry.h"
#include "backend/world/dirty.h"
#include "sim/world.h"

namespace allocsim::harness {

struct WorldStorage;    // world_state.h
struct OpLevelResults;  // op_results.h
struct CheckContext;    // backend/invariants/check.h

/// An invariant's check function (backend/invariants/invariant_table.h InvariantSpec::Check).
using InvariantCheck = std::optional<sim::Violation> (*)(const CheckContext&);

/// A scenario compiled once per run: the prototype backend every execution copies, and the enabled
/// invariants as indices into the invariant table (in table order), with what their checks need per step.
/// REQUIRES: used by one thread at a time (campaign::Compiled's contract): its worlds reuse the storage of
/// worlds that ended (`spare`), which is not synchronised.
struct CompiledScenario {
  const Scenario* scenario = nullptr;
  backend::MemoryBackend prototype;
  /// The prototype's state without its nodes: what a world reset copies whole (reset_world_storage); the nodes
  /// it restores one by one, those the previous execution wrote.
  backend::BackendState prototype_rest;
  std::vector<size_t> invariants;  // indices into invariant_table(), ascending; set_invariants() sets them
  /// Of `invariants`, the rows a check after a step (not at quiescence) may run, in the same order, with the
  /// function an incremental check calls: check_incremental's per-step loop reads these few bytes a row
  /// rather than the table's rows. set_invariants() keeps the two in step.
  struct StepRow {
    InvariantCheck check;
    uint32_t reads_kinds;
    bool per_node;
  };
  std::vector<StepRow> step_rows;
  /// Whether the invariants that read what check_invariants records after every step are checked: geometry
  /// writes (no-apply-under-later-workload, geometry-converges) and bound workloads (bound-workload-covered).
  /// Without them the recording is skipped.
  bool records_geometry_writes = false, records_bound_workloads = false;
  /// Whether no-lost-update or write-advances-version is checked: the world keeps its object histories
  /// (object_history.h) only then.
  bool records_histories = false;
  NodeIndex node_index;  // of the prototype's nodes (dirty.h: incremental invariants)
  StartMemo start_memo;  // the start state's verdict (dirty.h; backend/invariants/check.h start_memo())
  /// The storage of worlds that have ended, reset in place by the next world (its containers keep their
  /// capacity, so an execution after the first few allocates little); one per world alive at once.
  mutable std::vector<std::unique_ptr<WorldStorage>> spare;
  /// Per actor: the footprint id of its "life" mutex when some `recover` op names it
  /// (backend/system/backend_world.h), else nullopt.
  std::vector<std::optional<uint64_t>> life_ids;
  /// Per actor: for a write-behind's background actor (conditional_ops.h), the footprint id of its gate, the
  /// SimMutex its issuer holds from its prologue until it has passed the op; else nullopt.
  std::vector<std::optional<uint64_t>> gate_ids;
  /// Per actor: the background actors whose gates it holds (its write-behind ops'), in script order.
  std::vector<std::vector<size_t>> gates_held;
  /// The scenario's interchangeable actors (actor_symmetry.h), for `dfs --reduction symmetry`: found on first use
  /// (a JSON text of the scenario is more than other strategies should pay for), then kept.
  const ActorSymmetry& symmetry() const;
  bool read_fault_ops = false;       // some script has a stale_reads or partial_reads op
  bool admission_fault_ops = false;  // some script has a reject_binds op (admission_faults.h)
  /// Some start label or set_labels op names an operand label (admission_faults.h device_plugin_off): only then does a
  /// bind read its node's labels, so that other scenarios' footprints stay as they were.
  bool operand_labels = false;
  /// Per actor: some recover with lease_seconds names it (leases.h); empty when none does.
  std::vector<char> leased;
  /// Some bind_workload names a resource or a claim (kubelet_admission.h): only then do binds and unbinds touch
  /// PodResources, so that other scenarios' footprints stay as they were.
  bool pod_resources = false;
  /// Per actor: a bind_workload of another actor names this actor's claim (kubelet_admission.h actor_claims_id),
  /// so this actor's reserves and releases write its claims object; empty when none does.
  std::vector<char> claims_named;
  /// An op-level execution (op_results.h; docs/DESIGN.md §5, "Op atomicity"): every call point is a scheduling
  /// point, no barrier is; ActorCaller draws the stand-in for a writer inside a reserve instead.
  bool atomic_ops = false;
  /// The results of the scenario's op-level executions, when ops-atomic is checked (backend/system/op_level.h;
  /// shared between the compiles of one scenario); nullptr otherwise.
  std::shared_ptr<const OpLevelResults> op_level;
  CompiledScenario(const Scenario* sc, backend::MemoryBackend proto);

 private:
  mutable std::once_flag symmetry_once_;
  mutable ActorSymmetry symmetry_;

 public:
  ~CompiledScenario();
  CompiledScenario(const CompiledScenario&) = delete;
  CompiledScenario& operator=(const CompiledScenario&) = delete;
};

/// Builds the prototype, its node index and what the world reset needs (prototype_rest, life_ids,
/// read_fault_ops); chooses no invariant (the adapter's compile(), backend/system/backend_world.h, does).
/// `extra_mutants` (from the command line) are added to the scenario's. Throws ScenarioError for an unknown
/// mutant name.
std::unique_ptr<CompiledScenario> compile_prototype(const Scenario& scenario,
                                                    const std::vector<std::string>& extra_mutants);

}  // namespace allocsim::harness

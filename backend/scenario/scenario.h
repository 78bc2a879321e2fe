// Scenario files, schema `allocsim/scenario/v1` (docs/DESIGN.md §4): the cluster, the actors and their
// scripts, the invariants to check, and the expected outcome.
//
// Contract: load_scenario() either returns a fully validated Scenario or throws ScenarioError naming the
// file, the JSON pointer and what was expected. Unknown keys are errors (with a did-you-mean). Every
// reference is resolved at load time (plan_from names an actor, a node op names a node, mutants,
// invariants and barriers exist, expect names real actors, ops and outcomes), so a loaded scenario never
// fails for a reason the file could have told.
//
// Fault injection (`faults`, FaultSpec below) and recovery (`recover`, ALLOC-033): a `recover` op names
// another actor (`flow`); it first waits until that actor has ended (finished or crashed), as a restarted
// controller starts after the old one died, then reads back the backend's claims whose owner is that flow's
// identity (MemoryBackend::claims_of; ActorSpec::identity, less the claims the recovering actor holds) and releases
// each, oldest first, by its claim id and generation, with operation id `<actor>:recover<k>`. Outcomes: `released` (every claim found released), `none` (nothing
// found: nothing written), `pending_recovery` / `stale` (some release said so), or a fault's word.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/contract.h"
#include "backend/model/mutants.h"
#include "sim/order.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {

using backend::OrderedMap;

/// A malformed scenario: `file`, `pointer` (RFC 6901, "" = the whole document) and `message`.
/// what() is "FILE: POINTER: MESSAGE" (support::located: the root is "(document root)"), or "FILE: MESSAGE"
/// for an error about the file itself (support::InputError::about_file).
class ScenarioError : public support::InputError {
 public:
  using InputError::InputError;
  /// The reader's error as it is (its place, or none for an error about the file).
  explicit ScenarioError(const support::InputError& e) : InputError(e) {}
};

/// One workload request of a plan/reserve op. The actor's identity (ActorSpec::identity) is its flow id.
struct RequestSpec {
  std::string workload;
  int devices = 1;                                   // >= 1
  std::string sharing = backend::kSharingExclusive;  // exclusive|isolated_mig|cooperative|accounting_only
  std::optional<double> minimum_usable_memory_gib;   // >= 0
};

enum class OpKind {
  Inventory,
  Plan,
  Reserve,
  Observe,
  Await,
  MarkReady,
  Reconcile,
  Release,
  BindWorkload,
  UnbindWorkload,
  FailReads,
  RestoreReads,
  FailGeometry,
  AdvanceClock,
  Recover,
  // Foreign writes (backend/ops/op_foreign.cpp): another controller's single locked
  // write, not an upstream call.
  SetLabels,
  SetMigState,
  WriteSharedMap,
  SetPointer,
  // Read and geometry faults with shape (docs/DESIGN.md §4; backend/ops/op_faults.cpp)
  StaleReads,
  PartialReads,
  FailGeometryFor,
  GeometryNoEffect,
  GeometryPartial,
  // An admission fault (docs/DESIGN.md §4; backend/world/admission_faults.h): a kubelet refuses binds
  RejectBinds,
};

// Each kind's name, keys, outcomes and behaviour are its rows of the op table (op_syntax.h,
// backend/ops/op_behaviour.h); these three read the syntax row.
/// The op's name as written in scenario files ("mark_ready"); a static string.
const char* op_name(OpKind k);
/// Every op name, in enum order.
const std::vector<const char*>& op_names();

/// The outcomes an op of kind `k` can record (the vocabulary of expect.actors).
const std::vector<const char*>& op_outcomes(OpKind k);

/// `retry` on a reserve with `requests` (conditional_ops.h): when the attempt ends in one of `on`, the
/// reserve runs again (inventory, plan, reserve), at most `max` more times.
struct RetrySpec {
  std::vector<std::string> on;  // outcomes that trigger a retry: "conflict" | "infeasible", file order
  int max = 1;                  // 1..kMaxRetries (conditional_ops.h)
};

/// `when` on any op (conditional_ops.h): the op runs only if op `op` of the same script (an earlier one)
/// ended in `outcome`; otherwise it records `skipped` without a scheduling point.
struct WhenSpec {
  size_t op = 0;  // index in the actor's script, 0-based like the JSON pointer; < the op's own index
  std::string outcome;
};

inline constexpr int kMaxStaleWrites = 8;      // stale_reads' `writes`, 1..this (backend/world/read_faults.h)
inline constexpr int kMaxFaultedReads = 16;    // stale_reads' and partial_reads' `reads`, 1..this
inline constexpr int kMaxFaultedApplies = 16;  // geometry_partial's `applies`, 1..this
inline constexpr int kMaxRefusedBinds = 16;    // reject_binds' `binds`, 1..this

struct Op {
  OpKind kind = OpKind::Inventory;
  std::string pointer;  // where the op is in its file, e.g. "/actors/0/script/2"
  // inventory
  std::optional<std::vector<std::string>> nodes;  // scope; nullopt = every node
  // plan, reserve
  bool has_requests = false;
  std::vector<RequestSpec> requests;
  std::optional<std::string> plan_from;  // reserve: another actor's last plan (ALLOC-004)
  // await, reconcile
  std::string status;  // await: the claim status to wait for; reconcile: the desired status
  int polls_max = 1;   // await: >= 1, <= 1000
  // release
  bool keep_workloads = false;
  // bind_workload, unbind_workload, fail_geometry
  std::string node;
  std::string workload;
  int units = 1;  // bind_workload: >= 1
  // bind_workload: the actor whose newest claim the pod names (its units and resource then come from upstream's
  // bindings() for that claim); nullopt = the pod names no claim
  std::optional<std::string> bind_claim;
  // bind_workload: the extended resource the pod asks ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb"), checked by the
  // kubelet against what the node advertises (backend/world/kubelet_admission.h); empty = not named (no check)
  std::string resource;
  // fail_reads, restore_reads: "nodes" | "pods" | "config"
  std::string read_kind;
  // advance_clock: seconds >= 0
  double seconds = 0;
  // recover: the flow (another actor's name) whose cleanup this op re-runs (ALLOC-033), and whether it first
  // waits for that flow's actor to end (`wait`, default true); false is a sweeper that believes the flow's
  // lease expired while the flow may still run
  std::string flow;
  bool wait_for_end = true;
  // recover: a sweeper's lease (backend/world/leases.h): recover only once the fake clock is at least this many
  // seconds past the flow's last renewal, else record `unexpired`; nullopt = no lease (recover at once, or at
  // the flow's end). Implies wait_for_end = false.
  std::optional<double> lease_seconds;
  // set_labels (node): labels to set (file order) and label keys to remove
  OrderedMap<std::string, std::string> set_labels;
  std::vector<std::string> remove_labels;
  // set_mig_state (node): the nvidia.com/mig.config.state word; the write it answers (nullopt = unchanged)
  std::string mig_state;
  std::optional<int64_t> mig_state_generation;
  // write_shared_map: entries to put (entry -> {node: 1}), entries to delete, and whether the rest go first
  OrderedMap<std::string, OrderedMap<std::string, int>> map_put;
  std::vector<std::string> map_delete;
  bool map_replace = false;
  // set_pointer: the ClusterPolicy's mig-parted config pointer
  std::string pointer_value;
  // stale_reads: how many writes behind the read is (1..kMaxStaleWrites)
  int writes = 1;
  // stale_reads, partial_reads: how many reads the fault covers (1..kMaxFaultedReads)
  int reads = 1;
  // geometry_partial: how many applies on the node the fault covers (1..kMaxFaultedApplies)
  int applies = 1;
  // reject_binds: how many binds on the node its kubelet refuses (1..kMaxRefusedBinds)
  int binds = 1;
  // partial_reads: the listings it covers, file order ("inventory", "release"); empty = the inventory's alone
  std::vector<std::string> listings;
  // partial_reads: the workloads the listing omits
  std::vector<std::string> workloads;
  // partial_reads: the whole cards (node, ordinal) the inventory's device listing omits, file order
  std::vector<std::pair<std::string, int>> devices;
  // modifiers any op may carry (conditional_ops.h); parsed once for every op by the loader
  std::optional<RetrySpec> retry;
  std::optional<WhenSpec> when;
  // write-behind (conditional_ops.h): the actor only issues the op (outcome `issued`); its write runs later, as the
  // one op of a background actor the loader adds (ActorSpec::behind_of)
  bool behind = false;
};

/// Whether partial_reads op `op` covers `listing` ("inventory" or "release"): without a `listings` key it covers
/// the inventory's alone (its syntax: backend/ops/op_faults.cpp).
bool partial_reads_covers(const Op& op, std::string_view listing);

/// A background actor the loader adds for an op with `behind` (conditional_ops.h): it runs that op once its issuer
/// has issued it.
struct BehindOf {
  std::string actor;  // the issuing actor
  size_t op = 0;      // the op's index in the issuer's script
};

struct ActorSpec {
  std::string name;  // unique
  std::vector<Op> script;
  /// Set on a background actor (named "<issuer>.behind<op>", after every actor of the file; its script is the
  /// issued op without `behind` and `when`); never written back to JSON, since the loader derives it.
  std::optional<BehindOf> behind_of;
  /// The owner identity the backend sees (docs/DESIGN.md §4 "Owner identity"): the flow id of the actor's plans,
  /// the owner of its reserves' stamps and claims, the flow a `recover` of it reads back. Unset: the actor's name.
  /// Actors with one identity are replicas of one controller.
  std::optional<std::string> owner;
  const std::string& identity() const { return owner ? *owner : name; }
};

struct NodeSpec {
  std::string name;  // unique
  std::string product;
  int gpu_count = 0;      // >= 1, <= 64
  double memory_gib = 0;  // > 0
  // GFD labels. When the file has no "labels" key: nvidia.com/gpu.product = product and
  // nvidia.com/gpu.count = gpu_count (a plain, physical GPU node). An explicit {} stays empty (unknown).
  OrderedMap<std::string, std::string> labels;
  OrderedMap<std::string, int> workloads;  // workload id -> GPU units held at start
  std::string mig_config = backend::kDefaultMigConfig;
  // Start state (scenario_state.h; docs/DESIGN.md §4). Defaults are upstream's NodeFixture defaults, and a key
  // at its default is not written back (scenario_json), so files without these keys mean what they meant.
  int64_t resource_version = 1;
  std::optional<std::string> owner;  // a stamp, possibly left by a flow that died (owner_epoch with it)
  std::optional<std::string> owner_epoch;
  std::string mig_state = "success";
  int64_t mig_state_generation = 0;
  OrderedMap<std::string, int> mig_layout;  // profile -> slices
  std::optional<std::string> restore_record;
};

/// One device a start-state claim holds (scenario_claims.cpp): a whole card (`ordinal` set) or MIG slice
/// `index` (1-based, as upstream numbers a plan's slices) of `profile` on the node.
struct StartDevice {
  std::string node;
  std::optional<int> ordinal;
  std::string profile;
  int index = 0;
  bool operator==(const StartDevice&) const = default;
};

/// A claim the cluster holds before any actor runs (top-level `claims`, docs/DESIGN.md §4 "Start state"):
/// a controller's leftover, which only a cleanup by its owner (`recover`) or the healing phase releases.
struct StartClaim {
  std::string id;
  std::string owner;
  std::string generation;
  OrderedMap<std::string, std::vector<StartDevice>> assignments;   // workload -> devices
  OrderedMap<std::string, OrderedMap<std::string, int>> geometry;  // node -> {profile: slices}
  std::string status = backend::kClaimAllocated;
  bool workload_ready = false;
  bool operator==(const StartClaim&) const = default;
};

/// The top-level start state of the cluster objects outside nodes (docs/DESIGN.md §4): the shared mig-parted
/// map (`shared_map`), the ClusterPolicy pointer (`cluster_policy`) and leftover claims (`claims`). Defaults
/// are upstream's constructor's.
struct StartState {
  std::vector<StartClaim> claims;  // file order, which is the backend's claim order
  OrderedMap<std::string, OrderedMap<std::string, int>> shared_entries;  // entry -> {node: 1}
  bool shared_tombstone = false;
  bool has_shared_map = false;  // the file has a `shared_map` key (written back only then)
  std::string pointer = backend::kDefaultPointer;
  std::optional<std::string> pointer_restore;
  bool has_cluster_policy = false;  // the file has a `cluster_policy` key
};

/// How often an audit kind must occur (expect.audit): in at least one execution (`sometimes`), in no
/// execution (`never`), in every execution (`always`), or, in every execution, a number of times within
/// bounds (`counted`: {"at_least": L, "at_most": M} or {"exactly": N}).
struct AuditRule {
  enum class Word : uint8_t { Sometimes, Never, Always, Counted };
  Word word = Word::Sometimes;
  std::optional<uint64_t> at_least, at_most;  // Counted only; at least one is set
  bool operator==(const AuditRule&) const = default;
};

struct Expectation {
  bool pass = true;                     // outcome "pass"
  std::vector<std::string> violations;  // when !pass: any of these, and only these
  // actor -> op name -> outcomes allowed across all executions (every op of that name in the script)
  OrderedMap<std::string, OrderedMap<std::string, std::vector<std::string>>> actors;
  std::vector<std::string> reach;  // barriers that must fire in at least one execution
  // Per-occurrence pins (expect_audit.h): actor -> script index -> outcomes allowed for that one op.
  OrderedMap<std::string, OrderedMap<size_t, std::vector<std::string>>> occurrences;
  // expect.audit (expect_audit.h): audit kind -> AuditRule, file order.
  OrderedMap<std::string, AuditRule> audit;
};

/// A fault action at a barrier (backend/CONTRACT.md §2): `crash` (the actor dies there; sim::ActorCrash),
/// `raise` (the call fails after its effects so far: the op records `error`, the actor goes on),
/// `drop_response` (the call completes but the actor sees Unknown: the op records `unknown` and learns
/// nothing from it, e.g. not the claim id of a reserve).
enum class FaultAction : uint8_t { Crash, Raise, DropResponse };

/// "crash" | "raise" | "drop_response" (static strings).
const char* fault_action_name(FaultAction a);

/// The scenario's optional `faults` key (absent = no fault ever fires). Every fault is a choice the
/// strategy makes through ActorContext::draw, so random, pct, dfs, replay and the shrinker all cover it:
/// - at each barrier listed in `barriers` that an eligible actor fires, while fewer than `max` faults
///   have fired in the execution: draw in [0, 1 + n) over {no fault, the barrier's n actions in file order};
/// - at each API call of an eligible actor (its Call scheduling point), while under `max` and some option
///   is left: draw over {no fault, each `fail_reads` kind not already failing, each `fail_geometry` node
///   not already failing}; the chosen one starts failing right before that call (upstream's test hooks:
///   reads of that kind fail until a restore_reads op; geometry on that node fails for good, ALLOC-021).
/// Draw 0 is always "no fault", so a schedule with every fault draw set to 0 runs fault-free (the shrinker
/// relies on it). A fault that fires adds "fault=<what>" to its step's detail in traces.
struct FaultSpec {
  bool enabled = false;                                        // the file has a `faults` key
  int max = 1;                                                 // faults per execution, 1..16
  std::vector<std::string> actors;                             // who may fault; empty = every actor
  OrderedMap<std::string, std::vector<FaultAction>> barriers;  // barrier -> actions, file order
  std::vector<std::string> fail_reads;                         // "nodes" | "pods" | "config"
  std::vector<std::string> fail_geometry;                      // node names
  /// Whether `actor` may fault.
  bool eligible(const std::string& actor) const;
};

/// ops-atomic's default bound on a scenario's op-level executions (Scenario::op_level_bound).
inline constexpr uint64_t kDefaultOpLevelBound = 5'000;

struct Scenario {
  std::string path;    // as given to load_scenario
  std::string digest;  // "xxh3-128:<32 hex>" of the file's bytes
  std::string name;
  std::string description;
  std::string authority = backend::kAuthorityDevicePlugin;
  double mig_apply_seconds = 0;
  std::vector<std::string> mutants;  // names, validated
  std::vector<NodeSpec> nodes;
  std::vector<ActorSpec> actors;
  std::vector<std::string> invariants;  // validated names; empty = "all"
  Expectation expect;
  FaultSpec faults;
  StartState start;  // `shared_map`, `cluster_policy` and `claims`
  /// The optional top-level `max_steps` (1..kMaxScenarioSteps): this scenario's step limit per execution.
  /// A command line's --max-steps overrides it; without either, kDefaultMaxSteps (resolve_max_steps).
  std::optional<uint64_t> max_steps;
  /// The optional top-level `converge_seconds` (0..86400 fake-clock seconds): the bound geometry-converges
  /// holds every geometry write to; kDefaultConvergeSeconds when absent (resolve_converge_seconds).
  std::optional<double> converge_seconds;
  /// The optional top-level `order` (sim/order.h, docs/DESIGN.md §4): happens-before constraints between
  /// labelled steps (`"flowB:delete.before#1"`) that every execution's schedule must satisfy; empty = none.
  /// Checked at load (labels name actors of /actors; no cycle). `run --order` appends to it.
  sim::OrderSpec order;
  /// Not in the file: the op-level executions ops-atomic may take for this scenario before it leaves it unjudged
  /// (docs/DESIGN.md §5, "Op atomicity"). Swarm lowers it to its per-scenario budget; a file loads with the default.
  uint64_t op_level_bound = kDefaultOpLevelBound;
};

inline constexpr uint64_t kDefaultMaxSteps = 10000;
inline constexpr uint64_t kMaxScenarioSteps = 100'000'000;  // the same bound as --max-steps

/// The step limit an execution of `scenario` runs under: `flag` (--max-steps) when given, else the
/// scenario's `max_steps`, else kDefaultMaxSteps.
inline uint64_t resolve_max_steps(const Scenario& scenario, std::optional<uint64_t> flag) {
  return flag ? *flag : scenario.max_steps.value_or(kDefaultMaxSteps);
}

/// geometry-converges' default bound: 600 s of fake clock. Larger than any `mig_apply_seconds` a scenario
/// of the corpus uses (at most 5), so a faithful backend whose clock is advanced past a write's apply delay
/// converges within it, and no scenario that never mentions convergence is judged by a bound it did not
/// choose; a real MIG reconfiguration (drain GPU clients, repartition, restart the device plugin) takes
/// minutes, not hours. A scenario that means to judge convergence sets its own.
inline constexpr double kDefaultConvergeSeconds = 600;

/// The bound geometry-converges judges `scenario` by: its `converge_seconds`, else kDefaultConvergeSeconds.
inline double resolve_converge_seconds(const Scenario& scenario) {
  return scenario.converge_seconds.value_or(kDefaultConvergeSeconds);
}

/// Loads and validates `path`. Throws ScenarioError (never anything else for bad input).
Scenario load_scenario(const std::string& path);

/// Parses `text` as if read from `path` (tests, embedded scenarios). Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& path);

}  // namespace allocsim::harness

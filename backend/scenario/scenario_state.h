// Start state in scenario files (docs/DESIGN.md §4, "Start state"): what a node and the cluster objects outside nodes
// hold before any actor runs, so a scenario can begin where an incident began (a leftover owner stamp, carved
// geometry, a shared map already holding entries).
//
// Shapes (all keys optional; every default is upstream's NodeFixture / MemoryBackend constructor default):
//   node:  "resource_version" int 1..1e9, "owner" string, "owner_epoch" string, "mig_state"
//          "pending"|"success"|"failed", "mig_state_generation" int 0..1e9, "mig_layout" {profile: slices 1..64},
//          "restore_record" string (the mig_config a release restores);
//   top:   "shared_map": {"entries": {entry: {node: 1}}, "tombstone": bool},
//          "cluster_policy": {"pointer": string, "restore": string},
//          "claims": [{"id", "owner", "generation", "assignments": {workload: [device]}, "geometry":
//                      {node: {profile: slices}}, "status" "pending"|"allocated"|"failed", "workload_ready"}],
//          a device being {"node", "ordinal"} (a whole card) or {"node", "profile", "index"} (a MIG slice).
// Errors: ScenarioError (via support::InputError) naming the pointer. A start state the backend could never be
// in is rejected with the rule it breaks, named in the message as "(rule R)":
//   - owner-with-epoch: `owner` and `owner_epoch` come together (every stamp, rollback and release writes both);
//   - state-answers-a-write: mig_state_generation <= resource_version (a state answers a write the node had);
//   - entry-members-are-nodes: shared-map members name nodes in /nodes, each with the value 1 (the backend
//     publishes {node: 1} per node of the plan's geometry);
//   - tombstone-only-when-empty: a tombstone marks a map emptied by the last release; publishing clears it;
//   - restore-only-while-pointed: cluster_policy.restore needs pointer "videoflow-map" (the backend records the
//     previous pointer exactly when it points the policy at its map, and drops it when it points back).
//   - ids-never-minted: a claim's id and generation do not have the shape claim-<A>-<k> / gen-<A>-<k> of an
//     actor A that takes steps (its reserve could mint the same name);
//   - claim-has-nodes: a claim grants at least one device (a plan places every request);
//   - slices-of-the-geometry: a MIG slice is numbered within its node's layout in the claim's geometry, no
//     whole card is granted on a node the claim carves, and the claim carves only nodes it holds devices on.
// A start claim's entry (managed-mig, with geometry) is the name upstream's reserve gives it,
// videoflow-<owner>-<generation>; it is derived, never written in the file.
// A reachable-but-bad state (a stamp whose flow is gone, a restore record no claim will use) is allowed:
// recovering from it is what such a scenario tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"
#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {

/// The nvidia.com/mig.config.state words the backend writes, which a start state and set_mig_state may give.
const std::vector<const char*>& mig_state_words();
/// The largest resourceVersion or state generation a scenario may give.
inline constexpr int kMaxVersion = 1'000'000'000;

/// The node keys of the start state, for the loader's key check (did-you-mean candidates).
const std::vector<const char*>& node_start_keys();

/// Reads the start-state keys of node object `v` at `ptr` into `n` (the other keys are already read).
void read_node_start(const ScenarioReader& r, const support::Json& v, const std::string& ptr, NodeSpec& n);
/// Reads the top-level `shared_map` (at "/shared_map"); REQUIRES: the scenario's nodes are loaded.
void read_shared_map(const ScenarioReader& r, const support::Json& v, StartState& out);
/// Reads the top-level `cluster_policy` (at "/cluster_policy").
void read_cluster_policy(const ScenarioReader& r, const support::Json& v, StartState& out);

/// Reads the top-level `claims` (at "/claims", scenario_claims.cpp). REQUIRES: nodes and actors are loaded.
void read_start_claims(const ScenarioReader& r, const support::Json& v, StartState& out);
/// A MIG layout {profile: slices} at `ptr` for a card of `product`, checked by rule layout-fits-the-card
/// (an empty layout is returned as is).
OrderedMap<std::string, int> read_card_layout(const ScenarioReader& r, const support::Json& v, const std::string& ptr,
                                              const std::string& product);

/// Shared-map entries {entry: {node: 1}} at `ptr` (start state and write_shared_map): non-empty entry names,
/// members naming nodes in /nodes, each 1 (rule entry-members-are-nodes).
OrderedMap<std::string, OrderedMap<std::string, int>> read_map_entries(const ScenarioReader& r, const support::Json& v,
                                                                       const std::string& ptr);

/// Writes the start state of `sc` into a freshly built backend's state (compile_prototype,
/// backend/world/compiled_scenario.cpp): the node fields upstream's NodeFixture takes, then the map and pointer
/// upstream's constructor initialises. Harness-only: upstream has no entry point for the map or the pointer, so
/// this writes BackendState directly and is never on an upstream-mirroring code path.
void apply_start_state(const Scenario& sc, backend::BackendState& s);

/// Appends the start state's claims to the backend's, built as upstream's reserve builds a claim
/// (scenario_claims.cpp); apply_start_state calls it last.
void apply_start_claims(const Scenario& sc, backend::BackendState& s);

/// Adds the node's start-state keys to `j`, each only when it differs from its default (scenario_json).
void node_start_json(const NodeSpec& n, nlohmann::ordered_json& j);
/// Adds `shared_map` / `cluster_policy` to `j` when the file had them, and `claims` when there are any
/// (scenario_json).
void start_state_json(const StartState& s, nlohmann::ordered_json& j);
/// Adds `claims` to `j` when the start state has any.
void start_claims_json(const StartState& s, nlohmann::ordered_json& j);

}  // namespace allocsim::harness

// Scenario files, schema `allocsim/scenario/v1` (DESIGN.md §4): the cluster, the actors and their
// scripts, the invariants to check, and the expected outcome.
//
// Contract: load_scenario() either returns a fully validated Scenario or throws ScenarioError naming the
// file, the JSON pointer and what was expected. Unknown keys are errors (with a did-you-mean). Every
// reference is resolved at load time (plan_from names an actor, a node op names a node, mutants,
// invariants and barriers exist, expect names real actors, ops and outcomes), so a loaded scenario never
// fails for a reason the file could have told.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/contract.h"
#include "backend/mutants.h"

namespace allocsim::harness {

using backend::OrderedMap;

/// A malformed scenario: `file`, `pointer` (RFC 6901, "" = the whole document) and `message`.
/// what() is "FILE: POINTER: MESSAGE" (the pointer part omitted when empty).
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, std::string pointer, std::string message);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, pointer_, message_;
};

/// One workload request of a plan/reserve op. The actor's name is its flow id.
struct RequestSpec {
  std::string workload;
  int devices = 1;                                 // >= 1
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
};

/// The op's name as written in scenario files ("mark_ready"); a static string.
const char* op_name(OpKind k);
/// Every op name, in enum order.
const std::vector<const char*>& op_names();

/// The outcomes an op of kind `k` can record (the vocabulary of expect.actors).
const std::vector<const char*>& op_outcomes(OpKind k);

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
  std::string status;   // await: the claim status to wait for; reconcile: the desired status
  int polls_max = 1;    // await: >= 1, <= 1000
  // release
  bool keep_workloads = false;
  // bind_workload, unbind_workload, fail_geometry
  std::string node;
  std::string workload;
  int units = 1;  // bind_workload: >= 1
  // fail_reads, restore_reads: "nodes" | "pods" | "config"
  std::string read_kind;
  // advance_clock: seconds >= 0
  double seconds = 0;
};

struct ActorSpec {
  std::string name;  // unique; also the actor's flow id
  std::vector<Op> script;
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
};

struct Expectation {
  bool pass = true;                     // outcome "pass"
  std::vector<std::string> violations;  // when !pass: any of these, and only these
  // actor -> op name -> outcomes allowed across all executions (every op of that name in the script)
  OrderedMap<std::string, OrderedMap<std::string, std::vector<std::string>>> actors;
  std::vector<std::string> reach;  // barriers that must fire in at least one execution
};

struct Scenario {
  std::string path;         // as given to load_scenario
  std::string digest;       // "xxh3-128:<32 hex>" of the file's bytes
  std::string name;
  std::string description;
  std::string authority = backend::kAuthorityDevicePlugin;
  double mig_apply_seconds = 0;
  std::vector<std::string> mutants;  // names, validated
  std::vector<NodeSpec> nodes;
  std::vector<ActorSpec> actors;
  std::vector<std::string> invariants;  // validated names; empty = "all"
  Expectation expect;
};

/// Loads and validates `path`. Throws ScenarioError (never anything else for bad input).
Scenario load_scenario(const std::string& path);

/// Parses `text` as if read from `path` (tests, embedded scenarios). Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& path);

}  // namespace allocsim::harness

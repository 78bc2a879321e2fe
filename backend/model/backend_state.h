// The backend's state (upstream's `MemoryAllocationBackend` fields, seed/memory_backend_reindented.py lines
// 132-153): the nodes, the claims, the shared mig-parted map behind the ClusterPolicy pointer, the geometry writes
// waiting for the fake clock, the port-only test hooks, and the audit log. Plain data: MemoryBackend
// (memory_backend.h) changes it; invariants, digests and tests read it between steps (MemoryBackend::state()).
//
// Contract: every container iterates in insertion order, as upstream's dicts do (scenario order for nodes); a
// node's name, gpu_count, product and memory_gib never change after construction (MemoryBackend::mutable_state()'s
// REQUIRES); equal label stamps mean equal labels (StampedLabels).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/contract.h"
#include "backend/model/fake_clock.h"
#include "backend/model/gfd.h"

namespace allocsim::backend {

/// A node's labels and a stamp that changes whenever they may have (docs/DESIGN.md §5, "Per-node cost of inventory and
/// plan"). Equal stamps mean equal labels, in any copy and any backend: every write goes through edit() or an
/// assignment, which take a stamp no other write has had; stamp 0 is no labels. So inventory's per-node classification
/// memo compares one number, not every label (at 64 nodes that comparison was a fifth of a run). Copies keep the stamp;
/// a moved-from value is empty.
class StampedLabels {
 public:
  StampedLabels() = default;
  StampedLabels(Labels labels) : labels_(std::move(labels)), stamp_(labels_.empty() ? 0 : fresh_stamp()) {}
  StampedLabels(const StampedLabels&) = default;
  StampedLabels& operator=(const StampedLabels&) = default;
  StampedLabels(StampedLabels&& other) noexcept : labels_(std::move(other.labels_)), stamp_(other.stamp_) {
    other.labels_.clear();
    other.stamp_ = 0;
  }
  StampedLabels& operator=(StampedLabels&& other) noexcept {
    if (this != &other) {
      labels_ = std::move(other.labels_);
      stamp_ = other.stamp_;
      other.labels_.clear();
      other.stamp_ = 0;
    }
    return *this;
  }
  ~StampedLabels() = default;

  const Labels& get() const { return labels_; }
  /// The labels to write, under a new stamp. Write through the reference at once: a read in between (an
  /// inventory) or a copy in between would pair the new stamp with the old labels.
  Labels& edit() {
    stamp_ = fresh_stamp();
    return labels_;
  }
  uint64_t stamp() const { return stamp_; }

 private:
  static uint64_t fresh_stamp();  // never 0, never the same twice in a process (memory_backend.cpp)
  Labels labels_;
  uint64_t stamp_ = 0;
};

/// One GPU node (upstream `NodeFixture`). `labels` follow GPU Feature Discovery's vocabulary.
struct NodeFixture {
  std::string name;
  std::string product;
  int gpu_count = 0;
  double memory_gib = 0;
  StampedLabels labels;
  std::optional<std::string> owner;
  std::optional<std::string> owner_epoch;
  int64_t resource_version = 1;
  std::string mig_config = kDefaultMigConfig;
  std::string mig_state = "success";
  int64_t mig_state_generation = 0;
  OrderedMap<std::string, int> mig_layout;
  OrderedMap<std::string, int> workloads;  // workload id -> GPU units held
  std::optional<std::string> restore_record;

  /// GFD classification of `labels`, or "mig" when this backend carved geometry here (upstream).
  std::string classification() const;
};

/// A claim (upstream `_Claim`) plus port-only bookkeeping for invariants.
struct Claim {
  std::string claim_id;
  std::string owner;
  FeasiblePlan plan;
  std::string generation;
  std::vector<std::string> nodes;  // sorted node names (upstream: sorted set)
  std::string status = kClaimPending;
  bool workload_ready = false;
  std::string entry_name;
  // -- port-only, read by invariants, never by upstream behaviour --
  std::string op_id;                                // the reserve's operation id
  bool releasing = false;                           // set right before release's first mutation
  OrderedMap<std::string, int64_t> label_versions;  // node -> resourceVersion after this claim's label write
};
/// Every field of `claim` poisoned (check_mode.h), for a recycled claim in check mode.
void poison(Claim& claim);

/// A geometry write waiting for its fake-clock delay (upstream `_pending_geometry`).
struct PendingGeometry {
  double due;
  std::string node;
  int64_t version;
};

/// Everything the backend holds. Public read-only through MemoryBackend::state() (invariants, tests).
struct BackendState {
  std::vector<NodeFixture> nodes;                                       // scenario order
  std::vector<Claim> claims;                                            // insertion order (upstream dict)
  OrderedMap<std::string, std::string> failed_reads;                    // kind -> reason
  OrderedMap<std::string, OrderedMap<std::string, int>> shared_config;  // entry -> {node: 1}
  int64_t shared_config_version = 1;
  bool shared_tombstone = false;
  bool shared_map_deleted = false;  // only the map-deleted-on-last-out mutant sets it
  std::string pointer = kDefaultPointer;
  int64_t pointer_version = 1;
  std::optional<std::string> pointer_restore;
  std::vector<PendingGeometry> pending_geometry;
  std::vector<std::string> failing_geometry;  // a set in the upstream; kept in insertion order here
  // Port-only geometry test hooks (geometry_hooks.cpp; docs/DESIGN.md §4), empty unless a scenario uses them:
  // node -> fake-clock time before which its applies fail; nodes whose applies report success unchanged; nodes
  // whose next applies carve one slice and report failure.
  OrderedMap<std::string, double> failing_geometry_until;
  std::vector<std::string> hollow_geometry;
  OrderedMap<std::string, int> partial_geometry;  // node -> applies left (> 0; an exhausted node is removed)
  // Port-only read hook (read_hooks.cpp; docs/DESIGN.md §4, partial_reads' `listings`): the workloads the next
  // `reads` release workload checks do not see. Unarmed (reads 0, no workloads) unless a scenario arms it.
  struct HiddenPods {
    std::vector<std::string> workloads;
    int reads = 0;
    bool operator==(const HiddenPods&) const = default;
  };
  HiddenPods release_pods_hidden;
  std::vector<Mutation> audit;
  FakeClock clock;

  /// The node / claim with that name / id, or nullptr.
  const NodeFixture* node(std::string_view name) const;
  NodeFixture* node(std::string_view name);
  const Claim* claim(std::string_view id) const;
  Claim* claim(std::string_view id);
};

}  // namespace allocsim::backend

// The memory backend's working storage: what its calls reuse across calls without it being state. PlanScratch is
// plan_into()'s (the upstream's `plan` dicts and lists); Scratch<T> holds any such member so that copies of the
// backend do not share it.
//
// Contract: storage only, never part of an answer by itself: plan_into() overwrites what it reads before it reads
// it (porting rule 3, memory_backend.h; Scratch::reuse() poisons in check mode, check_mode.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/model/check_mode.h"
#include "backend/model/contract.h"
#include "backend/model/packing.h"

namespace allocsim::backend {

/// plan_into()'s working storage (docs/DESIGN.md §5, "Storage reused across executions": a warm plan allocates
/// nothing). Never state: plan_into() clears what it reads before it reads it, and a copied backend starts with none
/// (Scratch, below). One exception carries over between calls, and never changes an answer: the index of a device list,
/// reused for the very same list (`indexed`, which it keeps alive).
struct PlanScratch {
  static constexpr uint32_t kNoNode = UINT32_MAX;
  DeviceTuple indexed;                  // the device list `nodes`, `device_node`, `by_name`, `node_devices` index
  std::vector<std::string_view> nodes;  // the upstream's `by_node` keys, first-seen order; views into `indexed`
  std::vector<uint32_t> device_node;    // per snapshot device: its index in `nodes`, or kNoNode
  /// `nodes` sorted by (head, name), with their indices. `head` is a name's first 8 bytes as a big-endian
  /// number: where names differ within their first 8 bytes (n1, n2, ...) a comparison ends there without a
  /// memcmp call; names with a longer common prefix (gpu-node-01, ...) compare in full, as before.
  struct Named {
    uint64_t head;
    std::string_view name;
    uint32_t index;
  };
  std::vector<Named> by_name;
  // Per index in `nodes`: its devices, and the first snapshot entry under its name in owners, sharing and
  // occupancy (nullptr: none). What the upstream looks up in dicts, found once per plan instead of per node.
  std::vector<int> node_devices;
  std::vector<uint32_t> rank;  // per index in `nodes`: its position in by_name (name order)
  std::vector<const std::string*> node_owner, node_sharing;
  std::vector<const int*> node_occupied;
  OrderedMap<std::string_view, int> free;  // the upstream's `free`; views into `indexed`
  std::vector<uint32_t> free_rank;         // per entry of `free`: its node's rank
  std::vector<std::string> excluded;       // the upstream's `excluded`; entries past this call's count are spare
  std::vector<const WorkloadRequest*> exclusive, sharers;
  std::vector<std::pair<std::string_view, int>> wanted;
  PackScratch pack;
  OrderedMap<std::string_view, std::string_view> packed;  // workload -> host
  std::vector<const DeviceIdentity*> taken;
  OrderedMap<std::string, OrderedMap<std::string, int>> layouts;  // node -> MIG layout; spare entries past use
  OrderedMap<std::string_view, int> sorted_layout;                // layout_string's sorted copy
  std::vector<std::string> reasons;
};

/// A member its owner's copies do not share: a copy starts default-constructed, and assignment keeps the
/// target's own. For working storage that outlives a call but is never part of the copied value.
template <class T>
class Scratch {
 public:
  Scratch() = default;
  Scratch(const Scratch&) {}
  Scratch& operator=(const Scratch&) { return *this; }
  ~Scratch() = default;
  T& get() { return value_; }
  /// get() for a use that assigns what it later reads: poisoned first in check mode (porting rule 3).
  T& reuse() {
    if (check_mode()) poison(value_);
    return value_;
  }

 private:
  T value_{};
};

}  // namespace allocsim::backend

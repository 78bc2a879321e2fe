// Contract types and constants of the upstream allocation contract (backend/CONTRACT.md §1), as value types.
//
// Contract: plain data, no behaviour beyond equality. Every ordered map that upstream keeps as a Python
// dict is an insertion-ordered vector of pairs here (OrderedMap), because upstream's iteration order is
// part of its behaviour (docs/DESIGN.md §3: "the port iterates in the same insertion order").
// Memory is always in bytes (int64). Times are fake-clock seconds (double, never used in a choice).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace allocsim::backend {

// -- constants (backend/CONTRACT.md §1, §5) -----------------------------------------------------------
inline constexpr const char* kSharingExclusive = "exclusive";
inline constexpr const char* kSharingIsolatedMig = "isolated_mig";
inline constexpr const char* kSharingCooperative = "cooperative";
inline constexpr const char* kSharingAccountingOnly = "accounting_only";

inline constexpr const char* kClaimPending = "pending";
inline constexpr const char* kClaimAllocated = "allocated";
inline constexpr const char* kClaimPrepared = "prepared";
inline constexpr const char* kClaimReady = "ready";
inline constexpr const char* kClaimFailed = "failed";
inline constexpr const char* kClaimReleasing = "releasing";  // never produced by the memory backend

inline constexpr const char* kReleaseReleased = "released";
inline constexpr const char* kReleasePendingRecovery = "pending_recovery";
inline constexpr const char* kReleaseStale = "stale";

inline constexpr const char* kCompletenessComplete = "complete";
inline constexpr const char* kCompletenessPartial = "partial";

inline constexpr const char* kAuthorityDevicePlugin = "device-plugin";
inline constexpr const char* kAuthorityManagedMig = "managed-mig";
inline constexpr const char* kAuthorityLocal = "local";
inline constexpr const char* kAuthorityDra = "dra";
/// Every authority a scenario may name (the loader's choices; the capability check's table).
inline const std::vector<const char*> kAuthorities = {kAuthorityDevicePlugin, kAuthorityManagedMig, kAuthorityLocal,
                                                      kAuthorityDra};

inline constexpr const char* kClassPhysical = "physical";
inline constexpr const char* kClassMig = "mig";
inline constexpr const char* kClassTimeSliced = "time-sliced";
inline constexpr const char* kClassMps = "mps";
inline constexpr const char* kClassUnknown = "unknown";

inline constexpr const char* kDefaultPointer = "default-mig-parted-config";
inline constexpr const char* kActivePointer = "videoflow-map";
inline constexpr const char* kEntryPrefix = "videoflow-";
inline constexpr const char* kDefaultMigConfig = "all-disabled";

inline constexpr int64_t kGiB = int64_t{1} << 30;

/// Insertion-ordered map (upstream's dict). Lookups are linear: maps here hold a handful of entries.
template <class K, class V>
using OrderedMap = std::vector<std::pair<K, V>>;

/// Returns a pointer to the value under `key`, or nullptr.
template <class K, class V, class Q>
const V* find_in(const OrderedMap<K, V>& m, const Q& key) {
  for (const auto& [k, v] : m)
    if (k == key) return &v;
  return nullptr;
}
template <class K, class V, class Q>
V* find_in(OrderedMap<K, V>& m, const Q& key) {
  for (auto& [k, v] : m)
    if (k == key) return &v;
  return nullptr;
}

/// Python's `m[key] = value`: updates in place (keeping the key's position) or appends.
template <class K, class V, class Q>
V& put_in(OrderedMap<K, V>& m, const Q& key, V value) {
  if (V* v = find_in(m, key)) return *v = std::move(value);
  m.emplace_back(K(key), std::move(value));
  return m.back().second;
}

/// Python's `m.pop(key, None)`: removes `key` if present (later keys keep their order); true if it was.
template <class K, class V, class Q>
bool erase_in(OrderedMap<K, V>& m, const Q& key) {
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->first == key) {
      m.erase(it);
      return true;
    }
  return false;
}

/// One device as the contract names it: three distinct id spaces (host ordinal, GPU UUID, MIG UUID).
struct DeviceIdentity {
  std::optional<std::string> node;
  std::optional<int> ordinal;
  std::optional<std::string> uuid;
  std::optional<std::string> mig_uuid;
  std::string product;
  std::optional<int64_t> memory_bytes;
  std::optional<std::string> mig_profile;
  bool operator==(const DeviceIdentity&) const = default;
};

/// Upstream's `devices` tuple (memory_backend.py line 182): immutable once built, so snapshots that list the same
/// devices share one list and copying a snapshot copies a reference (docs/DESIGN.md §5, "Per-node cost of inventory and
/// plan": an inventory of 64 nodes rebuilt 128 device records per call; now it hands out the backend's list). Reads as
/// a const vector; to change it, build another. Equality compares the devices, as upstream's tuples do.
class DeviceTuple {
 public:
  DeviceTuple() = default;
  DeviceTuple(std::initializer_list<DeviceIdentity> devices) : DeviceTuple(std::vector<DeviceIdentity>(devices)) {}
  explicit DeviceTuple(std::vector<DeviceIdentity> devices)
      : list_(std::make_shared<const std::vector<DeviceIdentity>>(std::move(devices))) {}

  const std::vector<DeviceIdentity>& items() const { return list_ ? *list_ : no_devices(); }
  size_t size() const { return items().size(); }
  bool empty() const { return items().empty(); }
  const DeviceIdentity& operator[](size_t i) const { return items()[i]; }
  auto begin() const { return items().begin(); }
  auto end() const { return items().end(); }
  /// Whether both hold the very same list (not merely equal devices): what plan_into's index is keyed on.
  bool same_list(const DeviceTuple& other) const { return list_ == other.list_; }
  bool operator==(const DeviceTuple& other) const { return same_list(other) || items() == other.items(); }

 private:
  static const std::vector<DeviceIdentity>& no_devices() {
    static const std::vector<DeviceIdentity> none;
    return none;
  }
  std::shared_ptr<const std::vector<DeviceIdentity>> list_;
};

/// A point-in-time view of the pool (backend/CONTRACT.md §1). `generation` is the decimal sum of the scoped
/// nodes' resourceVersions (upstream `inventory`).
struct InventorySnapshot {
  DeviceTuple devices;
  OrderedMap<std::string, int> occupancy;        // node -> units in use; empty when partial
  OrderedMap<std::string, std::string> sharing;  // node -> classification
  OrderedMap<std::string, std::string> owners;   // node -> owner (only owned nodes)
  std::string completeness = kCompletenessComplete;
  double observed_at = 0;
  std::string generation;
};

/// One workload's request. Only the fields the memory backend reads are modelled; the rest of the
/// upstream type (features, constraints, elasticity, host cpu/memory, provenance) has no effect on it.
struct WorkloadRequest {
  std::string flow_id;
  std::string workload_id;
  int device_count = 1;
  std::string sharing = kSharingExclusive;
  std::optional<int64_t> minimum_usable_memory_bytes;
};

/// An advisory plan: assignments and geometry in upstream's insertion order.
struct FeasiblePlan {
  OrderedMap<std::string, std::vector<DeviceIdentity>> assignments;  // workload -> devices
  OrderedMap<std::string, std::string> geometry;                     // node -> "profile:count,..."
  std::string snapshot_generation;
  std::string plan_id;
  std::vector<std::string> notes;
};

struct Infeasible {
  std::vector<std::string> reasons;
};

using PlanOutcome = std::variant<FeasiblePlan, Infeasible>;

/// Per-node evidence `_observe` gathers (upstream `_observe`).
struct NodeEvidence {
  std::string node;
  std::string mig_config;
  std::string state;
  int64_t state_generation = 0;
  int64_t resource_version = 0;
  OrderedMap<std::string, int> layout;
};

struct ClaimObservation {
  std::string claim_id;
  std::string owner;
  std::string desired_generation;
  std::optional<std::string> observed_generation;
  std::string status;
  std::vector<DeviceIdentity> grant;
  std::vector<NodeEvidence> evidence;
};

struct ReleaseObservation {
  std::string claim_id;
  std::string status;
  std::vector<std::string> remaining;
  std::string reason;
};

struct WorkloadBindings {
  OrderedMap<std::string, std::string> env;           // CUDA_VISIBLE_DEVICES, VF_GPU_COUNT
  std::optional<std::string> node_selector_hostname;  // pod_fragment nodeSelector kubernetes.io/hostname
  int gpu_limit = 0;                                  // container_fragment limits nvidia.com/gpu
  std::vector<std::string> nodes;                     // node_constraints["nodes"]
};

/// `Known(value, observed_at, generation?)` | `Unknown(reason, observed_at, detail)` (outcomes.py).
template <class T>
struct Observation {
  bool known = false;
  T value{};                              // meaningful only when known
  std::optional<std::string> generation;  // when known
  std::string reason;                     // when unknown: timeout|auth|malformed|unreachable|unsupported
  std::string detail;                     // when unknown
  double observed_at = 0;
};

struct AllocationCapabilities {
  std::string adapter;
  std::string authority;
  bool exclusive_device = true;
  bool isolated_mig = false;
  bool cooperative_sharing = false;
  std::string memory_enforcement;  // none|accounting|runtime_cap|hardware
  bool multi_device = true;
  bool topology_verification = false;
  bool elastic = false;
  bool admission_boundary = true;
};

/// One audit entry (op_id, kind, target, detail); kinds listed in backend/CONTRACT.md §5.
struct Mutation {
  std::string op_id;
  std::string kind;
  std::string target;
  std::string detail;
  bool operator==(const Mutation&) const = default;
};

}  // namespace allocsim::backend

// Mutants: named, deliberate protocol defects (docs/DESIGN.md §6). Each proves the simulator catches a class of
// bug; each has a scenario under scenarios/mutants/ expecting its violation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocsim::backend {

enum class Mutant : uint8_t {
  ClientSideClaim,            // ALLOC-004: the owner write carries no resourceVersion precondition
  StaleLastOut,               // ALLOC-005: last-one-out decided on the map read before delete.before
  StaleSuccessReadiness,      // ALLOC-003: readiness completes on any success, whatever write it answers
  MapDeletedOnLastOut,        // ALLOC-006: the last owner out deletes the shared map instead of tombstoning
  PartialInventoryIsIdle,     // ALLOC-007: a failed pod listing reads as zero occupancy
  AllocatedIsReady,           // ALLOC-021: a claim reports ready as soon as it is allocated
  StalePlanApplied,           // ALLOC-023: reserve skips the generation check
  RestoreRecordOverwritten,   // ALLOC-033: every prepare re-records the restore record (no "if None" guard)
  ReleaseClearsAnyOwner,      // ALLOC-033: release clears the owner of every node its claim lists, whoever stamped it
  ReleaseKeepsOwner,          // ALLOC-033: release removes the claim but never clears its owner stamps
  LockLeakOnPendingRecovery,  // ALLOC-013: release's pending_recovery return skips the unlock
  StrictClaimLookup,          // ALLOC-022: observe looks the claim up strictly (KeyError for a removed claim)
  ReleaseSpinsOnBusyNodes,    // ALLOC-013: release polls, holding the lock, until workloads leave
  ReadinessOneWriteBehind,    // ALLOC-003: readiness accepts a success one geometry write behind the node's latest
  RestoreUnderWorkloads,      // ALLOC-013: release restores geometry while workloads still hold the node
};

struct MutantInfo {
  Mutant id;
  const char* name;         // e.g. "client-side-claim"
  const char* alloc_case;   // e.g. "ALLOC-004"
  const char* description;  // one line
};

/// Every mutant, in declaration order.
const std::vector<MutantInfo>& mutant_table();

/// The mutant called `name`, or nullopt.
std::optional<Mutant> mutant_by_name(std::string_view name);

/// A set of mutants as a bit mask (bit = enum value).
struct MutantSet {
  uint32_t bits = 0;
  bool has(Mutant m) const { return (bits >> static_cast<unsigned>(m)) & 1u; }
  void add(Mutant m) { bits |= 1u << static_cast<unsigned>(m); }
};

}  // namespace allocsim::backend

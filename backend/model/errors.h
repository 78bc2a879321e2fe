// OwnershipConflict (backend/CONTRACT.md §1, core/errors.py): a compare-and-swap on shared cluster state lost to a
// concurrent writer; the loser mutated nothing; re-plan. Thrown by MemoryBackend::reserve and ::reconcile.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace allocsim::backend {

class OwnershipConflict : public std::runtime_error {
 public:
  static constexpr const char* kCode = "VF_OWNERSHIP_CONFLICT";
  static constexpr int kExitCode = 3;

  /// `message` and `remedy` as upstream words them; `node` is context (not part of what()).
  OwnershipConflict(std::string message, std::string remedy = {}, std::string node = {})
      : std::runtime_error(remedy.empty() ? message : message + " " + remedy),
        message_(std::move(message)),
        remedy_(std::move(remedy)),
        node_(std::move(node)) {}

  const std::string& message() const { return message_; }
  const std::string& remedy() const { return remedy_; }
  /// The `node=` keyword context, empty when upstream passes none.
  const std::string& node() const { return node_; }

 private:
  std::string message_, remedy_, node_;
};

/// A compare-and-swap that `MemoryBackend::try_reserve_into` lost, kept as the raw values upstream's
/// `reserve` (lines 262-347) words its OwnershipConflict from. The words are built only by `error()`: the
/// simulator loses a CAS in about half of the executions of a two-claimant scenario and never reads them, and
/// building them was all of that scenario's heap use per execution (docs/DESIGN.md §5, "Storage reused across
/// executions"). Reused across calls, its strings keep their capacity.
struct ReserveLoss {
  enum class Kind : uint8_t {
    kNone,            ///< the CAS was not lost
    kStalePlan,       ///< the inventory generation moved since the plan (ALLOC-023): `expected`, `current`
    kOwned,           ///< `node` is owned by `owner` (the owner read)
    kVersionChanged,  ///< `node`'s resourceVersion moved from `read_version` to `write_version` (the CAS write)
  };
  Kind kind = Kind::kNone;
  std::string node, owner, expected, current;
  int64_t read_version = 0, write_version = 0;

  explicit operator bool() const { return kind != Kind::kNone; }
  /// The OwnershipConflict that `reserve` throws for this loss: message, remedy and node as upstream words them.
  /// REQUIRES: kind != kNone.
  OwnershipConflict error() const;
};

}  // namespace allocsim::backend

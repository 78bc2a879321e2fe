// OwnershipConflict (backend/CONTRACT.md §1, core/errors.py): a compare-and-swap on shared cluster state lost to a
// concurrent writer; the loser mutated nothing; re-plan. Thrown by MemoryBackend::reserve and ::reconcile.
#pragma once

#include <stdexcept>
#include <string>

namespace allocsim::backend {

class OwnershipConflict : public std::runtime_error {
 public:
  static constexpr const char* kCode = "VF_OWNERSHIP_CONFLICT";
  static constexpr int kExitCode = 3;

  /// `message` and `remedy` as the seed words them; `node` is context (not part of what()).
  OwnershipConflict(std::string message, std::string remedy = {}, std::string node = {})
      : std::runtime_error(remedy.empty() ? message : message + " " + remedy),
        message_(std::move(message)),
        remedy_(std::move(remedy)),
        node_(std::move(node)) {}

  const std::string& message() const { return message_; }
  const std::string& remedy() const { return remedy_; }
  /// The `node=` keyword context, empty when the seed passes none.
  const std::string& node() const { return node_; }

 private:
  std::string message_, remedy_, node_;
};

}  // namespace allocsim::backend

// `replay`: follows a recorded schedule choice by choice. A recorded choice that is not possible now
// (the actor is not runnable, a draw is out of range, or the schedule runs out while the program still
// wants choices) is a divergence: the program or the scenario changed since the schedule was recorded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/engine.h"
#include "sim/strategy.h"

namespace allocsim::sim {

class ReplayStrategy final : public Strategy {
 public:
  /// `names[id]` names actor id in divergence messages; without names they say "actor #id".
  explicit ReplayStrategy(std::vector<Choice> schedule, std::vector<std::string> names = {})
      : schedule_(std::move(schedule)), names_(std::move(names)) {}
  void begin_execution(uint64_t) override {
    pos_ = 0, divergence_.reset(), diverged_at_.reset(), runnable_at_divergence_.clear();
  }
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  bool end_execution(const ExecutionResult&) override { return false; }

  /// The first divergence of the last execution, with the choice index; nullopt when it followed the
  /// schedule. A schedule longer than the execution is also a divergence (checked by end()).
  /// Messages name the actor the schedule asked for and the actors that were runnable.
  const std::optional<std::string>& divergence() const { return divergence_; }
  /// The index of the choice that diverged (the schedule position), when divergence() is set.
  const std::optional<size_t>& divergence_choice() const { return diverged_at_; }
  /// The actors (by name) that could run where an actor choice diverged; empty for other divergences.
  const std::vector<std::string>& divergence_runnable() const { return runnable_at_divergence_; }
  /// Whether every recorded choice was consumed.
  bool consumed_all() const { return pos_ == schedule_.size(); }
  size_t position() const { return pos_; }

 private:
  std::string name(uint64_t actor) const;
  void diverge(size_t at, std::string message);

  std::vector<Choice> schedule_;
  std::vector<std::string> names_;
  size_t pos_ = 0;
  std::optional<std::string> divergence_;
  std::optional<size_t> diverged_at_;
  std::vector<std::string> runnable_at_divergence_;
};

}  // namespace allocsim::sim

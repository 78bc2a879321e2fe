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
  explicit ReplayStrategy(std::vector<Choice> schedule) : schedule_(std::move(schedule)) {}
  void begin_execution(uint64_t) override { pos_ = 0, divergence_.reset(); }
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override;
  uint64_t draw(uint64_t bound) override;
  bool end_execution(const ExecutionResult&) override { return false; }

  /// The first divergence of the last execution, with the choice index; nullopt when it followed the
  /// schedule. A schedule longer than the execution is also a divergence (checked by end()).
  const std::optional<std::string>& divergence() const { return divergence_; }
  /// Whether every recorded choice was consumed.
  bool consumed_all() const { return pos_ == schedule_.size(); }
  size_t position() const { return pos_; }

 private:
  std::vector<Choice> schedule_;
  size_t pos_ = 0;
  std::optional<std::string> divergence_;
};

}  // namespace allocsim::sim

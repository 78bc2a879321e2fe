#include "sim/strategies/replay.h"

#include <fmt/format.h>

namespace allocsim::sim {

std::string ReplayStrategy::name(uint64_t actor) const {
  return actor < names_.size() ? names_[actor] : fmt::format("actor #{}", actor);
}

void ReplayStrategy::diverge(size_t at, std::string message) {
  divergence_ = std::move(message);
  diverged_at_ = at;
}

ActorId ReplayStrategy::choose(std::span<const Candidate> runnable, ActorId current) {
  const size_t at = pos_;
  if (!divergence_ && pos_ < schedule_.size() && schedule_[pos_].kind == Choice::Actor) {
    const uint64_t want = schedule_[pos_++].value;
    for (const Candidate& c : runnable)
      if (c.actor == want) return c.actor;
    std::string can;
    for (const Candidate& c : runnable) can += (can.empty() ? "" : ", ") + name(c.actor);
    for (const Candidate& c : runnable) runnable_at_divergence_.push_back(name(c.actor));
    diverge(at,
            fmt::format("choice {}: the schedule runs {}, which cannot run here (runnable: {})", at, name(want), can));
  } else if (!divergence_) {
    diverge(at, pos_ < schedule_.size()
                    ? fmt::format("choice {}: the schedule has a draw where the program picks an actor", at)
                    : fmt::format("choice {}: the schedule ended but the program goes on", at));
  }
  // After a divergence keep the execution deterministic: stay with the current actor when possible.
  for (const Candidate& c : runnable)
    if (c.actor == current) return c.actor;
  return runnable[0].actor;
}

uint64_t ReplayStrategy::draw(uint64_t bound) {
  const size_t at = pos_;
  if (!divergence_ && pos_ < schedule_.size() && schedule_[pos_].kind == Choice::Draw) {
    const uint64_t v = schedule_[pos_++].value;
    if (v < bound) return v;
    diverge(at, fmt::format("choice {}: the schedule draws {} where only [0, {}) is possible", at, v, bound));
  } else if (!divergence_) {
    diverge(at, pos_ < schedule_.size()
                    ? fmt::format("choice {}: the schedule picks an actor where the program draws", at)
                    : fmt::format("choice {}: the schedule ended but the program draws", at));
  }
  return 0;
}

}  // namespace allocsim::sim

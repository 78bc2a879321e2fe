// FakeClock (backend/CONTRACT.md §5): a clock that only moves when told. Starts at monotonic 1000.0, wall
// 1_700_000_000.0. Timers fire in (due time, insertion) order. Seconds as double: the clock decides no
// scheduling choice, it only orders geometry application, so no float reaches a choice.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace allocsim::backend {

class FakeClock {
 public:
  /// Fake monotonic seconds (starts at 1000.0); now() is the same value (upstream's `now()`/call).
  double monotonic() const { return monotonic_; }
  double now() const { return monotonic_; }
  /// Fake wall-clock seconds (starts at 1'700'000'000.0), moved in step with monotonic().
  double time() const { return wall_; }

  /// Queues `callback` to run when the clock reaches now() + delay.
  void at(double delay, std::function<void()> callback) {
    timers_.push_back({monotonic_ + delay, seq_++, std::move(callback)});
  }

  /// Moves both clocks forward by `seconds`, firing due timers in order, each with the clocks set to
  /// its due time. Throws std::invalid_argument("a clock only advances") when seconds < 0.
  void advance(double seconds);
  /// Timers queued and not fired yet (canonical states digest the clock only while there are none).
  size_t pending_timers() const { return timers_.size(); }

 private:
  struct Timer {
    double due;
    uint64_t seq;
    std::function<void()> callback;
  };
  double monotonic_ = 1000.0;
  double wall_ = 1'700'000'000.0;
  uint64_t seq_ = 0;
  std::vector<Timer> timers_;
};

}  // namespace allocsim::backend

// FakeClock::advance (backend/CONTRACT.md §5).
#include "backend/model/fake_clock.h"

#include <algorithm>

namespace allocsim::backend {

void FakeClock::advance(double seconds) {
  if (seconds < 0) throw std::invalid_argument("a clock only advances");
  const double target = monotonic_ + seconds;
  // Re-scan after every callback: a callback may queue further timers that are due before `target`.
  for (;;) {
    auto due = timers_.end();
    for (auto it = timers_.begin(); it != timers_.end(); ++it)
      if (it->due <= target &&
          (due == timers_.end() || it->due < due->due || (it->due == due->due && it->seq < due->seq)))
        due = it;
    if (due == timers_.end()) break;
    Timer timer = std::move(*due);
    timers_.erase(due);
    // A timer queued with a negative delay is overdue: it fires now, the clock never runs backwards.
    const double at = std::max(monotonic_, timer.due);
    wall_ += at - monotonic_;
    monotonic_ = at;
    timer.callback();
  }
  wall_ += target - monotonic_;
  monotonic_ = target;
}

}  // namespace allocsim::backend

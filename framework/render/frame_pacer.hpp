#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace fovea {

/// Holds a loop to a target rate: each wait() returns no earlier than one period after the
/// last. A loop that falls behind by more than a period starts again from now rather than
/// rushing frames to catch up (a viewer sees an even pace, not a burst).
class FramePacer {
 public:
  /// Monotonic: a change of the wall clock does not jolt the pace.
  using Clock = std::chrono::steady_clock;
  /// `period_s` <= 0: never waits.
  explicit FramePacer(double period_s)
      : period_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(period_s, 0.0)))),
        next_(Clock::now()) {}

  /// Sleeps until the next tick, a period after the last one (returns at once when late).
  void wait() {
    if (period_ <= Clock::duration::zero()) return;
    const Clock::time_point now = Clock::now();
    if (now < next_) std::this_thread::sleep_until(next_);
    next_ = (now > next_ + period_ ? now : next_) + period_;
  }
  /// Starts the schedule again from now (after a pause).
  void restart() { next_ = Clock::now(); }

 private:
  Clock::duration period_;
  Clock::time_point next_;
};

}  // namespace fovea

#pragma once

#include <chrono>

namespace fovea {

/// Wall-clock interval timer on the monotonic clock, reading in milliseconds.
class Stopwatch {
 public:
  /// Starts timing now.
  Stopwatch() : start_(Clock::now()) {}
  /// Starts timing again from now.
  void restart() { start_ = Clock::now(); }
  /// Milliseconds since construction or the last restart(), fractional (steady clock resolution).
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - start_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_;
};

/// Seconds on the monotonic clock since `t`, fractional: a session screen's timing of what it
/// shows (experiments/fovea/session_screen.cpp, clip_window.cpp).
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace fovea

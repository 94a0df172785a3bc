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

}  // namespace fovea

#pragma once

#include <cstdint>

#include "core/stopwatch.hpp"

namespace fovea {

/// One self-rewriting line on stderr for long runs: frames done, frames per second, time
/// left. Silent when disabled (not a terminal, or --quiet), so logs and pipes stay clean.
class Progress {
 public:
  Progress(std::int64_t total_frames, bool enabled);
  /// Redraws at most five times a second.
  void update(std::int64_t frames_done);
  /// Clears the line.
  void finish();

  /// Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  std::int64_t total_;
  bool enabled_;
  bool drawn_ = false;
  Stopwatch clock_;
  double last_draw_ms_ = -1e9;
};

}  // namespace fovea

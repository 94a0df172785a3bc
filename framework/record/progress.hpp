#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/stopwatch.hpp"

namespace fovea {

/// The progress of a long command on stderr, `done` of `total` steps: `fovea run`'s frames,
/// `fovea sweep`'s runs. On a terminal one line rewrites itself in place; in a batch job's
/// log a line is written at every twentieth of the total instead, so the log stays short.
/// Silent when disabled (--quiet; `fovea run` also when stderr is not a terminal).
class Progress {
 public:
  /// How the lines reach the stream.
  enum class Output {
    redrawn,  ///< one line rewritten in place, at most five times a second (a terminal)
    logged,   ///< a line of its own at every twentieth of the total (a log file)
  };
  /// `stream` is stderr but in tests; not owned. `unit` names a step in update(done)'s line
  /// ("frame", "trial"); a string literal.
  Progress(std::int64_t total, bool enabled, Output output = Output::redrawn, std::FILE* stream = stderr,
           const char* unit = "frame");

  /// The line of `done` steps: "frame 74944/300000 (25%)  16288 frames/s  13.8 s left".
  void update(std::int64_t done);
  /// The caller's line for `done` steps, shown when one is due. Redrawn: when 200 ms have
  /// passed since the last (or finish() cleared it). Logged: at the first update and when
  /// `done` reaches another twentieth of the total, never twice for one `done`. The last
  /// step (done == total) is shown in both.
  void update(std::int64_t done, const std::string& line);
  /// Clears a redrawn line, so what is written next starts on a clean line.
  void finish();
  /// Since the constructor.
  double elapsed_s() const { return clock_.elapsed_ms() / 1000; }

  /// Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  /// Whether a line for `done` is to be shown now; remembers it as shown if so.
  bool due(std::int64_t done);
  void show(const char* line);

  std::int64_t total_;
  bool enabled_;
  Output output_;
  std::FILE* stream_;
  const char* unit_;
  bool drawn_ = false;  ///< a redrawn line is on the screen
  Stopwatch clock_;
  double last_draw_ms_ = -1e9;
  std::int64_t last_step_ = -1;  ///< logged: the twentieth last shown
  std::int64_t last_done_ = -1;  ///< logged: the step last shown
};

}  // namespace fovea

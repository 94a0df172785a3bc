#include "record/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace fovea {

Progress::Progress(std::int64_t total_frames, bool enabled) : total_(total_frames), enabled_(enabled) {}

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void Progress::update(std::int64_t frames_done) {
  if (!enabled_) return;
  const double now_ms = clock_.elapsed_ms();
  if (now_ms - last_draw_ms_ < 200 && frames_done < total_) return;
  last_draw_ms_ = now_ms;
  const double fps = now_ms > 0 ? 1000.0 * static_cast<double>(frames_done) / now_ms : 0;
  const double left_s = fps > 0 ? static_cast<double>(total_ - frames_done) / fps : 0;
  const double percent = total_ > 0 ? 100.0 * static_cast<double>(frames_done) / static_cast<double>(total_) : 100;
  std::fprintf(stderr, "\r\033[Kframe %lld/%lld (%.0f%%)  %.0f frames/s  %.1f s left",
               static_cast<long long>(frames_done), static_cast<long long>(total_), percent, fps, left_s);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace fovea

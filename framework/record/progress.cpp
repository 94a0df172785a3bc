#include "record/progress.hpp"

#include <unistd.h>

#include <algorithm>

namespace fovea {

Progress::Progress(std::int64_t total, bool enabled, Output output, std::FILE* stream, const char* unit)
    : total_(total), enabled_(enabled), output_(output), stream_(stream), unit_(unit) {}

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

bool Progress::due(std::int64_t done) {
  if (!enabled_) return false;
  if (output_ == Output::redrawn) {
    const double now_ms = clock_.elapsed_ms();
    if (now_ms - last_draw_ms_ < 200 && done < total_) return false;
    last_draw_ms_ = now_ms;
    return true;
  }
  const std::int64_t step = std::max<std::int64_t>(1, total_ / 20);
  if (done / step == last_step_ && done < total_) return false;
  if (done == last_done_) return false;
  last_step_ = done / step;
  last_done_ = done;
  return true;
}

void Progress::update(std::int64_t done, const std::string& line) {
  if (due(done)) show(line.c_str());
}

void Progress::update(std::int64_t done) {
  if (!due(done)) return;  // before formatting: `fovea run` calls this every frame
  const double now_ms = clock_.elapsed_ms();
  const double rate = now_ms > 0 ? 1000.0 * static_cast<double>(done) / now_ms : 0;
  const double left_s = rate > 0 ? static_cast<double>(total_ - done) / rate : 0;
  const double percent = total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100;
  char line[160];
  std::snprintf(line, sizeof line, "%s %lld/%lld (%.0f%%)  %.0f %ss/s  %.1f s left", unit_,
                static_cast<long long>(done), static_cast<long long>(total_), percent, rate, unit_, left_s);
  show(line);
}

void Progress::show(const char* line) {
  if (output_ == Output::redrawn) {
    // Cleared first: a shorter line leaves nothing of the longer one before it.
    std::fprintf(stream_, "\r\033[K%s", line);
    drawn_ = true;
  } else {
    std::fprintf(stream_, "%s\n", line);
  }
  std::fflush(stream_);
}

void Progress::finish() {
  if (!drawn_) return;
  std::fprintf(stream_, "\r\033[K");
  std::fflush(stream_);
  drawn_ = false;
  last_draw_ms_ = -1e9;  // the next update draws the line again at once
}

}  // namespace fovea

#include "fovea/sweep_progress.hpp"

#include <algorithm>
#include <cstdio>

namespace fovea {

std::string clock_text(double seconds) {
  const auto s = static_cast<long long>(std::max(seconds, 0.0) + 0.5);
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", s / 60, s % 60);
  }
  return text;
}

std::string progress_line(std::int64_t done, std::int64_t total, std::int64_t done_before, std::int64_t failed,
                          std::size_t running, double elapsed_s) {
  const std::int64_t done_now = done - done_before;
  std::string line = "fovea sweep: " + std::to_string(done) + " of " + std::to_string(total) + " runs done";
  if (failed > 0) line += ", " + std::to_string(failed) + " failed";
  line += ", " + std::to_string(running) + " running, " + clock_text(elapsed_s);
  if (done_now > 0 && done < total)
    line += ", about " + clock_text(elapsed_s / static_cast<double>(done_now) * static_cast<double>(total - done)) + " left";
  return line;
}

}  // namespace fovea

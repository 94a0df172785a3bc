#include "gaze/gaze_latency.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "core/format.hpp"

namespace fovea {

void GazeLatency::Histogram::add(double ms) {
  if (!std::isfinite(ms)) return;
  // A sample up to Gaze::kFutureToleranceMs from the future is clock estimation error: binned
  // as 0 (GazeLatency counts such frames apart, ahead_frames). Clamped before the cast.
  ms = std::max(ms, 0.0);
  const std::size_t bin = static_cast<std::size_t>(std::min(ms, kRangeMs) / kBinMs);
  ++bins[bin];
  max_ms = count == 0 ? ms : std::max(max_ms, ms);
  ++count;
}

LatencyQuantiles GazeLatency::Histogram::quantiles() const {
  LatencyQuantiles q;
  q.count = count;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (count == 0) {
    q.median_ms = q.p95_ms = q.max_ms = nan;
    return q;
  }
  // The bin's centre of the k-th smallest value, k = ceil(p * count), capped by the exact max.
  // In the last bin (kRangeMs and beyond) the value is only known to lie between kRangeMs and
  // the max: the max is given, an upper bound.
  const auto at = [&](double p) {
    const std::int64_t k = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(p * static_cast<double>(count))));
    std::int64_t seen = 0;
    for (std::size_t b = 0; b + 1 < kBins; ++b) {
      seen += bins[b];
      // The centre as (2b + 1) / (2 / kBinMs): 0.95, not 0.9500000000000001, in summary.json.
      if (seen >= k) return std::min(max_ms, (2.0 * static_cast<double>(b) + 1.0) / (2.0 / kBinMs));
    }
    return max_ms;
  };
  q.median_ms = at(0.5);
  q.p95_ms = at(0.95);
  q.max_ms = max_ms;
  return q;
}

void GazeLatency::add(const FrameGaze& gaze) {
  ++frames_;
  if (gaze.valid) {
    ++current_;
    ahead_ += gaze.age_ms < 0 ? 1 : 0;
    age_.add(gaze.age_ms);
    if (std::isfinite(gaze.arrival_s) && std::isfinite(gaze.sample_time_s))
      transit_.add((gaze.arrival_s - gaze.sample_time_s) * 1000.0);
  } else if (std::string_view(gaze.source) == "hold") {
    ++held_;
  } else {
    ++fallback_;
  }
}

std::string GazeLatency::text() const {
  const auto ms = [](double v) { return format_significant(v, 3) + " ms"; };
  std::string line = std::to_string(frames_) + " frames: " + std::to_string(current_) + " on a current sample";
  const LatencyQuantiles a = age();
  if (a.count > 0) {
    line += " (its age at the frame: median " + ms(a.median_ms) + ", 95th percentile " + ms(a.p95_ms) + ", max " +
            ms(a.max_ms);
    const LatencyQuantiles t = transit();
    if (t.count > 0)
      line += "; of it, the way to fovea: median " + ms(t.median_ms) + ", 95th percentile " + ms(t.p95_ms) + ", max " +
              ms(t.max_ms);
    line += ")";
  }
  // Samples stamped after the frame: the sender's clock offset is off by that much.
  if (ahead_ > 0) line += ", " + std::to_string(ahead_) + " of them stamped ahead of the frame (counted as 0 ms old)";
  return line + ", " + std::to_string(held_) + " held, " + std::to_string(fallback_) + " on the fallback";
}

}  // namespace fovea

#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "gaze/gaze.hpp"

namespace fovea {

/// Quantiles of one latency, milliseconds; NaN when nothing was counted.
struct LatencyQuantiles {
  std::int64_t count = 0;  ///< values counted
  double median_ms = 0;    ///< to the histogram's resolution, GazeLatency::kBinMs
  double p95_ms = 0;       ///< 95th percentile
  double max_ms = 0;       ///< exact
};

/// How a run's or a session's gaze arrived (docs/gaze.md, "Latency"): per frame, whether the
/// source gave a current sample, the hold held one, or the fallback gave the point; and for
/// the frames that used a current sample, its age at the frame (the sender's stamp to the
/// frame's start: the tracker's latency, the way to fovea and the wait for the frame), and,
/// where the source stamps arrivals, its way to fovea (arrival less the sample's time).
/// Counts into fixed histograms: memory stays bounded however long the session.
class GazeLatency {
 public:
  /// Histogram resolution and range: quantiles are exact to this, ms.
  static constexpr double kBinMs = 0.1;
  /// Ages from 0 to this are binned; longer ones count in the last bin, and a quantile that
  /// falls there is given as the (exact) max, an upper bound.
  static constexpr double kRangeMs = 2000.0;

  /// Counts one frame's gaze.
  void add(const FrameGaze& gaze);

  /// Frames counted.
  std::int64_t frames() const { return frames_; }
  /// Frames on a current sample of the source.
  std::int64_t current_frames() const { return current_; }
  /// Current frames whose sample was stamped after the frame's start (up to
  /// Gaze::kFutureToleranceMs): a sender's clock offset that is off. Binned as 0 ms old.
  std::int64_t ahead_frames() const { return ahead_; }
  /// Frames on the hold.
  std::int64_t held_frames() const { return held_; }
  /// Frames on the fallback (centre, mouse).
  std::int64_t fallback_frames() const { return fallback_; }
  /// The age at the frame of the sample each current frame used.
  LatencyQuantiles age() const { return age_.quantiles(); }
  /// Arrival less the sample's time, for the current frames whose source stamps arrivals.
  LatencyQuantiles transit() const { return transit_.quantiles(); }

  /// One line for a log: "1200 frames: 1150 on a current sample (age median 9.1 ms, 95th
  /// percentile 14.3 ms, max 21.0 ms; of it on the way to fovea median 0.2 ms ...), 30 held,
  /// 20 on the fallback".
  std::string text() const;

 private:
  struct Histogram {
    static constexpr std::size_t kBins = static_cast<std::size_t>(kRangeMs / kBinMs) + 1;
    std::array<std::int64_t, kBins> bins{};
    std::int64_t count = 0;
    double max_ms = 0;
    void add(double ms);
    LatencyQuantiles quantiles() const;
  };
  std::int64_t frames_ = 0, current_ = 0, ahead_ = 0, held_ = 0, fallback_ = 0;
  Histogram age_, transit_;
};

}  // namespace fovea

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "gaze/gaze_source.hpp"
#include "gaze/saccade_landing.hpp"

namespace fovea {

/// Whether `settings` put a simulated tracker between the eye and the scheduler: a latency,
/// a sampling rate or noise (gaze.latency_ms, gaze.rate_hz, gaze.noise_deg).
inline bool simulates_tracker(const GazeSettings& settings) {
  return settings.latency_ms > 0 || settings.rate_hz > 0 || settings.noise_deg > 0;
}

/// Why `settings` cannot simulate a tracker (a live source), naming the key at fault in
/// `key`; empty when they can. The config and SimulatedTracker say the same.
inline std::string simulated_tracker_problem(const GazeSettings& settings, const char*& key) {
  key = settings.latency_ms > 0 ? "gaze.latency_ms" : settings.rate_hz > 0 ? "gaze.rate_hz" : "gaze.noise_deg";
  if (!simulates_tracker(settings) || answers_for_any_time(settings.source)) return {};
  return std::string("a simulated tracker samples a synthetic eye (source fixed, scripted or replay), and ") +
         gaze_source_name(settings.source) +
         " is a live input with a latency of its own; leave latency_ms, rate_hz and noise_deg at 0";
}

/// The gaze as an eye tracker delivers it (docs/gaze.md, "A tracker's latency"): the
/// configured source is the eye; the tracker samples it at rate_hz (at every frame's time
/// when 0), adds Gaussian noise of noise_deg per axis to each sample, and delivers each
/// latency_ms after the eye was there. The frame's scheduler reads the delivered stream
/// (schedule.gaze), the meter the eye.
///
/// Only sources on the run's clock that answer for any time can be the eye (fixed,
/// scripted, replay): a live tracker, the mouse or a program's samples have a latency of
/// their own, and the constructor refuses to simulate another on them. Without
/// simulates_tracker() the delivered stream is the eye's own sample at each frame, and any
/// source works: the history still feeds the landing-point prediction.
///
/// Deterministic: the samples are the source's at instants k / rate_hz (or the frames'
/// times), and the noise is drawn in sample order from the seed's tracker_noise stream.
class SimulatedTracker {
 public:
  /// Throws std::invalid_argument naming the key when a setting is out of range or a
  /// tracker is simulated on a live source.
  SimulatedTracker(const GazeSettings& settings, const ScreenSettings& screen, std::uint64_t seed);

  /// Whether it changes what the scheduler sees (simulates_tracker()).
  bool active() const { return active_; }
  /// The delivery delay, seconds.
  double latency_s() const { return latency_s_; }

  /// The eye at `run_time_s`: samples `eye` at the tracker's instants up to that time, in
  /// order and once each, keeping them (noisy) for delivery, then at the time itself. A time
  /// earlier than the last starts the tracker over (a reset run). `now_s` is the time on the
  /// source's clock (the run's, or the wall clock's for live sources), for the history.
  GazeSample observe(GazeSource& eye, double run_time_s, double now_s);
  /// The newest sample delivered by `now_s` (on the source's clock): taken at most
  /// latency_s() before it. Null before the first.
  const TrackedSample* delivered(double now_s) const;
  /// The delivered samples by `now_s`, oldest first, at most the newest 512, into `out`
  /// (cleared first): what the landing-point prediction reads.
  void delivered_history(double now_s, std::vector<TrackedSample>& out) const;

 private:
  /// Keeps `s`, with the tracker's noise added, as delivered at s.time_s + latency.
  void keep(const GazeSample& s);
  void restart();

  bool active_ = false;
  double latency_s_ = 0;
  double rate_hz_ = 0;
  double noise_x_px_ = 0;  ///< noise_deg as pixels at the screen's centre, horizontally
  double noise_y_px_ = 0;  ///< and vertically
  std::uint64_t seed_ = 0;
  Rng rng_;
  /// Taken, oldest first, as a ring of fixed size (no allocation once built): sample i is
  /// ring_[(head_ + i) % ring_.size()], for i < count_.
  std::vector<TrackedSample> ring_;
  std::size_t head_ = 0;   ///< where the oldest kept sample is
  std::size_t count_ = 0;  ///< samples kept
  /// The i-th kept sample, oldest first.
  const TrackedSample& kept(std::size_t i) const { return ring_[(head_ + i) % ring_.size()]; }
  std::int64_t next_index_ = 0;        ///< the next instant, next_index_ / rate_hz
  double last_run_time_s_ = -1;        ///< the last observe()'s time: an earlier one restarts
};

}  // namespace fovea

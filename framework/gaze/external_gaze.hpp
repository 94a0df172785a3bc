#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"

namespace fovea {

/// Gaze a program pushes (gaze.source: external): any eye tracker's SDK (EyeLink, Tobii, ...)
/// through fovea's Python module, `World.set_gaze(x_px, y_px, t_s, valid)` (docs/python.md).
/// It behaves as the other sources do because it is one: Gaze::at judges its samples' age
/// (max_age_ms), holds the last valid one (fallback.hold_ms), refuses ones from the future
/// (Gaze::kFutureToleranceMs) and falls back, and frames.csv counts its rejected pushes as
/// `dropped`.
///
/// The clock: a sample's time_s is on the run's clock, the time Animation::step hands
/// Gaze::at, which is Animation::sim_time_s() at the frame's start: frames done so far times
/// world.time_step_s (0 for the first frame). A program maps its tracker's time stamps onto
/// it.
///
/// Thread safety: every call takes one mutex for a few copies, so a tracker's callback thread
/// may push while the frame thread samples (the Python module releases the GIL during a step).
/// Reach the source as `dynamic_cast<ExternalGazeSource*>(&animation.gaze().source())` at each
/// use: Gaze::switch_source (the panel) replaces it.
class ExternalGazeSource final : public GazeSource {
 public:
  /// Samples kept for take_recent between two calls (two seconds of a 250 Hz tracker, as
  /// trackers/gaze_inbox.hpp keeps), and samples kept ahead of the frame for sample() to
  /// choose among: a flood overwrites the oldest, memory never grows.
  static constexpr std::size_t kCapacity = 512;

  /// How far past the run's clock a pushed sample's time may lie, seconds. The source knows
  /// the clock as the latest frame time it was sampled for; a program stamps its samples on
  /// World.time_s, the next frame's time, at most one time step later (world.time_step_s is at
  /// most 1 s), less its tracker's latency, tens of milliseconds. So no real sample lies 2 s
  /// ahead, and one that does is a glitched time stamp (1e9 s): accepted, it would become the
  /// newest, and every real sample after it would be refused as older, for the rest of the run.
  static constexpr double kMaxAheadS = 2.0;

  /// A sample from outside, on the run's clock. Returns false, stores nothing and counts it in
  /// dropped() when it is rejected: time_s not finite, confidence outside [0, 1] (or NaN), a
  /// valid sample whose x_px or y_px is not finite, time_s more than kMaxAheadS past the
  /// latest frame time sample() was asked for (0 before the first), or time_s before the
  /// newest accepted sample's (equal times are accepted; the later push wins).
  /// last_rejection() then says why. The coordinates of an invalid sample (a blink, a lost
  /// eye: trackers report NaN or a sentinel) are not looked at, and kept as given.
  bool push(const GazeSample& sample);

  /// Why the most recent rejected push was rejected, one sentence naming the field and its
  /// value ("x_px is nan: a valid sample needs finite coordinates"), for the Python module's
  /// ValueError; "" before the first rejection. Kept until the next rejection. With several
  /// threads pushing it may be another thread's: read it under the same lock (the GIL) as the
  /// push whose false it explains.
  std::string last_rejection() const;

  /// The newest accepted sample whose time_s is at most now_s + Gaze::kFutureToleranceMs:
  /// what the eye did by the frame's time, not a sample pushed for a later one. When every
  /// kept sample is later still, the earliest of them, which Gaze::at refuses as from the
  /// future; invalid with time 0 before the first push. It stays the answer, ageing, until a
  /// newer one is due: Gaze::at decides when it is too old. `now_s` is the run's clock for
  /// push()'s bound on samples from the future.
  GazeSample sample(double now_s) override;
  /// Run: pushed time_s are on the run's clock, the time Animation::step hands Gaze::at.
  GazeClock clock() const override { return GazeClock::run; }
  /// Pushes rejected so far.
  std::uint64_t dropped() const override;
  /// Moves the samples accepted since the last call (at most the newest kCapacity), oldest
  /// first, valid or not, to the end of `out`: the record a tracker's samples leave.
  void take_recent(std::vector<GazeSample>& out) override;

 private:
  /// A fixed ring of samples, oldest first; push_back onto a full ring drops the oldest.
  struct Ring {
    std::array<GazeSample, kCapacity> slots{};
    std::size_t first = 0;  ///< slot of the oldest
    std::size_t count = 0;  ///< samples held, <= kCapacity

    GazeSample& operator[](std::size_t i) { return slots[(first + i) % kCapacity]; }
    void push_back(const GazeSample& sample);
    void pop_front();
  };

  mutable std::mutex mutex_;
  /// Accepted samples not yet passed by a frame's time: [0] is sample()'s answer, the rest
  /// lie ahead of the last now_s (+ tolerance). Calls come with non-decreasing now_s, so a
  /// sample passed by a newer one is never the answer again and leaves.
  Ring ahead_;
  Ring recent_;                  ///< accepted since the last take_recent
  bool any_accepted_ = false;    ///< newest_time_s_ holds a time
  double newest_time_s_ = 0;     ///< time_s of the newest accepted sample: pushes before it are refused
  double clock_s_ = 0;           ///< the latest now_s sample() was given: pushes past it + kMaxAheadS are refused
  std::uint64_t dropped_ = 0;
  std::string last_rejection_;
};

}  // namespace fovea

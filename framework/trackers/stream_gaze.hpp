#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#include "gaze/gaze_settings.hpp"
#include "gaze/gaze_source.hpp"
#include "trackers/gaze_inbox.hpp"
#include "trackers/stream_message.hpp"

namespace fovea {

/// fovea's own gaze input (gaze.source: stream; docs/gaze.md, "Your eye tracker", issue 44):
/// any program that has an eye tracker's samples sends them here, one msgpack map per sample
/// (trackers/stream_message.hpp), and asks fovea's clock first, as Pupil Capture's time sync
/// does, so samples arrive stamped on fovea's clock. The bridges for EyeLink, Tobii and Lab
/// Streaming Layer in experiments/python/ are such programs; fovea.gaze.StreamSender
/// (trackers/stream_sender.hpp) is their half of the protocol.
///
/// fovea listens, the sender connects: a ZeroMQ PULL socket at gaze.host:gaze.port takes the
/// samples, a REP socket at gaze.port + 1 answers `t` with fovea's clock (gaze_wall_clock_s,
/// decimal seconds). A sender that starts late, stops or restarts changes nothing here: its
/// samples flow again as soon as it reconnects.
///
/// Everything from the network is untrusted, as for the other trackers: a message that is
/// malformed, too large, from the future, older than kMaxTransitAge_s, or earlier than the
/// newest accepted sample is dropped whole and counted; a point off the screen or below
/// gaze.min_confidence becomes an invalid sample at its time (the viewer looked away, the
/// tracker is unsure). A sender that falls silent for stall_timeout_s is said once; the frame
/// holds its last point (gaze.fallback.hold_ms), then falls back.
class StreamGaze final : public TrackerSource {
 public:
  /// The samples port when GazeSettings::port is 0; the clock answers on the next one.
  static constexpr int kDefaultPort = 50070;
  /// The largest frame ZeroMQ lets through (ZMQ_MAXMSGSIZE); a larger one closes the
  /// sender's connection before any of it reaches fovea (counted as a lost connection).
  /// Between kStreamMaxMessageBytes and this a message arrives and is dropped as over-long.
  static constexpr std::int64_t kMaxFrameBytes = 64 * 1024;
  /// Sample messages ZeroMQ queues for the receiver (ZMQ_RCVHWM): under a second of a
  /// 1000 Hz tracker; beyond them TCP pushes back on the sender, whose sends then fail
  /// without waiting (fovea's sender drops them: a late sample is worth nothing).
  static constexpr int kReceiveHighWaterMark = 1000;
  /// The longest clock request read; a longer one is answered with an error and counted.
  static constexpr std::size_t kMaxRequestBytes = 64;
  /// A sample this old on arrival is dropped: a sender that queued samples while fovea was
  /// away, or whose clock offset is wrong.
  static constexpr double kMaxTransitAge_s = 5.0;

  /// Starts the receiver thread and returns at once; the thread binds the two ports (a port
  /// in use is said once and retried with backoff). Throws std::invalid_argument, naming the
  /// key, for settings that cannot work: an empty host, a port outside 0..65534 (the clock
  /// needs the next), min_confidence outside [0, 1], a degenerate screen, non-positive
  /// timings. stall_timeout_s says when a silent sender counts as gone.
  StreamGaze(const GazeSettings& settings, const ScreenSettings& screen, ReconnectTimings timings = {});

  /// True once both ports are bound and until the source is destroyed.
  bool listening() const { return listening_.load(std::memory_order_relaxed); }
  /// The samples port this source binds (GazeSettings::port, or kDefaultPort for 0).
  int samples_port() const { return samples_port_; }
  /// The clock port: samples_port() + 1.
  int clock_port() const { return samples_port_ + 1; }

 private:
  int samples_port_ = kDefaultPort;
  std::atomic<bool> listening_{false};
  /// Declared last: destroyed first, so the thread stops and joins while the members it
  /// writes still exist.
  std::jthread receiver_;
};

}  // namespace fovea

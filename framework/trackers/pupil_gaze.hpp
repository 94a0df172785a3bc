#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "trackers/gaze_inbox.hpp"
#include "trackers/pupil_message.hpp"
#include "gaze/gaze_settings.hpp"
#include "gaze/gaze_source.hpp"

namespace fovea {

/// The intervals of PupilGaze's receiver thread: the reconnection's, and Pupil's own. A SUB
/// connection silent for stall_timeout_s gets Pupil Remote probed with a SUB_PORT request:
/// Pupil publishes no surface message while the surface is out of the world camera's view, so
/// silence alone does not mean the tracker is gone.
struct PupilTimings : ReconnectTimings {
  /// A Pupil Remote request (SUB_PORT, t) unanswered this long has failed.
  double request_timeout_s = 0.5;
  /// The clock offset is estimated again this often, to follow drift between the clocks.
  double clock_sync_period_s = 10.0;
  /// `t` requests averaged per clock offset estimate.
  int clock_samples = 5;
};

/// Pupil Labs Core through the network API of Pupil Capture or Pupil Service (docs/gaze.md,
/// issue 6). A receiver thread asks Pupil Remote (a ZeroMQ REQ/REP server, port 50020 by
/// default) for its SUB_PORT and its clock (`t`), subscribes to the surface's gaze (or to
/// `gaze.`) and publishes every accepted fixation into an inbox, on fovea's wall clock:
/// time_s = Pupil timestamp - clock_offset_s(). The frame thread only reads the inbox.
///
/// Everything from the network is untrusted: a malformed message is dropped whole and
/// counted, never trusted in part. A tracker that is absent, stops or stalls costs the run
/// its gaze (the frame falls back), one message, and a quiet retry with backoff; never an
/// exception or a blocked frame.
class PupilGaze final : public TrackerSource {
 public:
  /// Pupil Remote's port when GazeSettings::port is 0 (Pupil Capture's default).
  static constexpr int kDefaultRemotePort = 50020;
  /// The largest SUB message frame accepted (ZMQ_MAXMSGSIZE): ZeroMQ closes a connection
  /// that delivers more, before any of it reaches fovea.
  static constexpr std::int64_t kMaxMessageBytes = kPupilMaxMessageBytes;
  /// SUB messages ZeroMQ queues for the receiver (ZMQ_RCVHWM); beyond them TCP pushes back
  /// and Pupil's PUB drops. ZeroMQ counts whole messages and kMaxMessageBytes bounds each
  /// frame, so Pupil's two-frame messages hold at most 200 MiB however fast it floods.
  static constexpr int kReceiveHighWaterMark = 100;
  /// The most gaze entries one surface message may carry (pupil_message.hpp).
  static constexpr std::size_t kMaxEntries = kPupilMaxEntries;
  /// The longest reply Pupil Remote may give (a port or a time as text, or a short error
  /// string): a longer one is an over-long reply, dropped and counted, quoted in part. A
  /// reply part over kMaxMessageBytes never arrives (ZeroMQ closes the connection): no answer.
  static constexpr std::size_t kMaxReplyBytes = 4096;

  /// Starts the receiver thread and returns at once, without touching the network. Throws
  /// std::invalid_argument, naming the key, for settings that cannot work (an empty host,
  /// a port outside 0..65535, an empty surface, min_confidence outside [0, 1], a degenerate
  /// screen, non-positive timings); an absent tracker is not one of them.
  PupilGaze(const GazeSettings& settings, const ScreenSettings& screen, PupilTimings timings = {});

  /// The current estimate of Pupil time - fovea wall time, seconds; NaN before the first.
  double clock_offset_s() const { return clock_offset_s_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> clock_offset_s_{std::numeric_limits<double>::quiet_NaN()};
  /// Declared last: destroyed first, so the thread stops and joins while the members it
  /// writes still exist.
  std::jthread receiver_;
};

}  // namespace fovea

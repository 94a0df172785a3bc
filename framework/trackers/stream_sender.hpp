#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "trackers/stream_message.hpp"

namespace fovea {

/// One clock synchronisation of a StreamSender: fovea's clock minus the sender's local clock.
struct StreamClockSync {
  double offset_s = 0;      ///< add to a local time to get fovea's time for the same moment (s)
  double round_trip_s = 0;  ///< the shortest round trip measured, the offset's error bound x 2 (s)
  int answered = 0;         ///< requests fovea answered, of those asked
};

/// The sender's half of fovea's gaze stream (trackers/stream_gaze.hpp; docs/gaze.md, "The
/// stream protocol"): what the Python module's fovea.gaze.StreamSender is, what the EyeLink,
/// Tobii and LSL bridges in experiments/python/ use, and what the tests and `fovea run
/// --gaze-latency-test` send with. A PUSH socket connects to fovea's samples port, a REQ
/// socket to its clock port; fovea may start before or after the sender, or restart.
///
/// Sending never waits: a sample that cannot be queued at once (no fovea listening, or its
/// queue full) is dropped and counted in unsent(), because a late gaze sample is worth
/// nothing to a frame. Not thread-safe: one thread sends (a tracker's callback, or a loop).
class StreamSender {
 public:
  /// Samples queued for a connected fovea before send() starts dropping (ZMQ_SNDHWM).
  static constexpr int kSendHighWaterMark = 100;

  /// Connects (in the background) to fovea at `host`:`port` (0: StreamGaze's default 50070)
  /// and the clock at port + 1. `request_timeout_s` bounds each clock request. Throws
  /// std::invalid_argument for an empty host, a port outside 0..65534 or a timeout outside
  /// (0, 60]; ZeroMQ's error for a host it cannot parse.
  StreamSender(const std::string& host = "127.0.0.1", int port = 0, double request_timeout_s = 0.5);
  ~StreamSender();
  StreamSender(const StreamSender&) = delete;
  StreamSender& operator=(const StreamSender&) = delete;

  /// fovea's clock now, by one request; NaN when fovea does not answer within the timeout.
  double fovea_time_s();
  /// Asks fovea's clock `rounds` times, reading `local_clock` just before and after each
  /// request, and keeps the round with the shortest trip: the offset from its midpoint.
  /// Throws std::runtime_error when fovea answered none (it is not running, or not on this
  /// port); std::invalid_argument for rounds < 1 or > 1000.
  StreamClockSync sync_clock(const std::function<double()>& local_clock, int rounds = 10);

  /// Sends one sample (its time_s on fovea's clock). True when it was queued; false, counted
  /// in unsent(), when it could not be without waiting.
  bool send(const StreamMessage& message);
  /// Sends raw bytes as one message: for tests of what fovea does with a hostile sender.
  bool send_bytes(const std::string& bytes);
  /// Samples queued so far.
  std::uint64_t sent() const { return sent_; }
  /// Samples dropped for want of a listening fovea (or room in its queue).
  std::uint64_t unsent() const { return unsent_; }

  /// The samples endpoint, "tcp://host:port".
  const std::string& samples_endpoint() const { return samples_endpoint_; }

 private:
  struct Sockets;
  void open_clock();

  std::string samples_endpoint_, clock_endpoint_;
  double request_timeout_s_;
  std::unique_ptr<Sockets> sockets_;
  std::uint64_t sent_ = 0, unsent_ = 0;
};

}  // namespace fovea

#pragma once

#include <string>
#include <thread>

namespace fovea {

/// `fovea run --gaze-latency-test`'s sender (docs/gaze.md, "Latency"): a thread that sends
/// the gaze stream on this machine what a tracker at `rate_hz` would, a fixation at
/// (`x_px`, `y_px`), each sample stamped when it is sent, through fovea's own sender
/// (trackers/stream_sender.hpp) to `host`:`port`, the address the run listens on (this
/// machine's 127.0.0.1 when it listens on all). The ages the run then reports are what
/// fovea's side adds: the way over ZeroMQ and the wait for the frame, with no tracker in it.
/// It waits for the run's clock to answer, so it may start first; it stops with the object.
class LoopbackGaze {
 public:
  LoopbackGaze(const std::string& host, int port, double x_px, double y_px, double rate_hz = 1000.0);

 private:
  std::jthread sender_;
};

}  // namespace fovea

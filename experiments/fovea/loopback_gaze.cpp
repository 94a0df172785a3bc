#include "fovea/loopback_gaze.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>

#include "gaze/gaze_source.hpp"
#include "trackers/gaze_inbox.hpp"
#include "trackers/stream_sender.hpp"

namespace fovea {

LoopbackGaze::LoopbackGaze(const std::string& host, int port, double x_px, double y_px, double rate_hz)
    : sender_([=](std::stop_token stop) {
        // Signals belong to the run's thread (trackers/gaze_inbox.hpp).
        block_signals_on_this_thread();
        // fovea listening on every address is reached on this machine's own.
        const bool any = host == "0.0.0.0" || host == "::" || host == "*";
        StreamSender sender(any ? "127.0.0.1" : host, port, 0.1);
        std::optional<StreamClockSync> sync;
        const auto period = std::chrono::duration<double>(1.0 / rate_hz);
        auto next = std::chrono::steady_clock::now();
        while (!stop.stop_requested()) {
          if (!sync) {
            try {
              // One process, one clock: the offset is about 0, measured all the same, as a
              // bridge measures it.
              sync = sender.sync_clock(gaze_wall_clock_s, 5);
            } catch (const std::exception&) {
              // The run has not opened the stream yet (the request waited 0.1 s), or ZeroMQ
              // refused: try again in a moment rather than end the process.
              std::this_thread::sleep_for(std::chrono::milliseconds(10));
              continue;
            }
            next = std::chrono::steady_clock::now();
          }
          StreamMessage m;
          m.tracker_time_s = gaze_wall_clock_s();
          m.time_s = m.tracker_time_s + sync->offset_s;
          m.x = x_px;
          m.y = y_px;
          sender.send(m);
          next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
          std::this_thread::sleep_until(next);
        }
      }) {}

}  // namespace fovea

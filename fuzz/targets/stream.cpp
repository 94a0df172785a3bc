// Fuzz target: one message of fovea's gaze stream (trackers/stream_message.hpp), the msgpack
// bytes a ZeroMQ PULL socket hands over from any sender on the network. Never throws, by its
// header: an exception escapes to libFuzzer. Beyond "no crash", every message
// decode_stream_message accepts must hold what its header promises (a finite time, a
// confidence in [0, 1], a finite point when valid, a tracker stamp finite or NaN) and survive
// the encoder: encoded and decoded again, it gives the same values.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "trackers/stream_message.hpp"

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fovea::StreamMessage m;
  // Refused (a reason): the message is undefined and dropped; nothing to check.
  if (!fovea::decode_stream_message(std::span<const std::uint8_t>(data, size), m).empty()) return 0;
  fovea::fuzz::check(std::isfinite(m.time_s), "t accepted, but not finite");
  fovea::fuzz::check(std::isfinite(m.confidence) && m.confidence >= 0 && m.confidence <= 1,
                     "confidence accepted outside [0, 1]");
  if (m.valid) fovea::fuzz::check(std::isfinite(m.x) && std::isfinite(m.y), "a valid sample with a point not finite");
  fovea::fuzz::check(std::isnan(m.tracker_time_s) || std::isfinite(m.tracker_time_s), "tracker_t infinite");

  fovea::StreamMessage again;
  const std::string reason = fovea::decode_stream_message(fovea::encode_stream_message(m), again);
  fovea::fuzz::check(reason.empty(), "an accepted message, encoded again, is refused: " + reason);
  fovea::fuzz::check(same(again.time_s, m.time_s) && again.valid == m.valid && again.units == m.units &&
                         same(again.confidence, m.confidence) && same(again.tracker_time_s, m.tracker_time_s),
                     "an accepted message, encoded and decoded again, changed");
  if (m.valid) fovea::fuzz::check(again.x == m.x && again.y == m.y, "a valid point changed in the round trip");
  return 0;
}

#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

// One message of fovea's gaze stream (gaze.source: stream; docs/gaze.md, "The stream
// protocol"): a msgpack map a sender pushes per gaze sample, decoded into plain data apart
// from the network so it can be tested and fuzzed on bytes alone (fuzz/targets/stream.cpp).
// Everything in it is untrusted: docs/formats.md, "What each reader refuses".

namespace fovea {

/// The protocol's version: a message may say `v: 1`; any other version is refused.
inline constexpr int kStreamProtocolVersion = 1;
/// The largest sample message accepted (ZMQ_MAXMSGSIZE on fovea's socket): a sample is under
/// 100 bytes; room is left for a sender's own extra keys, which are ignored.
inline constexpr std::int64_t kStreamMaxMessageBytes = 4096;
/// The most key-value pairs one message may carry: the protocol's seven and a few of a sender's.
inline constexpr std::size_t kStreamMaxKeys = 32;

/// How a message gives its point.
enum class StreamUnits {
  px,    ///< screen pixels from the top-left corner, y down
  norm,  ///< fractions of the screen's width and height from the top-left corner, y down
};

/// One decoded sample message. Times are seconds: `time_s` on fovea's clock (the sender got
/// it from the clock socket), `tracker_time_s` on the tracker's own clock, kept for the record.
struct StreamMessage {
  double time_s = 0;        ///< "t": when the eye was there, on fovea's clock (required)
  double x = 0;             ///< "x", in `units`; 0 when absent from an invalid sample
  double y = 0;             ///< "y", in `units`, y down
  StreamUnits units = StreamUnits::px;  ///< "units": "px" (the default) or "norm"
  bool valid = true;        ///< "valid": false for a blink or a lost eye (x, y then absent, nil or any number)
  double confidence = 1.0;  ///< "confidence" in [0, 1]; 1 when absent
  /// "tracker_t": the tracker's own time stamp, seconds on its clock; NaN when absent.
  double tracker_time_s = std::numeric_limits<double>::quiet_NaN();
};

/// Decodes one message. Returns "" and fills `message` when it is well formed; otherwise a
/// short reason, with `message` undefined: msgpack that does not parse or exceeds the
/// structure bounds (stream_message.cpp), bytes after the map, not a map, more than
/// kStreamMaxKeys pairs, a key that is not a string, a repeated protocol key, a missing `t`,
/// a protocol key of the wrong type, a number that is not finite, a confidence outside
/// [0, 1], unknown units, another protocol version, or a valid sample without finite x and
/// y. Keys it does not know are skipped. Never throws.
std::string decode_stream_message(std::span<const std::uint8_t> payload, StreamMessage& message);

/// The bytes of `message` as a sender writes them: every protocol key, `tracker_t` only when
/// finite, `x` and `y` only when finite. What fovea's own sender (trackers/stream_sender.hpp)
/// and the tests send.
std::vector<std::uint8_t> encode_stream_message(const StreamMessage& message);

}  // namespace fovea

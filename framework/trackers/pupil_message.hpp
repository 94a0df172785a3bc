#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gaze/gaze_settings.hpp"

// The payload of one Pupil Capture message (msgpack), decoded into plain gaze entries, apart
// from the network so it can be tested and fuzzed on bytes alone (fuzz/targets/pupil.cpp).
// Everything in it is untrusted: docs/formats.md, "What each reader refuses".

namespace fovea {

/// The largest SUB message frame accepted (ZMQ_MAXMSGSIZE): a surface message of Pupil
/// Capture is a few kB, a gaze datum with its pupil data about 2 kB.
inline constexpr std::int64_t kPupilMaxMessageBytes = std::int64_t{1} << 20;
/// The most gaze entries one surface message may carry: Pupil sends the gaze of one world
/// frame, about 8 entries for 240 Hz eye cameras under a 30 Hz world camera.
inline constexpr std::size_t kPupilMaxEntries = 256;

/// One gaze entry of a Pupil message, on Pupil's clock.
struct PupilEntry {
  double x_norm = 0;       ///< surface (or world image) coordinates: origin bottom-left, y up
  double y_norm = 0;       ///< as x_norm, up from the bottom edge; 0-1 on the surface (or image)
  double confidence = 0;   ///< in [0, 1]
  double timestamp_s = 0;  ///< Pupil time
  bool on_surf = false;    ///< the gaze lies on the surface (for gaze.: inside the image)
};

/// Decodes one message payload into `entries` (cleared first): a surface message's
/// gaze_on_surfaces (topic surface) or one gaze datum (topic gaze). False, with `entries`
/// undefined, for anything malformed: msgpack that does not parse or exceeds the structure
/// bounds (pupil_message.cpp), bytes after the message, a missing or mistyped field, a
/// non-finite number, a confidence outside [0, 1], more than kPupilMaxEntries entries, or an
/// entry marked on the surface whose norm_pos lies off it. Never throws.
bool decode_pupil_payload(std::span<const std::uint8_t> payload, PupilTopic topic, std::vector<PupilEntry>& entries);

}  // namespace fovea

// Fuzz target: the payload of a Pupil Capture message (trackers/pupil_message.hpp), the
// msgpack bytes a ZeroMQ SUB socket hands over from the network. Every input is decoded as
// both topics, a surface message (surfaces.<name>) and a gaze datum (gaze.). Never throws, by
// its header: an exception escapes to libFuzzer. Beyond "no crash", every payload
// decode_pupil_payload accepts must hold what its header promises: at most kPupilMaxEntries
// entries, finite values, a confidence in [0, 1], and an entry marked on the surface inside
// the unit square (to 1e-6); a gaze datum gives exactly one entry, on the "surface" exactly
// when it lies in the unit square.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "trackers/pupil_message.hpp"

namespace {

/// norm_pos of an entry on the surface may stray this far outside [0, 1] (pupil_message.cpp).
constexpr double kTolerance = 1e-6;

bool inside_unit_square(double x, double y) {
  return x >= -kTolerance && x <= 1 + kTolerance && y >= -kTolerance && y <= 1 + kTolerance;
}

void check_entries(const std::vector<fovea::PupilEntry>& entries, fovea::PupilTopic topic) {
  const std::string where = topic == fovea::PupilTopic::surface ? "surface message: " : "gaze datum: ";
  fovea::fuzz::check(entries.size() <= fovea::kPupilMaxEntries,
                     where + std::to_string(entries.size()) + " entries, more than kPupilMaxEntries");
  if (topic == fovea::PupilTopic::gaze)
    fovea::fuzz::check(entries.size() == 1, where + std::to_string(entries.size()) + " entries accepted, not one");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const fovea::PupilEntry& e = entries[i];
    const std::string entry = where + "entry " + std::to_string(i) + ": ";
    fovea::fuzz::check(std::isfinite(e.x_norm) && std::isfinite(e.y_norm), entry + "norm_pos not finite");
    fovea::fuzz::check(std::isfinite(e.timestamp_s), entry + "timestamp not finite");
    fovea::fuzz::check(std::isfinite(e.confidence) && e.confidence >= 0 && e.confidence <= 1,
                       entry + "confidence outside [0, 1]");
    if (e.on_surf)
      fovea::fuzz::check(inside_unit_square(e.x_norm, e.y_norm), entry + "on the surface, but norm_pos lies off it");
    if (topic == fovea::PupilTopic::gaze)
      fovea::fuzz::check(e.on_surf == inside_unit_square(e.x_norm, e.y_norm),
                         entry + "on_surf does not say whether norm_pos lies in the unit square");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> payload(data, size);
  std::vector<fovea::PupilEntry> entries;
  for (const fovea::PupilTopic topic : {fovea::PupilTopic::surface, fovea::PupilTopic::gaze}) {
    // Refused (false): entries are undefined, and the message is dropped; nothing to check.
    if (fovea::decode_pupil_payload(payload, topic, entries)) check_entries(entries, topic);
  }
  return 0;
}

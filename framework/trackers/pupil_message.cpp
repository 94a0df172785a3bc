#include "trackers/pupil_message.hpp"

#include <cmath>
#include <exception>
#include <optional>
#include <string_view>

#include <msgpack.hpp>

namespace fovea {
namespace {

// Bounds on a payload's msgpack structure, checked by msgpack's parser before it allocates:
// msgpack-cxx allocates an array's or a map's elements when it reads the declared count, so
// without them five bytes declaring 4 billion elements would ask for about 100 GB. A Pupil gaze
// datum nests about six levels deep (base_data, pupil datum, ellipse, centre) and has about
// 20 keys; strings and binaries are bounded by the message size anyway.
constexpr std::size_t kMaxArrayElements = 1024;
constexpr std::size_t kMaxMapPairs = 256;
constexpr std::size_t kMaxStringBytes = 64 * 1024;
constexpr std::size_t kMaxBinaryBytes = static_cast<std::size_t>(kPupilMaxMessageBytes);
constexpr std::size_t kMaxExtBytes = 64 * 1024;
constexpr std::size_t kMaxDepth = 16;

/// norm_pos of an entry Pupil marks on the surface may stray this far outside [0, 1]
/// (rounding) and is clamped; farther is a malformed message.
constexpr double kNormTolerance = 1e-6;

msgpack::unpack_limit payload_limits() {
  return msgpack::unpack_limit(kMaxArrayElements, kMaxMapPairs, kMaxStringBytes, kMaxBinaryBytes, kMaxExtBytes,
                               kMaxDepth);
}

/// A msgpack number as a double (Pupil's Python may send 1 for 1.0); nullopt for any other
/// type and for NaN and infinities.
std::optional<double> finite_number(const msgpack::object& o) {
  double value = 0;
  switch (o.type) {
    case msgpack::type::POSITIVE_INTEGER: value = static_cast<double>(o.via.u64); break;
    case msgpack::type::NEGATIVE_INTEGER: value = static_cast<double>(o.via.i64); break;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: value = o.via.f64; break;
    default: return std::nullopt;
  }
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

/// The value of `key` in `map` (the first, if Pupil ever repeated one), or null.
const msgpack::object* find_field(const msgpack::object& map, std::string_view key) {
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key)
      return &kv.val;
  }
  return nullptr;
}

std::optional<double> finite_field(const msgpack::object& map, std::string_view key) {
  const msgpack::object* value = find_field(map, key);
  return value ? finite_number(*value) : std::nullopt;
}

/// The fields every Pupil gaze datum has: norm_pos [x, y], confidence in [0, 1] and a
/// timestamp, all finite. False when one is missing or out of range.
bool read_gaze_fields(const msgpack::object& datum, PupilEntry& entry) {
  if (datum.type != msgpack::type::MAP) return false;
  const msgpack::object* norm_pos = find_field(datum, "norm_pos");
  if (!norm_pos || norm_pos->type != msgpack::type::ARRAY || norm_pos->via.array.size != 2) return false;
  const std::optional<double> x = finite_number(norm_pos->via.array.ptr[0]);
  const std::optional<double> y = finite_number(norm_pos->via.array.ptr[1]);
  const std::optional<double> confidence = finite_field(datum, "confidence");
  const std::optional<double> timestamp = finite_field(datum, "timestamp");
  if (!x || !y || !confidence || !timestamp) return false;
  if (*confidence < 0 || *confidence > 1) return false;
  entry.x_norm = *x;
  entry.y_norm = *y;
  entry.confidence = *confidence;
  entry.timestamp_s = *timestamp;
  return true;
}

bool inside_unit_square(double x, double y) {
  return x >= -kNormTolerance && x <= 1 + kNormTolerance && y >= -kNormTolerance && y <= 1 + kNormTolerance;
}

/// A surface message's gaze_on_surfaces into `entries`; false, with `entries` undefined,
/// when the message is malformed.
bool read_surface_message(const msgpack::object& root, std::vector<PupilEntry>& entries) {
  if (root.type != msgpack::type::MAP) return false;
  const msgpack::object* gaze = find_field(root, "gaze_on_surfaces");
  if (!gaze || gaze->type != msgpack::type::ARRAY || gaze->via.array.size > kPupilMaxEntries) return false;
  for (std::uint32_t i = 0; i < gaze->via.array.size; ++i) {
    const msgpack::object& datum = gaze->via.array.ptr[i];
    PupilEntry entry;
    if (!read_gaze_fields(datum, entry)) return false;
    const msgpack::object* on_surf = find_field(datum, "on_surf");
    if (!on_surf || on_surf->type != msgpack::type::BOOLEAN) return false;
    entry.on_surf = on_surf->via.boolean;
    // Pupil sets on_surf exactly when norm_pos lies in the unit square: anything else is
    // a message that contradicts itself.
    if (entry.on_surf && !inside_unit_square(entry.x_norm, entry.y_norm)) return false;
    entries.push_back(entry);
  }
  return true;
}

/// A gaze. message (one datum) into `entries`. Gaze outside the world image is legitimate
/// (the viewer looks beside the screen) and becomes an entry off the "surface".
bool read_gaze_message(const msgpack::object& root, std::vector<PupilEntry>& entries) {
  PupilEntry entry;
  if (!read_gaze_fields(root, entry)) return false;
  entry.on_surf = inside_unit_square(entry.x_norm, entry.y_norm);
  entries.push_back(entry);
  return true;
}

}  // namespace

bool decode_pupil_payload(std::span<const std::uint8_t> payload, PupilTopic topic, std::vector<PupilEntry>& entries) {
  entries.clear();
  try {
    std::size_t offset = 0;
    const msgpack::object_handle handle = msgpack::unpack(reinterpret_cast<const char*>(payload.data()), payload.size(),
                                                          offset, nullptr, nullptr, payload_limits());
    // Bytes after the map are not something Pupil sends.
    return offset == payload.size() &&
           (topic == PupilTopic::surface ? read_surface_message(handle.get(), entries) : read_gaze_message(handle.get(), entries));
  } catch (const std::exception&) {
    // msgpack's parse_error, insufficient_bytes, *_size_overflow, depth_size_overflow, or
    // bad_alloc: all the same to the run, a message to drop.
    return false;
  }
}

}  // namespace fovea

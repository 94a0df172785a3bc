#include "trackers/stream_message.hpp"

#include <bit>
#include <cmath>
#include <exception>
#include <optional>
#include <string_view>

#include <msgpack.hpp>

namespace fovea {
namespace {

// Bounds on a message's msgpack structure, checked by msgpack's parser before it allocates
// (as for Pupil's, trackers/pupil_message.cpp): a sample is one flat map; a sender's extra
// keys may hold a short array or map, no deeper.
constexpr std::size_t kMaxArrayElements = 64;
constexpr std::size_t kMaxStringBytes = static_cast<std::size_t>(kStreamMaxMessageBytes);
constexpr std::size_t kMaxBinaryBytes = static_cast<std::size_t>(kStreamMaxMessageBytes);
constexpr std::size_t kMaxExtBytes = static_cast<std::size_t>(kStreamMaxMessageBytes);
constexpr std::size_t kMaxDepth = 4;

msgpack::unpack_limit message_limits() {
  return msgpack::unpack_limit(kMaxArrayElements, kStreamMaxKeys, kMaxStringBytes, kMaxBinaryBytes, kMaxExtBytes,
                               kMaxDepth);
}

/// A msgpack number as a double (a sender may send 1 for 1.0); nullopt for any other type.
/// NaN and infinities pass: the caller says which key was not finite.
std::optional<double> number(const msgpack::object& o) {
  switch (o.type) {
    case msgpack::type::POSITIVE_INTEGER: return static_cast<double>(o.via.u64);
    case msgpack::type::NEGATIVE_INTEGER: return static_cast<double>(o.via.i64);
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return o.via.f64;
    default: return std::nullopt;
  }
}

/// The protocol's keys, each read at most once.
enum Key { t, x, y, units, valid, confidence, tracker_t, v, key_count };
constexpr std::string_view kKeyNames[key_count] = {"t", "x", "y", "units", "valid", "confidence", "tracker_t", "v"};

std::optional<Key> protocol_key(std::string_view name) {
  for (int k = 0; k < key_count; ++k)
    if (kKeyNames[k] == name) return static_cast<Key>(k);
  return std::nullopt;
}

std::string read_map(const msgpack::object& root, StreamMessage& m) {
  if (root.type != msgpack::type::MAP) return "not a msgpack map";
  const msgpack::object* values[key_count] = {};
  for (std::uint32_t i = 0; i < root.via.map.size; ++i) {
    const msgpack::object_kv& kv = root.via.map.ptr[i];
    if (kv.key.type != msgpack::type::STR) return "a key that is not a string";
    const std::optional<Key> key = protocol_key(std::string_view(kv.key.via.str.ptr, kv.key.via.str.size));
    if (!key) continue;  // a sender's own key: ignored
    if (values[*key] != nullptr) return "key " + std::string(kKeyNames[*key]) + " twice";
    values[*key] = &kv.val;
  }
  if (const msgpack::object* o = values[v]) {
    const std::optional<double> version = number(*o);
    if (!version || *version != kStreamProtocolVersion) return "protocol version v is not 1";
  }
  // Every number the message gives must be finite, present or not needed.
  const auto finite = [&](Key key, double& out) -> std::string {
    const std::optional<double> value = number(*values[key]);
    if (!value) return std::string(kKeyNames[key]) + " is not a number";
    if (!std::isfinite(*value)) return std::string(kKeyNames[key]) + " is not finite";
    out = *value;
    return "";
  };
  if (values[t] == nullptr) return "no time t";
  if (std::string e = finite(t, m.time_s); !e.empty()) return e;
  m.valid = true;
  if (const msgpack::object* o = values[valid]) {
    if (o->type != msgpack::type::BOOLEAN) return "valid is not a boolean";
    m.valid = o->via.boolean;
  }
  m.units = StreamUnits::px;
  if (const msgpack::object* o = values[units]) {
    const std::string_view name = o->type == msgpack::type::STR ? std::string_view(o->via.str.ptr, o->via.str.size) : "";
    if (name == "px") m.units = StreamUnits::px;
    else if (name == "norm") m.units = StreamUnits::norm;
    else return "units is neither \"px\" nor \"norm\"";
  }
  m.x = m.y = 0;
  for (const Key key : {x, y}) {
    double& out = key == x ? m.x : m.y;
    if (values[key] == nullptr) {
      if (m.valid) return "a valid sample without " + std::string(kKeyNames[key]);
      continue;
    }
    // An invalid sample's point is not looked at: trackers send NaN, a sentinel or nothing
    // (msgpack nil, Python's None) for a blink.
    if (!m.valid) {
      if (values[key]->type != msgpack::type::NIL && !number(*values[key]))
        return std::string(kKeyNames[key]) + " is not a number";
      continue;
    }
    if (std::string e = finite(key, out); !e.empty()) return e;
  }
  m.confidence = 1.0;
  if (values[confidence] != nullptr) {
    if (std::string e = finite(confidence, m.confidence); !e.empty()) return e;
    if (m.confidence < 0 || m.confidence > 1) return "confidence is outside [0, 1]";
  }
  m.tracker_time_s = std::numeric_limits<double>::quiet_NaN();
  if (values[tracker_t] != nullptr)
    if (std::string e = finite(tracker_t, m.tracker_time_s); !e.empty()) return e;
  return "";
}

}  // namespace

std::string decode_stream_message(std::span<const std::uint8_t> payload, StreamMessage& message) {
  try {
    std::size_t offset = 0;
    const msgpack::object_handle handle = msgpack::unpack(reinterpret_cast<const char*>(payload.data()), payload.size(),
                                                          offset, nullptr, nullptr, message_limits());
    if (offset != payload.size()) return "bytes after the map";
    return read_map(handle.get(), message);
  } catch (const std::exception&) {
    // msgpack's parse_error, insufficient_bytes, *_size_overflow, depth_size_overflow, or
    // bad_alloc: all the same to the run, a message to drop.
    return "not msgpack within the bounds";
  }
}

namespace {

/// A float64 written as such (0xcb and 8 bytes, big-endian). Not msgpack-cxx's pack_double:
/// it writes whole values as integers, and for 2^64 converts out of range (undefined
/// behaviour, found by fuzz/targets/stream.cpp in msgpack-cxx 4.1).
void pack_float64(msgpack::sbuffer& buffer, double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  char bytes[9];
  bytes[0] = static_cast<char>(0xcb);
  for (int i = 0; i < 8; ++i) bytes[1 + i] = static_cast<char>((bits >> (56 - 8 * i)) & 0xff);
  buffer.write(bytes, sizeof bytes);
}

}  // namespace

std::vector<std::uint8_t> encode_stream_message(const StreamMessage& m) {
  msgpack::sbuffer buffer;
  msgpack::packer<msgpack::sbuffer> pack(buffer);
  const auto float64 = [&](double value) { pack_float64(buffer, value); };
  const bool point = std::isfinite(m.x) && std::isfinite(m.y);
  const bool tracker = std::isfinite(m.tracker_time_s);
  pack.pack_map(5 + (point ? 2 : 0) + (tracker ? 1 : 0));
  pack.pack(std::string_view("v"));
  pack.pack(kStreamProtocolVersion);
  pack.pack(std::string_view("t"));
  float64(m.time_s);
  if (point) {
    pack.pack(std::string_view("x"));
    float64(m.x);
    pack.pack(std::string_view("y"));
    float64(m.y);
  }
  pack.pack(std::string_view("units"));
  pack.pack(std::string_view(m.units == StreamUnits::norm ? "norm" : "px"));
  pack.pack(std::string_view("valid"));
  pack.pack(m.valid);
  pack.pack(std::string_view("confidence"));
  float64(m.confidence);
  if (tracker) {
    pack.pack(std::string_view("tracker_t"));
    float64(m.tracker_time_s);
  }
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(buffer.data());
  return {bytes, bytes + buffer.size()};
}

}  // namespace fovea

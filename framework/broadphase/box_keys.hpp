#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/math.hpp"

namespace fovea {

/// The bound a box is stored as on one axis: a float rounded outward (mins down, maxes up,
/// so a stored box always holds the given one) mapped to an unsigned key whose integer order
/// is the float order. -0 is stored as +0, so equal coordinates give equal keys.
namespace bound_key {

/// The largest float <= d (d may be infinite; never NaN here).
inline float float_at_or_below(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (d > kMax) return d == std::numeric_limits<double>::infinity() ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::max();
  if (d < -kMax) return -std::numeric_limits<float>::infinity();
  float f = static_cast<float>(d);
  if (static_cast<double>(f) > d) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f + 0.0f;  // -0 to +0
}

/// The smallest float >= d.
inline float float_at_or_above(double d) { return -float_at_or_below(-d) + 0.0f; }

/// Unsigned key with the order of the float: flip the sign bit of positives, all bits of
/// negatives.
inline std::uint32_t from_float(float f) {
  const auto bits = std::bit_cast<std::uint32_t>(f);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

/// The float a key stands for: from_float's inverse (-0 comes back as +0).
inline float to_float(std::uint32_t key) {
  return std::bit_cast<float>((key & 0x80000000u) ? (key & 0x7fffffffu) : ~key);
}

}  // namespace bound_key

/// A box as stored: its bound keys, [axis][0 for the min, 1 for the max].
struct BoxKeys {
  std::uint32_t key[3][2];  ///< order-preserving keys (from_float) of the outward-rounded bounds in metres
  friend bool operator==(const BoxKeys&, const BoxKeys&) = default;
};

namespace bound_key {

/// The key of +0, which -0's key (one below it) is stored as.
inline constexpr std::uint32_t kPlusZeroKey = 0x80000000u;

/// from_float(float_at_or_below(d)), without a call to std::nextafter: the next float
/// down is the next key down, as the keys count the floats in order (-0 and +0 apart, which
/// the end joins). A third of the broad phase's box stage went to that library call and its
/// mispredicted branch (perf, 100,000 balls); the oracle test in sweep_and_prune_test.cpp
/// checks the two give the same key.
inline std::uint32_t key_at_or_below(double d) {
  constexpr double kMax = std::numeric_limits<float>::max();
  if (!(d <= kMax) || !(d >= -kMax)) return from_float(float_at_or_below(d));  // beyond the finite floats: rare
  const auto f = static_cast<float>(d);
  std::uint32_t key = from_float(f) - (static_cast<double>(f) > d ? 1u : 0u);
  return key == kPlusZeroKey - 1 ? kPlusZeroKey : key;
}

/// from_float(float_at_or_above(d)): as float_at_or_above is float_at_or_below(-d) negated,
/// this is key_at_or_below(-d) with its bits flipped (from_float(-f) is ~from_float(f)),
/// -0 again stored as +0.
inline std::uint32_t key_at_or_above(double d) {
  const std::uint32_t key = ~key_at_or_below(-d);
  return key == kPlusZeroKey - 1 ? kPlusZeroKey : key;
}

/// The keys of `box` rounded outward (no check: min <= max and no NaN are the caller's).
inline BoxKeys box_keys(const Aabb& box) {
  BoxKeys keys;
  for (int k = 0; k < 3; ++k) {
    keys.key[k][0] = key_at_or_below(box.min_m[k]);
    keys.key[k][1] = key_at_or_above(box.max_m[k]);
  }
  return keys;
}

}  // namespace bound_key

/// Keys of a slot with no proxy: a min above and a max below everything, so they overlap
/// nothing, and a scan over all ids needs no liveness test.
inline constexpr BoxKeys kEmptyBoxKeys{{{0xffffffffu, 0}, {0xffffffffu, 0}, {0xffffffffu, 0}}};

namespace bound_key {

/// The box the keys stand for: the outward-rounded floats, as doubles.
inline Aabb box_of(const BoxKeys& keys) {
  Aabb box;
  for (int k = 0; k < 3; ++k) {
    box.min_m[k] = to_float(keys.key[k][0]);
    box.max_m[k] = to_float(keys.key[k][1]);
  }
  return box;
}

/// Whether the closed boxes overlap on all three axes (touching counts).
inline bool overlap(const BoxKeys& a, const BoxKeys& b) {
  bool all = true;
  for (int k = 0; k < 3; ++k) all &= (a.key[k][0] <= b.key[k][1]) & (b.key[k][0] <= a.key[k][1]);
  return all;
}

}  // namespace bound_key

}  // namespace fovea

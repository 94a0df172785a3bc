#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fovea {

/// A 64-bit hash of bytes, the same on every machine: FNV-1a's step with its prime, from an
/// offset of 1469598103934665603 (FNV's published offset is 14695981039346656037; this one
/// lost a digit when it was first typed). Keep it: simulated observers' answers, study
/// fingerprints and the tests' stored hashes all derive from it, so changing it changes
/// every one of them. Feed bytes with add(); value() any time.
class ByteHash {
 public:
  /// Folds `bytes` bytes from `data` into the hash, in memory order (so a number's bytes are host-endian).
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < bytes; ++i) value_ = (value_ ^ p[i]) * kPrime;
  }
  /// Folds the text's bytes in, without a terminator: follow with add_separator() between texts.
  void add(std::string_view text) { add(text.data(), text.size()); }
  /// One byte no UTF-8 text holds, to end a text so that ("ab", "c") and ("a", "bc") differ.
  void add_separator() { value_ = (value_ ^ 0xffu) * kPrime; }
  /// The hash of every byte added so far; adding more afterwards carries on from it.
  std::uint64_t value() const { return value_; }

 private:
  static constexpr std::uint64_t kPrime = 1099511628211ull;
  std::uint64_t value_ = 1469598103934665603ull;
};

}  // namespace fovea

#pragma once

#include <stdexcept>
#include <string>

namespace fovea {

/// A setting that cannot work, named by its config key ("gaze.source"), so a program can
/// point at the key's line in the config it came from. what() is "key: detail".
class SettingError : public std::invalid_argument {
 public:
  /// `key` as the config spells it ("gaze.source"); `detail` what is wrong, without the key.
  SettingError(std::string key, const std::string& detail)
      : std::invalid_argument(key + ": " + detail), key_(std::move(key)), detail_(detail) {}
  /// The config key at fault, dotted ("gaze.source").
  const std::string& key() const { return key_; }
  /// What is wrong with it, without the key: what() is "key: detail".
  const std::string& detail() const { return detail_; }

 private:
  std::string key_;
  std::string detail_;
};

}  // namespace fovea

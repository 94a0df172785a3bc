#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.hpp"
#include "config/settings.hpp"

namespace fovea::config {

/// A validated config: the settings, and where each key was written (for later errors,
/// such as a world too small for its entities, to point at the right line).
struct LoadedConfig {
  Settings settings;
  std::string source;                             ///< file as named by the user
  std::map<std::string, std::string> locations;   ///< key path -> "file:line:col" or "--set ..."

  /// "where: key: message", `where` being the location of `path` or of its nearest
  /// ancestor that was written; the config's own name when none was.
  std::string error_at(const std::string& path, const std::string& message) const;
};

/// Reads and validates a config file, then applies `sets` ("key=value", YAML values, list
/// elements as `world.entities[0].count`) with the same checks. Throws ConfigError.
LoadedConfig load_config_file(const std::string& path, const std::vector<std::string>& sets = {});
/// Same, from text; `source_name` names it in messages.
LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<std::string>& sets = {});

/// The config as resolved: every key, defaults filled in, as YAML that loads back to the
/// same settings.
std::string resolved_yaml(const Settings& settings);

/// Every key with its type, default and meaning, in schema order.
std::vector<KeyInfo> config_keys();

/// The default scene, compiled into the binary from configs/default.yaml.
std::string_view default_config_text();
/// How the embedded default names itself in messages.
inline constexpr const char* kDefaultConfigName = "configs/default.yaml (built in)";

}  // namespace fovea::config

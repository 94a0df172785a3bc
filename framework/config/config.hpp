#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/schema.hpp"
#include "config/settings.hpp"
#include "core/format.hpp"
#include "psychophysics/experiment_settings.hpp"

namespace fovea::config {

/// A validated config: the settings, and where each key was written (for later errors,
/// such as a world too small for its entities, to point at the right line).
struct LoadedConfig {
  Settings settings;                              ///< defaults, then the file's keys, then the overrides
  std::string source;                             ///< file as named by the user
  std::map<std::string, std::string> locations;   ///< key path -> "file:line:col" or "--set ..."

  /// "where: key: message", `where` being the location of `path` or of its nearest
  /// ancestor that was written; the config's own name when none was.
  std::string error_at(const std::string& path, const std::string& message) const;
};

/// A validated experiment spec (configs/experiments/*.yaml, docs/psychophysics.md), and
/// where each key was written.
struct LoadedExperiment {
  ExperimentSettings spec;                        ///< defaults, then the file's keys, then the overrides
  std::string source;                             ///< file as named by the user, or the text's source_name
  std::map<std::string, std::string> locations;   ///< key path -> "file:line:col" or "--set ..."
  /// As LoadedConfig::error_at.
  std::string error_at(const std::string& path, const std::string& message) const;
};

/// "where: path: message", `where` being the location of `path` or of its nearest ancestor
/// in `locations`; `source` when none was written.
std::string error_at(const std::map<std::string, std::string>& locations, const std::string& source,
                     const std::string& path, const std::string& message);

/// Levels of lists and maps a config may nest, the top-level map included: more than any
/// config needs, and a bound on every walk of one. The YAML reader refuses a document past
/// it, and so does the Python module's conversion of dicts and lists
/// (python/bindings/config_bindings.cpp); docs/formats.md, "What each reader refuses".
inline constexpr int kMaxNestingDepth = 64;

/// One override from the command line: "key=value" (a YAML value; list elements as
/// `world.entities[0].count`), and how messages name it.
struct Override {
  std::string assignment;  ///< "key=value", as after `--set`
  /// "--set key=value", or "--frames 200" for the --frames option: every message about the
  /// override starts with it, so it quotes the argument as excerpt() does, a bounded excerpt.
  std::string shown_as;
};
/// The most overrides one config or spec takes (docs/formats.md, "Lists and their caps"):
/// `--set`, and for a study's run its `set` and its levels' keys. Refused before any is
/// applied: each names its key in messages, which costs every key read a look at them all.
inline constexpr std::size_t kMaxOverrides = 4096;
/// The override `--set assignment` makes, named as written (an excerpt of a long one).
inline Override set_override(const std::string& assignment) { return {assignment, "--set " + excerpt(assignment)}; }

/// Reads and validates a config file (one YAML document), then applies the overrides in
/// order, with the same checks. Throws ConfigError.
LoadedConfig load_config_file(const std::string& path, const std::vector<Override>& overrides);
/// Same, with `--set` overrides given as "key=value" strings.
LoadedConfig load_config_file(const std::string& path, const std::vector<std::string>& sets = {});
/// Same, from text; `source_name` names it in messages.
LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<Override>& overrides);
/// Same, with `--set` overrides as "key=value" strings. Relative paths are from the working folder.
LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<std::string>& sets = {});

/// Reads and checks an experiment spec, overrides applied: the keys and their ranges, then
/// what spans keys (a gap larger than the screen, an empty grid, ...). Throws ConfigError.
LoadedExperiment load_experiment_file(const std::string& path, const std::vector<Override>& overrides = {});
/// Same, from text named `source_name` in messages; clip scenes' paths are from the working folder.
LoadedExperiment load_experiment_text(const std::string& text, const std::string& source_name,
                                      const std::vector<Override>& overrides = {});
/// A perception-model YAML file (what `perception.model.file` reads and `fovea fit` writes),
/// checked. Throws ConfigError.
PerceptionModelSettings load_perception_model_file(const std::string& path);
/// The spec as resolved: every key, defaults filled in.
std::string resolved_experiment_yaml(const ExperimentSettings& spec);
/// Every experiment key with its type, default and meaning.
std::vector<KeyInfo> experiment_keys();

/// The config as resolved: every key, defaults filled in, as YAML that loads back to the
/// same settings.
std::string resolved_yaml(const Settings& settings);

/// Why a run of `loaded` could not write back a config.yaml that fovea reads again (its
/// resolved_yaml over the 1 MiB a config may be); "" when it can. Not part of loading, as
/// writing the resolved config costs about a millisecond: `fovea validate` and `fovea run`
/// ask it (docs/formats.md, "Lists and their caps").
std::string written_back_problem(const LoadedConfig& loaded);

/// Every key with its type, default and meaning, in schema order.
std::vector<KeyInfo> config_keys();

/// The default scene, compiled into the binary from configs/default.yaml.
std::string_view default_config_text();
/// How the embedded default names itself in messages.
inline constexpr const char* kDefaultConfigName = "configs/default.yaml (built in)";

}  // namespace fovea::config

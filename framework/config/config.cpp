#include "config/config.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/settings_schema.hpp"

namespace fovea::config {
namespace {

/// One step of a key path: a map key, or a list index.
struct PathStep {
  std::string key;
  long index = -1;
};

std::vector<PathStep> split_path(const std::string& path, const std::string& argument) {
  std::vector<PathStep> steps;
  std::size_t i = 0;
  const auto bad = [&] { return ConfigError("--set " + argument + ": expected key=value with a key like world.entities[0].count"); };
  while (i < path.size()) {
    const std::size_t end = path.find_first_of(".[", i);
    const std::string key = path.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) throw bad();
    steps.push_back({key, -1});
    i = end == std::string::npos ? path.size() : end;
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos || close == i + 1) throw bad();
      const std::string digits = path.substr(i + 1, close - i - 1);
      if (digits.find_first_not_of("0123456789") != std::string::npos) throw bad();
      steps.push_back({"", std::stol(digits)});
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') throw bad();
      ++i;
      if (i == path.size()) throw bad();
    }
  }
  if (steps.empty()) throw bad();
  return steps;
}

/// Writes `value` at `path` into the document, creating maps on the way; list elements must
/// exist already.
void apply_set(YAML::Node& root, const std::string& argument, Sources& sources) {
  const std::size_t equals = argument.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError("--set " + argument + ": expected key=value with a key like world.entities[0].count");
  const std::string path = argument.substr(0, equals);
  const std::string text = argument.substr(equals + 1);
  const std::vector<PathStep> steps = split_path(path, argument);
  YAML::Node value;
  try {
    value = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("--set " + argument + ": YAML syntax error in the value: " + e.msg);
  }
  sources.sets.emplace_back(path, argument);

  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  YAML::Node current;
  current.reset(root);
  std::string walked;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const PathStep& step = steps[s];
    const bool last = s + 1 == steps.size();
    if (step.index >= 0) {
      if (!current.IsSequence() || static_cast<std::size_t>(step.index) >= current.size())
      {
        const std::size_t entries = current.IsSequence() ? current.size() : 0;
        throw ConfigError("--set " + argument + ": " + walked + " has " + std::to_string(entries) +
                          (entries == 1 ? " entry" : " entries") + ", no [" + std::to_string(step.index) + "]");
      }
      walked += "[" + std::to_string(step.index) + "]";
      if (last) {
        current[static_cast<std::size_t>(step.index)] = value;
        return;
      }
      YAML::Node next = current[static_cast<std::size_t>(step.index)];
      current.reset(next);
    } else {
      if (current.IsNull()) current = YAML::Node(YAML::NodeType::Map);
      if (!current.IsMap())
        throw ConfigError("--set " + argument + ": " + walked + " is not a map of keys");
      walked += (walked.empty() ? "" : ".") + step.key;
      if (last) {
        current[step.key] = value;
        return;
      }
      if (!current[step.key]) current[step.key] = YAML::Node(YAML::NodeType::Null);
      YAML::Node next = current[step.key];
      current.reset(next);
    }
  }
}

LoadedConfig parse_document(YAML::Node root, const std::string& source_name, const std::vector<std::string>& sets) {
  Sources sources{source_name, {}};
  for (const auto& argument : sets) apply_set(root, argument, sources);
  LoadedConfig loaded;
  loaded.source = source_name;
  ParseState state{sources, loaded.locations};
  settings_schema().parse(root, loaded.settings, "", root.IsDefined() ? root.Mark() : YAML::Mark(), state);
  return loaded;
}

}  // namespace

std::string LoadedConfig::error_at(const std::string& path, const std::string& message) const {
  for (std::string p = path; !p.empty();) {
    if (const auto it = locations.find(p); it != locations.end()) return it->second + ": " + path + ": " + message;
    const std::size_t cut = p.find_last_of(".[");
    p = cut == std::string::npos ? "" : p.substr(0, cut);
  }
  return source + ": " + path + ": " + message;
}

LoadedConfig load_config_text(const std::string& text, const std::string& source_name,
                              const std::vector<std::string>& sets) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp counts lines and columns from 0.
    throw ConfigError(source_name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": YAML syntax error: " + e.msg);
  }
  return parse_document(root, source_name, sets);
}

LoadedConfig load_config_file(const std::string& path, const std::vector<std::string>& sets) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read config: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(path + ": cannot read config: " + std::strerror(errno));
  return load_config_text(text.str(), path, sets);
}

std::string resolved_yaml(const Settings& settings) {
  YAML::Emitter out;
  out << YAML::Comment("resolved by fovea: every key, defaults filled in (docs/config.md)");
  out << YAML::Newline;
  settings_schema().emit(out, settings);
  return std::string(out.c_str()) + "\n";
}

std::vector<KeyInfo> config_keys() {
  std::vector<KeyInfo> keys;
  settings_schema().describe("", Settings{}, keys);
  return keys;
}

}  // namespace fovea::config

// Fuzz target: configs (config/config.hpp) and their --set overrides. The input is a config's
// text; its first lines of the form `#set key=value` (YAML comments, so every seed is also a
// plain config) are applied as --set overrides, in order. Beyond "no crash": a config that
// loads is resolved to YAML (what a run writes as config.yaml), which must load again and
// resolve to the same text, so a run's config.yaml always reproduces the run's settings.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<fovea::config::Override> overrides;
  for (std::size_t at = 0; std::string_view(text).substr(at).starts_with("#set ");) {
    const std::size_t end = text.find('\n', at);
    overrides.push_back(fovea::config::set_override(text.substr(at + 5, end == std::string::npos ? end : end - at - 5)));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  fovea::config::LoadedConfig loaded;
  try {
    loaded = fovea::config::load_config_text(text, "fuzz.yaml", overrides);
  } catch (const fovea::config::ConfigError&) {
    return 0;  // refused with file, line and key: what the reader is for
  }
  const std::string resolved = fovea::config::resolved_yaml(loaded.settings);
  fovea::config::LoadedConfig again;
  try {
    again = fovea::config::load_config_text(resolved, "config.yaml");
  } catch (const fovea::config::ConfigError& e) {
    fovea::fuzz::fail(std::string("the resolved config does not load: ") + e.what() + "\n" + resolved);
  }
  const std::string resolved_again = fovea::config::resolved_yaml(again.settings);
  fovea::fuzz::check(resolved_again == resolved,
                     "the resolved config resolves to other text:\n" + resolved + "\n----\n" + resolved_again);
  return 0;
}

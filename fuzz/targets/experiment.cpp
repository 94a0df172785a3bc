// Fuzz target: psychophysics experiment specs (config/config.hpp, load_experiment_text).
// Beyond "no crash": a spec that loads is resolved to YAML (what a session writes as
// experiment.yaml), which must load again and resolve to the same text.

#include <cstddef>
#include <cstdint>
#include <string>

#include "config/config.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fovea::config::LoadedExperiment loaded;
  try {
    loaded = fovea::config::load_experiment_text(text, "fuzz_experiment.yaml");
  } catch (const fovea::config::ConfigError&) {
    return 0;  // refused with file, line and key: what the reader is for
  }
  const std::string resolved = fovea::config::resolved_experiment_yaml(loaded.spec);
  fovea::config::LoadedExperiment again;
  try {
    again = fovea::config::load_experiment_text(resolved, "experiment.yaml");
  } catch (const fovea::config::ConfigError& e) {
    fovea::fuzz::fail(std::string("the resolved spec does not load: ") + e.what() + "\n" + resolved);
  }
  const std::string resolved_again = fovea::config::resolved_experiment_yaml(again.spec);
  fovea::fuzz::check(resolved_again == resolved,
                     "the resolved spec resolves to other text:\n" + resolved + "\n----\n" + resolved_again);
  return 0;
}

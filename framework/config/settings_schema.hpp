#pragma once

#include "config/schema.hpp"
#include "config/settings.hpp"
#include "psychophysics/experiment_settings.hpp"

namespace fovea::config {

/// The schema of a whole config file: every key fovea reads, its type, range and meaning.
const Section<Settings>& settings_schema();

/// The schema of a psychophysics experiment spec (configs/experiments/*.yaml).
const Section<ExperimentSettings>& experiment_schema();
/// The keys of a perception model: under perception.model in a config (with `file`), or
/// alone in a perception-model YAML file (without).
Section<PerceptionModelSettings> perception_model_schema(bool with_file);

}  // namespace fovea::config

#pragma once

#include "config/schema.hpp"
#include "config/settings.hpp"

namespace fovea::config {

/// The schema of a whole config file: every key fovea reads, its type, range and meaning.
const Section<Settings>& settings_schema();

}  // namespace fovea::config

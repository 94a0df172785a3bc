#pragma once

#include <cstdint>
#include <string>

#include "world/world_settings.hpp"

namespace fovea {

/// Everything a run reads from its config. Each part's own settings struct lives with the
/// part (world/world_settings.hpp); this aggregates them with the run-level keys.
struct Settings {
  std::string name = "run";     ///< prefix of the results folder name
  std::int64_t seed = 1;        ///< every random choice derives from it
  std::int64_t frames = 1000;   ///< frames to run (`fovea run --frames` overrides)
  WorldSettings world;
};

}  // namespace fovea

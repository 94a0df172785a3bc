#pragma once

#include <cstdint>
#include <string>

#include "demos/demo_settings.hpp"
#include "render/render_settings.hpp"
#include "run/run_settings.hpp"
#include "frame/animation_settings.hpp"

namespace fovea {

/// Everything a run reads from its config. Each part's own settings struct lives with the
/// part (world/world_settings.hpp, schedule/schedule_settings.hpp, ...); the Animation's
/// are gathered in AnimationSettings, and this adds the run-level keys.
struct Settings : AnimationSettings {
  std::string name = "run";     ///< prefix of the results folder name
  std::int64_t seed = 1;        ///< every random choice derives from it
  std::int64_t frames = 1000;   ///< frames to run (`fovea run --frames` overrides)
  RecordSettings record;  ///< which optional per-frame CSV files the run writes (collisions, gaze)
  RenderSettings render;  ///< read only when the run draws (docs/render.md)
  DemoSettings demo;      ///< the rockfall or crowd (docs/demos.md)
};

}  // namespace fovea

#pragma once

// Definition structs of the gaze part: where the viewer looks (004 section 2.3). The gaze
// issue adds the mouse, replay and eye-tracker sources; fixed and scripted are here now.

namespace fovea {

enum class GazeSourceKind {
  fixed,     ///< one point on the screen, all run long
  scripted,  ///< seeded fixations and saccades over the screen (gaze/scripted_gaze.hpp)
};

/// The scripted viewer's eye movements (docs/perception.md says where the numbers come from).
struct ScriptedGazeSettings {
  double fixation_mean_ms = 250.0;  ///< mean fixation duration
  double fixation_sd_ms = 100.0;    ///< standard deviation of fixation durations (log-normal)
  /// Fraction of the screen's width and height kept clear at each edge: fixation targets
  /// are uniform over the rest.
  double margin = 0.1;
};

struct GazeSettings {
  GazeSourceKind source = GazeSourceKind::fixed;
  double x_px = 960.0;  ///< fixed fixation point, pixels from the screen's left edge
  double y_px = 540.0;  ///< fixed fixation point, pixels from the screen's top edge (y down)
  ScriptedGazeSettings scripted;
};

}  // namespace fovea

#pragma once

// Definition structs of a run's records (docs/results.md), with the defaults a config falls
// back on (docs/config.md).

namespace fovea {

/// What a run writes besides frames.csv and summary.json (docs/results.md).
struct RecordSettings {
  bool collisions = false;  ///< collisions.csv: one row per collision per frame
  bool gaze = false;        ///< gaze.csv: the fixation each frame used, replayable (docs/gaze.md)
};

}  // namespace fovea

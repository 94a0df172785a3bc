#pragma once

#include <cstddef>

#include "config/schema.hpp"
#include "config/settings.hpp"
#include "psychophysics/experiment_settings.hpp"

namespace fovea::config {

// The caps on a config's lists (docs/formats.md, "Lists and their caps"; docs/config.md
// names each at its key). The schema refuses a longer list at its key before reading an
// element, so no config makes fovea's work or records grow without bound, and every config
// at its caps writes back a config.yaml that fovea reads again (under the 1 MiB a config
// may be; tests/config/list_caps_test.cpp). A list of names (evaluate.schedulers,
// evaluate.gaze) takes each name at most once: its kind table is its cap.

/// world.entities: groups of entities (each group any number of entities, `count`).
inline constexpr std::size_t kMaxEntityGroups = 256;
/// schedule.band_edges: K - 1 edges for schedule.queues' largest K, 64.
inline constexpr std::size_t kMaxBandEdges = 63;
/// evaluate.budgets: each is run by every evaluated scheduler, gaze input and tree set every
/// frame, a row of evaluation.csv each (20,000 gave 312 MB for 20 frames).
inline constexpr std::size_t kMaxEvaluatedBudgets = 64;
/// evaluate.trees: the distinct tree sets (octree and tightest, each with fit cell or
/// voxels, and medial); a set listed twice is refused.
inline constexpr std::size_t kMaxEvaluatedTreeSets = 5;
/// render.overlays.rings_deg.
inline constexpr std::size_t kMaxOverlayRings = 16;
/// demo.rockfall.player.path: the scripted walk's waypoints.
inline constexpr std::size_t kMaxWaypoints = 1024;

/// The schema of a whole config file: every key fovea reads, its type, range and meaning.
const Section<Settings>& settings_schema();

/// The schema of a psychophysics experiment spec (configs/experiments/*.yaml).
const Section<ExperimentSettings>& experiment_schema();
/// The keys of a perception model: under perception.model in a config (with `file`), or
/// alone in a perception-model YAML file (without).
Section<PerceptionModelSettings> perception_model_schema(bool with_file);

}  // namespace fovea::config

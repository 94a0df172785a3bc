#pragma once

// One clip of a clip comparison, stepped live (docs/psychophysics.md, "Clip comparison"):
// a scene's world built from its seed, warmed up at full resolution, then stepped under the
// clip's scheduler and budget while the observer's chance of seeing its errors accumulates.
// Headless; a person's session draws the world between steps.

#include <cstdint>
#include <memory>
#include <vector>

#include "demos/demo_settings.hpp"
#include "frame/animation_settings.hpp"
#include "metrics/episodes.hpp"
#include "perception/perception_model.hpp"
#include "psychophysics/clip_observer.hpp"
#include "run/stepper.hpp"

namespace fovea {

/// What a clip runs.
struct ClipRunSettings {
  AnimationSettings world;  ///< the scene (ground truth is turned on: the observer sees the true gaps)
  DemoSettings demo;             ///< the scene's demo, if any, played through warm-up and clip
  std::uint64_t world_seed = 1;  ///< seeds the world and the demo: every clip of a seed starts alike
  int warmup_frames = 0;  ///< stepped at full resolution with the scene's own scheduler, not shown
  int clip_frames = 1;    ///< stepped under the clip's scheduler and budget
  SchedulerKind scheduler = SchedulerKind::round_robin;  ///< the clip's, set after the warm-up
  std::int64_t budget_tests = 0;  ///< sphere tests per frame; 0 for full resolution
};

/// One clip, frame by frame: construction builds the world and runs the warm-up (the same
/// for every clip of a world seed, whatever its scheduler), step() runs one frame of the
/// clip. Deterministic: work budgets only.
class ClipPlayer {
 public:
  /// `environment`: a person's session hands the trackers (the scheduler on the live gaze).
  ClipPlayer(const ClipRunSettings& settings, const PerceptionModel& observer, const GazeEnvironment& environment = {});

  /// True once clip_frames frames have been stepped: the clip is over.
  bool done() const { return frames_ >= clip_frames_; }
  /// One frame of the clip; its unresolved collisions go to the observer's episodes and, if
  /// given, to `log` (each collision of the frame, f_true the observer's f).
  void step(std::vector<EpisodeInput>* log = nullptr);
  /// The clip's episodes and p_seen; after the last step().
  ClipSeen finish() { return noticing_.finish(); }

  /// The world as stepped so far, for drawing between steps.
  const Animation& world() const { return stepper_->world(); }
  /// The Stepper that owns the world and its demo.
  Stepper& stepper() { return *stepper_; }
  /// Clip frames stepped so far, the warm-up not counted.
  int frames() const { return frames_; }
  /// Sphere-sphere tests over the clip's frames so far, the warm-up not counted (counts).
  std::int64_t sphere_tests() const { return sphere_tests_; }

 private:
  const PerceptionModel& observer_;
  std::unique_ptr<Stepper> stepper_;
  ClipNoticing noticing_;
  std::vector<EpisodeInput> inputs_;  // scratch
  int clip_frames_ = 0;
  int frames_ = 0;
  std::int64_t sphere_tests_ = 0;
};

/// A whole clip, headless. `log`, if given, receives each frame's collisions.
ClipSeen play_clip(const ClipRunSettings& settings, const PerceptionModel& observer,
                   std::vector<std::vector<EpisodeInput>>* log = nullptr);

}  // namespace fovea

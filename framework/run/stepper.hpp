#pragma once

#include <memory>
#include <span>

#include "demos/demo.hpp"
#include "frame/animation.hpp"
#include "run/frame_columns.hpp"

namespace fovea {

/// One frame of a run, as its records take it.
struct RunFrame {
  FrameStats stats;                     ///< the world's own figures of the frame
  FrameMeasures measures;               ///< render_ms and frame_interval_ms are the app's to fill
  std::span<const double> demo_values;  ///< the demo's columns (Demo::columns()), empty without one
};

/// A world and its demo stepped together, frame by frame: the demo's part before and after
/// each step (releases, steering, breaks), and the energies a run records beside the
/// world's own stats. The stepping every run shares, with no files: `fovea run` records its
/// frames (run/run.hpp), benchmarks and tests read them.
class Stepper {
 public:
  /// `demo` may be null (DemoKind::none).
  Stepper(std::unique_ptr<Animation> world, std::unique_ptr<Demo> demo);

  /// One frame. `player_follows_camera`: the rockfall's player walks where the camera is
  /// (a window's fly camera) rather than its scripted path (Rockfall::before_step).
  RunFrame& step(bool player_follows_camera = false);

  /// Puts another world and demo in place (a reset in the window); frames go on from theirs.
  void replace(std::unique_ptr<Animation> world, std::unique_ptr<Demo> demo);

  /// The world being stepped.
  Animation& world() { return *world_; }
  /// The world being stepped.
  const Animation& world() const { return *world_; }
  /// The demo stepped with it; null without one.
  Demo* demo() { return demo_.get(); }
  /// The demo stepped with it; null without one.
  const Demo* demo() const { return demo_.get(); }
  /// The last frame step() made (empty after replace()).
  const RunFrame& last() const { return frame_; }

 private:
  std::unique_ptr<Animation> world_;
  std::unique_ptr<Demo> demo_;
  RunFrame frame_;
};

}  // namespace fovea

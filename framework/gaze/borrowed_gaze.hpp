#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"

namespace fovea {

/// A source owned elsewhere, read through this one: a clip session's one tracker connection,
/// which each clip's world borrows in turn (issue 44: a connection per clip would lose the
/// tracker's first samples to every reconnection, and put the warm-up of a connection in the
/// blank between two clips). Every call goes to the owner's source; the owner keeps it alive
/// while a borrower exists.
class BorrowedGazeSource final : public GazeSource {
 public:
  /// Reads `owner`, which must outlive this source.
  explicit BorrowedGazeSource(GazeSource& owner) : owner_(owner) {}

  /// The owner's sample.
  GazeSample sample(double now_s) override { return owner_.sample(now_s); }
  /// The owner's clock.
  GazeClock clock() const override { return owner_.clock(); }
  /// The owner's dropped inputs, counted since it started (not since this borrow).
  std::uint64_t dropped() const override { return owner_.dropped(); }
  /// The owner's status messages: whoever takes them first has them.
  void take_messages(std::vector<std::string>& out) override { owner_.take_messages(out); }
  /// The owner's recent samples: whoever takes them first has them.
  void take_recent(std::vector<GazeSample>& out) override { owner_.take_recent(out); }
  /// The owner's wish for scene targets.
  SceneTargetKind wants_scene_targets() const override { return owner_.wants_scene_targets(); }
  /// Handed on to the owner.
  void set_scene_targets(std::span<const GazeTarget> targets) override { owner_.set_scene_targets(targets); }

 private:
  GazeSource& owner_;
};

}  // namespace fovea

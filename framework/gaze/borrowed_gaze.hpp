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
  explicit BorrowedGazeSource(GazeSource& owner) : owner_(owner) {}

  GazeSample sample(double now_s) override { return owner_.sample(now_s); }
  GazeClock clock() const override { return owner_.clock(); }
  std::uint64_t dropped() const override { return owner_.dropped(); }
  void take_messages(std::vector<std::string>& out) override { owner_.take_messages(out); }
  void take_recent(std::vector<GazeSample>& out) override { owner_.take_recent(out); }
  SceneTargetKind wants_scene_targets() const override { return owner_.wants_scene_targets(); }
  void set_scene_targets(std::span<const GazeTarget> targets) override { owner_.set_scene_targets(targets); }

 private:
  GazeSource& owner_;
};

}  // namespace fovea

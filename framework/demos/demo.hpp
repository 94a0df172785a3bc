#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "demos/crowd.hpp"
#include "demos/demo_settings.hpp"
#include "demos/rockfall.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// The configured demo, played around an Animation's steps, with the columns it adds to
/// frames.csv. What `fovea run` and the tests drive; the demos themselves are Rockfall and
/// Crowd.
class Demo {
 public:
  /// The demo `settings` ask for, on a world that has not stepped; null for DemoKind::none.
  /// Throws SettingError naming the key the world does not fit (a demo key, the walkers'
  /// count, or a group placed by a demo the config does not run).
  static std::unique_ptr<Demo> make(Animation& world, const DemoSettings& settings, std::uint64_t seed);

  /// Before world.step(): releases and steers; `follow_camera` as Rockfall::before_step.
  void before_step(Animation& world, bool follow_camera);
  /// After world.step(): the demo's part of the frame, into values().
  void after_step(Animation& world);

  /// Names of the demo's frames.csv columns, and the last frame's values in that order.
  const std::vector<std::string>& columns() const { return columns_; }
  /// The last after_step()'s values, one per columns() entry (zeros before the first).
  std::span<const double> values() const { return values_; }
  /// One line for the window's status: "rocks 54, hits 3".
  std::string status() const;
  /// The rockfall's player, or null.
  const Capsule* player() const { return rockfall_ ? &rockfall_->player() : nullptr; }
  /// The rockfall demo, or null when the run plays another.
  const Rockfall* rockfall() const { return rockfall_ ? &*rockfall_ : nullptr; }
  /// The rockfall demo, mutable (a test or script may call break_rock), or null.
  Rockfall* rockfall() { return rockfall_ ? &*rockfall_ : nullptr; }
  /// The crowd demo, or null when the run plays another.
  const Crowd* crowd() const { return crowd_ ? &*crowd_ : nullptr; }

 private:
  Demo() = default;
  std::optional<Rockfall> rockfall_;
  std::optional<Crowd> crowd_;
  std::vector<std::string> columns_;
  std::vector<double> values_;
  RockfallFrame last_rockfall_;  ///< the last frame's, as values_ holds them
  CrowdFrame last_crowd_;
};

}  // namespace fovea

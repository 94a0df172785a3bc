#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "demos/demo_settings.hpp"
#include "frame/animation.hpp"
#include "world/steering.hpp"

namespace fovea {

/// What the crowd did in one frame, for frames.csv (docs/demos.md lists the columns).
struct CrowdFrame {
  std::int64_t walkers = 0;        ///< walkers in the group, arrived or not
  std::int64_t arrived = 0;        ///< within arrive_radius_m of their goal
  double mean_speed_mps = 0;       ///< horizontal, over all walkers
};

/// The crowd demo: walkers in up to four streams start in blocks at the sides of the plaza
/// (the world box's floor) and cross to the same place in a block at the far side,
/// opposite streams in lanes on either side of the middle, so the streams cross at right
/// angles in four places and pass each other where they meet head on.
/// Each is steered toward its goal at its own preferred speed and kept upright
/// (world/steering.hpp); where streams meet they bump, and fovea's detection and response
/// handle it: there is no avoidance, so the collisions are the workload.
class Crowd {
 public:
  /// Finds the walkers' group (placement: demo) and places its entities in their blocks,
  /// facing their goals. Throws SettingError naming the key when the group is missing or
  /// the blocks do not fit in the box. `world` must not have stepped yet.
  Crowd(Animation& world, const CrowdSettings& settings, std::uint64_t seed);

  /// Steers every walker toward its goal for the coming step.
  void before_step(Animation& world);
  /// After world.step(): counts the walkers and those arrived, and their mean speed; changes nothing.
  CrowdFrame after_step(const Animation& world) const;

  /// The walkers' entities: the group's, in EntityId order.
  std::span<const EntityId> walkers() const { return walkers_; }
  /// Each walker's goal and gait: agents()[i] steers walkers()[i].
  std::span<const SteeringAgent> agents() const { return agents_; }
  /// The height walkers' centres of mass are held at, world y.
  double standing_height_m() const { return standing_height_m_; }

 private:
  CrowdSettings settings_;
  std::vector<EntityId> walkers_;
  std::vector<SteeringAgent> agents_;
  double standing_height_m_ = 0;
};

}  // namespace fovea

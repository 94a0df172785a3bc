#pragma once

// The worlds several tests run (tests/frame, narrowphase, schedule, metrics, response),
// defined once: packed rocks, the scene of 004's hard case, in the sizes the tests need,
// and the pile of configs/examples/pile.yaml. Built as fovea_test_scenes, on fovea_frame.

#include <memory>
#include <string>
#include <vector>

#include "frame/animation.hpp"
#include "frame/animation_settings.hpp"
#include "world/world_settings.hpp"

namespace fovea::test {

/// A group of generated rocks, packed unless it says otherwise (Placement::packed: apart
/// from each other, filling the box). What is not named keeps ModelSettings' and
/// EntityGroupSettings' defaults: 0.5 m models of 8 voxels, group name "entities", moving
/// at 1 m/s and turning at 1 rad/s, of the default material.
struct RockGroup {
  int count = 0;
  int variants = 1;  ///< distinct rock shapes, used in turn
  int resolution_voxels = ModelSettings{}.resolution_voxels;
  double size_m = ModelSettings{}.size_m;
  std::string name = EntityGroupSettings{}.name;
  Placement placement = Placement::packed;
  bool at_rest = false;  ///< no initial speed or spin
};

EntityGroupSettings rock_group(const RockGroup& rocks);

/// Every setting at its default but the world: a box of `box_m` holding `groups`.
AnimationSettings world_of(const Vec3& box_m, std::vector<EntityGroupSettings> groups);

/// 300 packed rocks (4 shapes of 12 voxels) in a 5 m box that pass through each other: no
/// response between entities. Packing places them apart; a few frames of motion let some
/// pass into each other, so both outcomes of a collision occur.
AnimationSettings rocks_passing_through();

/// 120 packed rocks (3 shapes of 8 voxels) in a 4 m box, at rest: a still world, whose
/// frames repeat the same work, for counting allocations once warm.
AnimationSettings still_packed_rocks();

/// 004's hard case, small: 120 packed rocks (4 shapes of 12 voxels, trees of 4 levels) in a
/// 4 m box, the response on without gravity, a starved work budget of 600 tests, a scripted
/// viewer, ground truth and the visibility test on, the camera framing the box.
AnimationSettings starved_packed_rocks();

/// The rocks of configs/examples/pile.yaml without their density: 50 rocks of 0.35 m (5
/// shapes of 10 voxels), restitution 0.3, friction 0.6, at rest, placed at random.
EntityGroupSettings pile_rocks();

/// A world of `settings` from `seed`, stepped `frames` frames.
std::unique_ptr<Animation> world_after(const AnimationSettings& settings, std::uint64_t seed, int frames);

}  // namespace fovea::test

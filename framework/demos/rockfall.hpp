#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.hpp"
#include "demos/demo_settings.hpp"
#include "narrowphase/capsule_query.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// What the rockfall did in one frame, for frames.csv (docs/demos.md lists the columns).
struct RockfallFrame {
  std::int64_t rocks = 0;            ///< rocks and fragments alive after the frame
  std::int64_t released = 0;         ///< rocks released this frame
  std::int64_t breaks = 0;           ///< rocks broken this frame
  std::int64_t fragments = 0;        ///< fragments made by them
  std::int64_t debris_voxels = 0;    ///< voxels removed as debris by them
  std::int64_t retired = 0;          ///< rocks retired after resting
  std::int64_t player_hits = 0;      ///< rocks that started touching the player this frame
  std::int64_t player_hits_total = 0; ///< player_hits summed over the run so far
  double player_x_m = 0;             ///< the player's feet, world x
  double player_z_m = 0;             ///< the player's feet, world z
};

/// What breaking one rock did.
struct RockBreak {
  bool broken = false;                 ///< false: the cut left fewer than two fragments, or too many for max_rocks
  std::vector<EntityId> fragments;     ///< the new entities, in fracture_voxels order
  std::int64_t debris_voxels = 0;      ///< voxels of the pieces under min_fragment_voxels, removed
  Vec3 debris_momentum_kgmps{0.0};     ///< what the removed debris carried away
};

/// The rockfall demo (004 section 1): "a user must navigate his/her way through a rockfall
/// without being hit. As multiple rocks are falling, they hit off each other and the edges of
/// a ravine, either bouncing or breaking into smaller rocks."
///
/// It drives an Animation between its steps and owns nothing of the world's:
///  - before a step: releases rocks from above the ravine (seeded shapes, sizes and places)
///    while fewer than max_rocks live, and moves the player and the camera;
///  - after it: breaks rocks whose contacts took more than break_impulse_ns (a cut through
///    the hardest contact; fragments keep the parent's motion plus a separating velocity,
///    debris is removed), counts the rocks that touch the player's capsule (their sphere
///    trees against the capsule, growing on-demand trees as it goes), and retires rocks that
///    have rested for rest_time_s.
/// Fragments get on-demand sphere trees (001): each needs one the frame it appears.
class Rockfall {
 public:
  /// Finds the ravine and rock groups (SettingError naming the demo key when a group is
  /// missing or set up wrongly), builds the rock shapes, and puts the player at the
  /// start of its path. `world` must not have stepped yet.
  Rockfall(Animation& world, const RockfallSettings& settings, std::uint64_t seed);

  /// Releases rocks and moves the player and camera. `follow_camera`: the player stands
  /// under the world's camera (a window's fly camera) instead of walking the path.
  void before_step(Animation& world, bool follow_camera);
  /// Breaks, counts hits, retires; returns the frame's record.
  RockfallFrame after_step(Animation& world);

  /// Breaks live rock `rock` as an impact at `point_m` along `normal` (world) would: the cut
  /// goes through the point, along the normal and through the centre of mass, turned about
  /// the normal by a seeded amount; the rock is retired and its fragments spawned with
  /// their shares of its momentum (world/fracture.hpp). after_step() calls it for hard
  /// impacts; a test or script may call it between steps.
  RockBreak break_rock(Animation& world, EntityId rock, const Vec3& point_m, const Vec3& normal);
  /// The player's capsule now, world space.
  const Capsule& player() const { return player_; }
  /// Live rocks and fragments.
  std::int64_t rock_count() const { return live_rocks_; }
  /// The ravine's entity.
  EntityId ravine() const { return ravine_; }

 private:
  static constexpr EntityId kNoEntity = 0xffffffffu;  ///< a rock broken or retired this frame
  struct Rock {
    EntityId entity = 0;
    int generation = 0;           ///< 0 for a released rock, +1 per break
    double resting_s = 0;
    bool touching_player = false;
  };
  /// The height of the ravine's floor at (x, z): the top of its highest voxel column there.
  double floor_height_m(const Animation& world, double x_m, double z_m) const;
  void release_rock(Animation& world);
  /// Appends `rock`, whose entity is in the world, to rocks_ and rock_of_entity_ and counts
  /// it live: every rock enters the bookkeeping here (placed, released, a fragment).
  void add_rock(const Rock& rock);
  /// Retires rocks_[index]'s entity and takes it out of the bookkeeping: unmapped, its
  /// entity kNoEntity (its slot stays until after_step compacts rocks_), one fewer live.
  void drop_rock(Animation& world, std::size_t index);
  void place_player(const Vec3& feet_m, const Vec3& facing);
  /// The camera at the player's eye, looking along `facing` and look_up_deg up.
  CameraSettings eye_camera(const Animation& world, const Vec3& feet_m, const Vec3& facing) const;

  RockfallSettings settings_;
  Rng rng_;
  std::uint32_t rock_group_ = 0;
  EntityId ravine_ = 0;
  std::vector<ModelId> rock_models_;
  std::vector<Rock> rocks_;                   ///< in release order; broken and retired ones leave at the end of after_step
  std::int64_t live_rocks_ = 0;
  std::vector<std::int64_t> rock_of_entity_;  ///< index into rocks_ by EntityId, -1 for none
  double release_clock_s_ = 0;
  std::int64_t released_ = 0;  ///< by this frame's before_step
  // The player.
  Capsule player_;
  std::vector<Waypoint> path_;
  std::size_t next_waypoint_ = 1;
  int path_direction_ = 1;
  Vec3 facing_{0.0, 0.0, 1.0};
  std::int64_t hits_total_ = 0;
  std::vector<std::uint32_t> stack_;  ///< scratch for the capsule test
  // Scratch for the breaks.
  std::vector<double> impulse_ns_;     ///< by rock
  std::vector<Vec3> impact_point_m_;   ///< by rock: the hardest contact's impulse-weighted point
  std::vector<Vec3> impact_normal_;
  std::vector<double> hardest_ns_;
};

}  // namespace fovea

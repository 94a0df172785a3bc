#pragma once

// Definition structs of the two demos 004's introduction promises (docs/demos.md), with the
// defaults a config falls back on. The world, detection and response come from the rest of
// the config; these say what the demo adds: rocks released, broken and retired and a player
// in a ravine; walkers crossing a plaza.

#include <array>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "core/math.hpp"

namespace fovea {

/// Which demo a run plays, if any.
enum class DemoKind { none /**< the world alone */, rockfall /**< class Rockfall */, crowd /**< class Crowd */ };

/// DemoKind's names in configs (`demo.kind`) and one line of help for each.
inline constexpr auto kDemoKinds = kind_table<KindName<DemoKind>>({
    {DemoKind::none, "none", "the world alone"},
    {DemoKind::rockfall, "rockfall", "rocks released, broken and retired, and a player walking a ravine"},
    {DemoKind::crowd, "crowd", "walkers crossing a plaza in streams"},
});

/// A point of the player's scripted walk, on the ground plane (world x and z).
struct Waypoint {
  double x_m = 0;  ///< world x of the player's feet (m)
  double z_m = 0;  ///< world z of the player's feet (m)
};

/// The rockfall's player: a capsule standing on the ravine floor, its eye the camera.
struct PlayerSettings {
  double height_m = 1.8;        ///< feet to top of the capsule
  double radius_m = 0.3;        ///< the capsule's radius
  double eye_height_m = 1.65;   ///< camera height above the feet
  double walk_speed_mps = 1.4;  ///< along the scripted path, horizontally
  /// Headless runs, and windowed ones with `scripted`, walk these points in turn, there and
  /// back. Empty: along the ravine's middle, from 15 % to 85 % of its length.
  std::vector<Waypoint> path;
  /// Windowed: true walks the path as headless runs do; false follows the fly camera
  /// (W A S D and mouse look), kept at eye height above the floor.
  bool scripted = false;
  double look_up_deg = 20.0;    ///< the scripted camera's pitch above the walking direction
};

/// The rockfall (004 section 1): rocks released over a ravine, bouncing, breaking, retired
/// when they come to rest.
struct RockfallSettings {
  std::string ravine_group = "ravine";  ///< the group of the ravine's static scenery (count 1)
  std::string rock_group = "rocks";     ///< the group whose model, material and tree make the rocks (count 0)
  double release_interval_s = 0.2;      ///< one rock released each interval while below max_rocks
  int max_rocks = 120;                  ///< rocks and fragments alive at once, never exceeded
  double min_scale = 0.5;               ///< each rock variant is scaled by a seeded factor in [min_scale, 1]
  /// Where rocks appear, as fractions of the ravine's extent in x and z, and metres above
  /// the ravine's top.
  double release_width_fraction = 0.6;
  double release_length_fraction = 0.8;  ///< span of release points in z, centred, fraction 0-1 of the ravine's length
  double release_height_m = 2.0;         ///< ravine's top to a new rock's lowest point; capped by the box's top
  double release_speed_mps = 1.0;       ///< downward, plus up to half of it sideways
  double release_spin_radps = 1.5;     ///< angular speed at release, about a seeded random axis
  /// A rock whose contacts' normal impulses in one frame sum above this breaks (N s).
  double break_impulse_ns = 400.0;
  int min_fragment_voxels = 24;         ///< smaller pieces are debris, removed
  double separation_speed_mps = 0.5;    ///< pieces on either side of the cut part at twice this
  int max_breaks = 2;                   ///< generations: a fragment of a fragment breaks no further after this
  double rest_speed_mps = 0.15;         ///< slower than this (centre and rim) counts as resting
  double rest_time_s = 1.5;             ///< resting this long retires a rock
  PlayerSettings player;                ///< the walker the rocks must miss; its hits go to frames.csv
};

/// The crowd: walkers in streams crossing a plaza (the world box's floor) to goals on the
/// far side, steered toward them and bumping into each other through fovea's detection and
/// response, with no avoidance that would hide the collisions.
struct CrowdSettings {
  std::string group = "people";         ///< the group of walkers (placement: demo)
  int streams = 4;                      ///< 1 to 4: from -x, +x, -z, +z, each crossing to the far side
  double spacing_m = 1.2;               ///< between neighbours in a stream's starting block
  double margin_m = 2.0;                ///< kept clear between the blocks and the box's walls
  double preferred_speed_mps = 1.3;     ///< mean; each walker's differs by up to speed_spread
  double speed_spread = 0.2;            ///< relative
  double max_acceleration_mps2 = 1.5;   ///< each walker's SteeringAgent::max_acceleration_mps2
  double arrive_radius_m = 1.5;         ///< SteeringAgent::arrive_radius_m: slows inside it, counts as arrived
};

/// The demo section of a config.
struct DemoSettings {
  DemoKind kind = DemoKind::none;  ///< which demo plays; only its section below is used
  RockfallSettings rockfall;       ///< `demo.rockfall`, used when kind is rockfall
  CrowdSettings crowd;             ///< `demo.crowd`, used when kind is crowd
};

}  // namespace fovea

#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/math.hpp"
#include "core/rng.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// The entities of one group cannot all be placed; names the group so the caller can point
/// at its line in the config.
class PlacementError : public std::runtime_error {
 public:
  PlacementError(std::uint32_t group_index, const std::string& message)
      : std::runtime_error(message), group_index_(group_index) {}
  std::uint32_t group_index() const { return group_index_; }

 private:
  std::uint32_t group_index_;
};

/// Bounding spheres already placed, in a hashed uniform grid so a test is O(1) whatever the
/// world size; keeps the placement of 100,000 entities fast.
class SphereOccupancy {
 public:
  /// `cell_size_m` should be at least the largest diameter that will be added, and at least
  /// the world's extent / 2^20 so that cells do not clamp (see cell_of).
  explicit SphereOccupancy(double cell_size_m);
  static constexpr int kCellLimit = 1 << 20;
  /// True when a sphere at `centre_m` with `radius_m` overlaps none already added
  /// (touching is allowed, within a relative 1e-9).
  bool is_free(const Vec3& centre_m, double radius_m) const;
  void add(const Vec3& centre_m, double radius_m);

 private:
  std::int64_t key(const IVec3& cell) const;
  IVec3 cell_of(const Vec3& p) const;

  double cell_size_m_;
  double max_radius_added_m_ = 0;
  struct Sphere { Vec3 centre_m; double radius_m; };
  std::vector<Sphere> spheres_;
  std::unordered_map<std::int64_t, std::vector<std::uint32_t>> cells_;  ///< cell key -> sphere indices
};

/// Places `radii_m.size()` bounding spheres of one group inside `box` without overlapping
/// each other or what `occupied` already holds; adds them to `occupied`.
///
/// random: uniform positions with the sphere wholly inside the box, up to 1000 tries per
/// entity, then PlacementError (an error, never a hang).
/// packed: a simple cubic lattice of spacing 2r from the box's min corner, cells taken in
/// order of distance from that corner, skipping cells already taken; the densest start
/// (004 section 2.1: everything drifted into one corner).
std::vector<Vec3> place_group(const Aabb& box, std::span<const double> radii_m, Placement placement,
                              std::uint32_t group_index, const std::string& group_name,
                              SphereOccupancy& occupied, Rng& rng);

}  // namespace fovea

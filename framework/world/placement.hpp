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
  /// `group_index` is the group's index in WorldSettings::entities; `message` says what did not fit.
  PlacementError(std::uint32_t group_index, const std::string& message)
      : std::runtime_error(message), group_index_(group_index) {}
  /// The failing group's index in WorldSettings::entities.
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
  /// Cells per axis on each side of the origin (2^20); positions beyond are clamped to the edge cells.
  static constexpr int kCellLimit = 1 << 20;
  /// True when a sphere at `centre_m` with `radius_m` overlaps none already added
  /// (touching is allowed, within a relative 1e-9).
  bool is_free(const Vec3& centre_m, double radius_m) const;
  /// Records a placed sphere (centre and radius in metres) without testing it.
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

/// One group's entities as placement sees them.
struct GroupToPlace {
  std::uint32_t index = 0;             ///< the group's index in WorldSettings::entities, for errors
  std::string name;                    ///< the group's name, for error messages
  Placement placement = Placement::random;  ///< how its entities are placed
  std::vector<double> radii_m;         ///< each entity's bounding radius
  /// Placement::floor only: the model's grid size, and where in the grid an entity's
  /// position (its centre of mass) sits.
  Vec3 grid_extent_m{0.0};
  Vec3 centre_of_mass_model_m{0.0};    ///< floor only: model space, metres from the grid's min corner
};

/// Places the group's entities inside `box` and returns their centres, one per radius:
///
/// random: uniform positions with the bounding sphere wholly inside the box, clear of each
/// other and of what `occupied` holds; up to 1000 tries per entity, then PlacementError (an
/// error, never a hang).
/// packed: a simple cubic lattice of spacing 2r from the box's min corner, cells taken in
/// order of distance from that corner, skipping cells already taken; the densest start
/// (004 section 2.1: everything drifted into one corner).
/// floor: scenery, one entity, its grid centred on the box's floor. Other groups are not kept
/// off it (its bounding sphere would fill the box), so it is not added to `occupied`.
/// demo: placed by the run's demo before the first frame. Until then they wait on a lattice
/// through the box, one cell each, so the broad phase's first sort does not see them all on
/// one spot (n^2 / 2 pairs for nothing); not added to `occupied` either.
///
/// Random and packed spheres are added to `occupied`.
std::vector<Vec3> place_group(const Aabb& box, const GroupToPlace& group, SphereOccupancy& occupied, Rng& rng);

}  // namespace fovea

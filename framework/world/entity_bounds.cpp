#include "world/entity_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace fovea {

namespace {

struct Corner {
  std::int64_t x, y;
  friend auto operator<=>(const Corner&, const Corner&) = default;
};

std::int64_t cross(const Corner& o, const Corner& a, const Corner& b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/// Andrew's monotone chain: the strictly convex hull of integer points, in place.
void convex_hull_2d(std::vector<Corner>& points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  if (points.size() < 3) return;
  std::vector<Corner> hull(2 * points.size());
  std::size_t k = 0;
  for (const Corner& p : points) {  // lower chain
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], p) <= 0) --k;
    hull[k++] = p;
  }
  for (std::size_t i = points.size() - 1, lower = k + 1; i-- > 0;) {  // upper chain
    while (k >= lower && cross(hull[k - 2], hull[k - 1], points[i]) <= 0) --k;
    hull[k++] = points[i];
  }
  hull.resize(k - 1);  // the last point repeats the first
  points = std::move(hull);
}

}  // namespace

double elongation(const VoxelModel& model) {
  const VoxelModel::CellRange cells = model.occupied_cells();
  if (cells.lo.x >= cells.hi.x) return 1;
  const IVec3 side = cells.hi - cells.lo;
  return static_cast<double>(std::max({side.x, side.y, side.z})) / std::min({side.x, side.y, side.z});
}

BoundsKind resolve_bounds(BoundsKind kind, const VoxelModel& model) {
  if (kind != BoundsKind::automatic) return kind;
  return elongation(model) >= kDynamicBoundsElongation ? BoundsKind::dynamic : BoundsKind::fixed;
}

std::vector<Vec3> hull_points(const VoxelModel& model, const Vec3& centre_of_mass_model_m) {
  // A point of a plane z = c inside that plane's 2D hull is a convex combination of the
  // hull's vertices, so it can never be the extreme of the set in any direction.
  std::vector<Vec3> points;
  const IVec3 d = model.dims();
  std::vector<Corner> plane;
  for (int c = 0; c <= d.z; ++c) {
    plane.clear();
    for (int layer = c - 1; layer <= c; ++layer) {
      if (layer < 0 || layer >= d.z) continue;
      for (int y = 0; y < d.y; ++y)
        for (int x = 0; x < d.x; ++x)
          if (model.occupied(x, y, layer))
            for (int corner = 0; corner < 4; ++corner) plane.push_back({x + (corner & 1), y + (corner >> 1)});
    }
    convex_hull_2d(plane);
    for (const Corner& p : plane)
      points.push_back(Vec3(static_cast<double>(p.x), static_cast<double>(p.y), c) * model.voxel_size_m() -
                       centre_of_mass_model_m);
  }
  return points;
}

Aabb tight_box(std::span<const Vec3> points, const Quat& orientation, const Vec3& position_m) {
  const Mat3 r = glm::mat3_cast(orientation);
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  for (const Vec3& p : points) {
    const Vec3 w = r * p;
    lo = glm::min(lo, w);
    hi = glm::max(hi, w);
  }
  return {position_m + lo, position_m + hi};
}

}  // namespace fovea

#include "world/model_generators.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/rng.hpp"

namespace fovea {
namespace {

Vec3 shape_proportions(Shape shape) {
  switch (shape) {
    case Shape::l_shape: return {1.0, 1.0, 0.5};
    case Shape::humanoid: return {0.45, 1.0, 0.25};
    case Shape::ravine: return {0.5, 0.25, 1.0};
    case Shape::ball:
    case Shape::box:
    case Shape::rock:
    case Shape::file: break;
  }
  return {1.0, 1.0, 1.0};
}

/// Voxel centre in normalised grid coordinates [0, 1]^3.
Vec3 unit_coords(const IVec3& dims, int x, int y, int z) {
  return (Vec3(x, y, z) + 0.5) / Vec3(dims);
}

/// Fills the grid where `inside(u)` holds for the voxel centre u in [0, 1]^3; a grid that
/// would come out empty (tiny resolutions) keeps its centre voxel, so no model is empty.
template <class Inside>
VoxelModel fill(IVec3 dims, double voxel_size_m, Inside&& inside) {
  VoxelModel model(dims, voxel_size_m);
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x)
        if (inside(unit_coords(dims, x, y, z))) model.set(x, y, z, true);
  if (model.occupied_count() == 0) model.set(dims.x / 2, dims.y / 2, dims.z / 2, true);
  return model;
}

bool in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

/// A seeded low-frequency relief over a plane, in [-1, 1]: a weighted sum of a few plane
/// waves whose wavelengths run from 0.4 to 1.4 times `scale_voxels`, so it makes lumps and
/// hollows that size rather than noise.
class Relief {
 public:
  Relief(Rng& rng, double scale_voxels) {
    for (auto& w : waves_) {
      const double angle_rad = rng.uniform(0.0, kTwoPi);
      const double cycles_per_scale = rng.uniform(0.7, 2.5);
      w.frequency_s = std::cos(angle_rad) * kTwoPi * cycles_per_scale / scale_voxels;
      w.frequency_t = std::sin(angle_rad) * kTwoPi * cycles_per_scale / scale_voxels;
      w.phase_rad = rng.uniform(0.0, kTwoPi);
      w.weight = rng.uniform(0.5, 1.0);
      total_weight_ += w.weight;
    }
  }
  /// The relief at (s, t), in voxels along the plane's two axes.
  double operator()(double s, double t) const {
    double sum = 0;
    for (const auto& w : waves_) sum += w.weight * std::cos(w.frequency_s * s + w.frequency_t * t + w.phase_rad);
    return sum / total_weight_;
  }

 private:
  static constexpr double kTwoPi = 6.283185307179586;
  struct Wave { double frequency_s, frequency_t, phase_rad, weight; };  // frequencies in rad per voxel
  std::array<Wave, 5> waves_{};
  double total_weight_ = 0;
};

}  // namespace

IVec3 model_dims(Shape shape, int resolution_voxels, const Vec3& aspect) {
  if (resolution_voxels < 1) throw std::invalid_argument("resolution must be at least one voxel");
  const Vec3 proportions = shape_proportions(shape) * aspect;
  const double longest = std::max({proportions.x, proportions.y, proportions.z});
  IVec3 dims;
  for (int axis = 0; axis < 3; ++axis)
    dims[axis] = std::max(1, static_cast<int>(std::lround(resolution_voxels * proportions[axis] / longest)));
  return dims;
}

VoxelModel make_model(const ModelSettings& settings, std::uint64_t seed) {
  const IVec3 dims = model_dims(settings.shape, settings.resolution_voxels, settings.aspect);
  const double voxel_size_m = settings.size_m / settings.resolution_voxels;
  switch (settings.shape) {
    case Shape::ball: return make_ball(dims, voxel_size_m);
    case Shape::box: return make_box(dims, voxel_size_m);
    case Shape::rock: return make_rock(dims, voxel_size_m, seed);
    case Shape::l_shape: return make_l_shape(dims, voxel_size_m);
    case Shape::humanoid: return make_humanoid(dims, voxel_size_m);
    case Shape::ravine: return make_ravine(dims, voxel_size_m, seed);
    case Shape::file: break;
  }
  throw std::invalid_argument("make_model builds the built-in shapes; file models are read from their file");
}

VoxelModel make_ball(IVec3 dims, double voxel_size_m) {
  return fill(dims, voxel_size_m, [](const Vec3& u) {
    const Vec3 q = 2.0 * u - 1.0;
    return glm::dot(q, q) <= 1.0;
  });
}

VoxelModel make_box(IVec3 dims, double voxel_size_m) {
  return fill(dims, voxel_size_m, [](const Vec3&) { return true; });
}

VoxelModel make_rock(IVec3 dims, double voxel_size_m, std::uint64_t seed) {
  // Boundary radius along unit direction d: (1 + A n(d)) / (1 + A) of the inscribed
  // ellipsoid, with n(d) a sum of a few random plane waves over the sphere, in [-1, 1].
  // Low frequencies give lumps and flats rather than noise; the shape stays star-shaped
  // around the centre, so it is one connected piece.
  constexpr int kWaves = 6;
  constexpr double kBumpiness = 0.35;
  struct Wave { Vec3 direction; double frequency, phase, weight; };
  Rng rng(seed, rng_stream(RngStream::model_shapes));
  std::array<Wave, kWaves> waves;
  double total_weight = 0;
  for (auto& w : waves) {
    w.direction = rng.unit_vector();
    w.frequency = rng.uniform(1.5, 4.0);
    w.phase = rng.uniform(0.0, 6.283185307179586);
    w.weight = rng.uniform(0.5, 1.0);
    total_weight += w.weight;
  }
  return fill(dims, voxel_size_m, [&](const Vec3& u) {
    const Vec3 q = 2.0 * u - 1.0;
    const double rho = glm::length(q);
    if (rho < 1e-9) return true;
    const Vec3 d = q / rho;
    double noise = 0;
    for (const auto& w : waves) noise += w.weight * std::cos(w.frequency * glm::dot(d, w.direction) + w.phase);
    noise /= total_weight;
    return rho <= (1.0 + kBumpiness * noise) / (1.0 + kBumpiness);
  });
}

VoxelModel make_l_shape(IVec3 dims, double voxel_size_m) {
  return fill(dims, voxel_size_m, [](const Vec3& u) { return u.x < 0.5 || u.y < 0.5; });
}

VoxelModel make_humanoid(IVec3 dims, double voxel_size_m) {
  return fill(dims, voxel_size_m, [](const Vec3& u) {
    const bool legs = u.y < 0.45 && (in_range(u.x, 0.2, 0.45) || in_range(u.x, 0.55, 0.8)) && in_range(u.z, 0.2, 0.8);
    const bool torso = in_range(u.y, 0.45, 0.78) && in_range(u.x, 0.2, 0.8) && in_range(u.z, 0.1, 0.9);
    const bool arms = in_range(u.y, 0.42, 0.78) && (u.x < 0.2 || u.x > 0.8) && in_range(u.z, 0.25, 0.75);
    const bool neck = in_range(u.y, 0.78, 0.82) && in_range(u.x, 0.4, 0.6) && in_range(u.z, 0.3, 0.7);
    const Vec3 h = (u - Vec3(0.5, 0.9, 0.5)) / Vec3(0.2, 0.1, 0.4);
    const bool head = glm::dot(h, h) <= 1.0;
    return legs || torso || arms || neck || head;
  });
}

VoxelModel make_ravine(IVec3 dims, double voxel_size_m, std::uint64_t seed) {
  constexpr double kFloorFraction = 0.2;  // mean floor thickness, of dims.y
  constexpr double kWallFraction = 0.2;   // mean thickness of each wall, of dims.x
  constexpr double kFloorRelief_voxels = 1.5;
  constexpr double kWallRelief_voxels = 3.0;
  const double floor_voxels = kFloorFraction * dims.y;
  const double wall_voxels = kWallFraction * dims.x;
  // Reliefs no deeper than half the mean thickness, so thin (low-resolution) slabs keep
  // their shape; every surface at least one voxel out, so the bottom layer and both outer
  // x faces are full and hold every column and row together.
  const double floor_relief_voxels = std::min(kFloorRelief_voxels, 0.5 * floor_voxels);
  const double wall_relief_voxels = std::min(kWallRelief_voxels, 0.5 * wall_voxels);
  // Bumps about the size of the cross-section, whatever the ravine's length.
  const double scale_voxels = std::max(dims.x, dims.y);
  Rng rng(seed, rng_stream(RngStream::model_shapes));
  const Relief floor_relief(rng, scale_voxels);  // over (x, z)
  const Relief left_relief(rng, scale_voxels);   // over (y, z)
  const Relief right_relief(rng, scale_voxels);

  VoxelModel model(dims, voxel_size_m);
  // Heights and depths in voxels from the grid's faces, compared with voxel centres.
  std::vector<double> floor_top_voxels(static_cast<std::size_t>(dims.x));
  for (int z = 0; z < dims.z; ++z) {
    for (int x = 0; x < dims.x; ++x)
      floor_top_voxels[static_cast<std::size_t>(x)] =
          std::max(1.0, floor_voxels + floor_relief_voxels * floor_relief(x, z));
    for (int y = 0; y < dims.y; ++y) {
      const double left_voxels = std::max(1.0, wall_voxels + wall_relief_voxels * left_relief(y, z));
      const double right_voxels = std::max(1.0, wall_voxels + wall_relief_voxels * right_relief(y, z));
      for (int x = 0; x < dims.x; ++x) {
        const bool floor = y + 0.5 < floor_top_voxels[static_cast<std::size_t>(x)];
        const bool left_wall = x + 0.5 < left_voxels;
        const bool right_wall = dims.x - (x + 0.5) < right_voxels;
        if (floor || left_wall || right_wall) model.set(x, y, z, true);
      }
    }
  }
  return model;
}

}  // namespace fovea

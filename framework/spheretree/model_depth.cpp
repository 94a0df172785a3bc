#include "spheretree/model_depth.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "spheretree/octree_builder.hpp"

namespace fovea {

// ---------------------------------------------------------------------------------------
// The depth field.

namespace {

/// Along one axis, the first and last padded voxel (voxel + 1; 0 is the empty layer before
/// the grid) holding lattice coordinate i (lattice units, voxel coordinate i / 2 - 1): two
/// voxels at a voxel boundary (i even), one at a voxel centre (i odd).
void padded_voxels_at(int i, int& first, int& last) {
  if (i % 2 == 1) {
    first = last = (i - 1) / 2;
  } else {
    first = i / 2 - 1;
    last = i / 2;
  }
}

/// One pass of Felzenszwalb and Huttenlocher's transform along a line of n values (stride
/// apart): out[q] = min over p of f[p] + (q - p)^2, by the lower envelope of parabolas.
/// The line's ends are features (f = 0), so every value is finite. `v`, `z` are scratch.
void envelope_pass(float* line, std::size_t n, std::ptrdiff_t stride, std::vector<int>& v, std::vector<double>& z,
                   std::vector<float>& f) {
  for (std::size_t q = 0; q < n; ++q) f[q] = line[static_cast<std::ptrdiff_t>(q) * stride];
  std::size_t k = 0;
  v[0] = 0;
  z[0] = -std::numeric_limits<double>::infinity();
  z[1] = std::numeric_limits<double>::infinity();
  for (std::size_t q = 1; q < n; ++q) {
    const double qd = static_cast<double>(q);
    double cut;
    for (;;) {  // z[0] = -infinity ends the backtracking
      const double vk = v[k];
      cut = ((f[q] + qd * qd) - (f[static_cast<std::size_t>(v[k])] + vk * vk)) / (2 * qd - 2 * vk);
      if (cut > z[k]) break;
      --k;
    }
    ++k;
    v[k] = static_cast<int>(q);
    z[k] = cut;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  k = 0;
  for (std::size_t q = 0; q < n; ++q) {
    while (z[k + 1] < static_cast<double>(q)) ++k;
    const float dq = static_cast<float>(static_cast<int>(q) - v[k]);
    line[static_cast<std::ptrdiff_t>(q) * stride] = dq * dq + f[static_cast<std::size_t>(v[k])];
  }
}

}  // namespace

ModelDepth::ModelDepth(const VoxelModel& model) {
  // One voxel of empty space around the grid, so the outside is on the lattice.
  const IVec3 dims = model.dims();
  const IVec3 padded = dims + 2;
  count_ = 2 * padded + 1;
  const auto cx = static_cast<std::size_t>(count_.x), cy = static_cast<std::size_t>(count_.y), cz = static_cast<std::size_t>(count_.z);
  const auto py = static_cast<std::size_t>(padded.y), pz = static_cast<std::size_t>(padded.z);

  // Inside (not in the closed complement) where every voxel sharing the point is occupied:
  // an AND over each axis's one or two voxels in turn, x, then y, then z.
  std::vector<std::uint8_t> by_x(cx * py * pz, 0);
  for (std::size_t z = 1; z + 1 < pz; ++z)
    for (std::size_t y = 1; y + 1 < py; ++y)
      for (std::size_t i = 0; i < cx; ++i) {
        int first, last;
        padded_voxels_at(static_cast<int>(i), first, last);
        bool all = true;
        for (int x = first; x <= last && all; ++x)
          all = model.occupied(x - 1, static_cast<int>(y) - 1, static_cast<int>(z) - 1);
        by_x[i + cx * (y + py * z)] = all ? 1 : 0;
      }
  std::vector<std::uint8_t> by_y(cx * cy * pz, 0);
  for (std::size_t z = 0; z < pz; ++z)
    for (std::size_t j = 0; j < cy; ++j) {
      int first, last;
      padded_voxels_at(static_cast<int>(j), first, last);
      if (first < 0 || last >= padded.y) continue;  // the lattice's first or last plane: outside
      for (std::size_t i = 0; i < cx; ++i) {
        std::uint8_t all = 1;
        for (int y = first; y <= last; ++y) all &= by_x[i + cx * (static_cast<std::size_t>(y) + py * z)];
        by_y[i + cx * (j + cy * z)] = all;
      }
    }
  // Squared distances along x to the nearest outside point of the row, in lattice steps; the
  // rows' ends lie in the empty layer, so every row has one.
  // Squared distances first, in place of the depths (one array: fewer fresh pages to fault in).
  depth_.reset(new float[cx * cy * cz]);  // every element is written below; no zeroing
  float* d2 = depth_.get();
  size_ = cx * cy * cz;
  for (std::size_t l = 0; l < cz; ++l) {
    int first, last;
    padded_voxels_at(static_cast<int>(l), first, last);
    for (std::size_t j = 0; j < cy; ++j) {
      float* row = &d2[cx * (j + cy * l)];
      const bool edge = first < 0 || last >= padded.z;  // the lattice's first or last plane: outside
      int since = 0;
      for (std::size_t i = 0; i < cx; ++i) {
        std::uint8_t in = edge ? 0 : 1;
        for (int z = first; z <= last && in; ++z) in &= by_y[i + cx * (j + cy * static_cast<std::size_t>(z))];
        since = in ? since + 1 : 0;
        row[i] = static_cast<float>(since);
      }
      since = 0;
      for (std::size_t i = cx; i-- > 0;) {
        since = row[i] > 0 ? since + 1 : 0;
        const float d = std::min(row[i], static_cast<float>(since));
        row[i] = d * d;
      }
    }
  }
  // Then along y and z (Felzenszwalb and Huttenlocher, as in distance_transform.cpp), in
  // float: the squared distances are integers far below 2^24, so exact. A line with no inside
  // point stays zero.
  const std::size_t longest = std::max({cx, cy, cz});
  std::vector<int> v(longest);
  std::vector<double> z(longest + 1);
  std::vector<float> f(longest);
  const auto has_inside = [](const float* line, std::size_t n, std::ptrdiff_t stride) {
    for (std::size_t q = 0; q < n; ++q)
      if (line[static_cast<std::ptrdiff_t>(q) * stride] > 0) return true;
    return false;
  };
  for (std::size_t l = 0; l < cz; ++l)
    for (std::size_t i = 0; i < cx; ++i) {
      float* column = &d2[i + cx * cy * l];
      if (has_inside(column, cy, static_cast<std::ptrdiff_t>(cx))) envelope_pass(column, cy, static_cast<std::ptrdiff_t>(cx), v, z, f);
    }
  for (std::size_t j = 0; j < cy; ++j)
    for (std::size_t i = 0; i < cx; ++i) {
      float* pillar = &d2[i + cx * j];
      if (has_inside(pillar, cz, static_cast<std::ptrdiff_t>(cx * cy))) envelope_pass(pillar, cz, static_cast<std::ptrdiff_t>(cx * cy), v, z, f);
    }
  for (std::size_t q = 0; q < size_; ++q) d2[q] = 0.5f * std::sqrt(d2[q]);

  const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
  std::size_t voxel = 0;
  for (int vz = 0; vz < dims.z; ++vz)
    for (int vy = 0; vy < dims.y; ++vy)
      for (int vx = 0; vx < dims.x; ++vx, ++voxel)
        if (surface[voxel]) surface_voxels_.emplace_back(vx, vy, vz);
}

double ModelDepth::depth_voxels(IVec3 lattice) const { return depth_[index(lattice)]; }

double ModelDepth::depth_lower_bound_voxels(const Vec3& x) const {
  // From each of the 8 lattice points around: a point q of depth D(q) > 0 has the ball of
  // radius D(q) about it inside the model, so the depth at x is at least D(q) - |x - q|.
  // Depths are stored in float, exact to about 6e-8 of themselves: take 1e-6 of the depth and
  // 1e-5 voxel off. A point far off the lattice (or not a number) is clamped to its edge,
  // where the bound still holds (depth changes no faster than position).
  const Vec3 g = (x + 1.0) * 2.0;
  const Vec3 limit = Vec3(count_ - 2);
  const Vec3 clamped = glm::clamp(g, Vec3(0.0), limit);  // NaN would survive a clamp: test it
  const IVec3 base = glm::any(glm::isnan(g)) ? IVec3(0) : IVec3(glm::floor(clamped));
  double best = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < 8; ++c) {
    const IVec3 q = base + IVec3(c & 1, (c >> 1) & 1, (c >> 2) & 1);
    const double dq = depth_[index(q)];
    if (dq <= 0) continue;
    best = std::max(best, dq * (1 - 1e-6) - glm::length(x - point_voxels(q)) - 1e-5);
  }
  return best;
}

double ModelDepth::protrusion_bound_voxels(const Vec3& centre_voxels, double radius_voxels) const {
  const double d = depth_lower_bound_voxels(centre_voxels);
  if (d > -std::numeric_limits<double>::infinity()) return std::max(0.0, radius_voxels - d);
  // No deep lattice point next to the centre: bound by the radius plus the distance to the
  // model, which from a point outside is at most the distance to any voxel corner.
  double nearest2 = std::numeric_limits<double>::infinity();
  for (const IVec3& v : surface_voxels_) {
    const Vec3 gap = glm::max(glm::abs(centre_voxels - (Vec3(v) + 0.5)) - 0.5, Vec3(0.0));
    nearest2 = std::min(nearest2, glm::dot(gap, gap));
  }
  return radius_voxels + std::sqrt(nearest2);
}

}  // namespace fovea

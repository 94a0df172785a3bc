#include "world/mass_properties.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fovea {

MassProperties compute_mass_properties(const VoxelModel& model, double density_kgpm3) {
  const std::int64_t count = model.occupied_count();
  if (count == 0) throw std::invalid_argument("a voxel model needs at least one occupied voxel");
  const double s = model.voxel_size_m();
  const double voxel_mass = density_kgpm3 * s * s * s;

  MassProperties props;
  props.mass_kg = voxel_mass * static_cast<double>(count);

  Vec3 sum(0.0);
  model.for_each_occupied([&](int x, int y, int z) { sum += model.voxel_centre_m(x, y, z); });
  props.centre_of_mass_m = sum / static_cast<double>(count);

  // I = sum_v m (|r|^2 E - r r^T) + m s^2 / 6 E, r from the centre of mass to the voxel centre.
  Mat3 about_com(0.0);
  model.for_each_occupied([&](int x, int y, int z) {
    const Vec3 r = model.voxel_centre_m(x, y, z) - props.centre_of_mass_m;
    about_com += Mat3(glm::dot(r, r)) - outer(r, r);
  });
  props.inertia_kgm2 = voxel_mass * about_com + Mat3(static_cast<double>(count) * voxel_mass * s * s / 6.0);
  // Isotropic but for rounding: exactly isotropic, the mean of the diagonal on it.
  props.inertia_kgm2 = isotropic_if_nearly(props.inertia_kgm2);
  props.bounding_radius_m = model.farthest_voxel_corner_m(props.centre_of_mass_m);
  return props;
}

Mat3 isotropic_if_nearly(const Mat3& tensor_kgm2) {
  const double mean_kgm2 = (tensor_kgm2[0][0] + tensor_kgm2[1][1] + tensor_kgm2[2][2]) / 3;
  double stray_kgm2 = 0;  // the largest entry's distance from mean_kgm2 times the identity
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      stray_kgm2 = std::max(stray_kgm2, std::abs(tensor_kgm2[i][j] - (i == j ? mean_kgm2 : 0.0)));
  return stray_kgm2 <= kIsotropicTolerance * mean_kgm2 ? Mat3(mean_kgm2) : tensor_kgm2;
}

bool is_isotropic(const Mat3& tensor) { return tensor == Mat3(tensor[0][0]); }

Mat3 inverse_inertia(const Mat3& inertia_kgm2) {
  return is_isotropic(inertia_kgm2) ? Mat3(1.0 / inertia_kgm2[0][0]) : glm::inverse(inertia_kgm2);
}

}  // namespace fovea

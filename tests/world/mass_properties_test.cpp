#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "world/mass_properties.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

TEST_CASE("mass properties: a voxelised box matches the analytic solid box exactly", "[world][mass]") {
  const double s = 0.1, density = 2500;
  const VoxelModel box = make_box({4, 6, 8}, s);
  const MassProperties p = compute_mass_properties(box, density);
  const double a = 0.4, b = 0.6, c = 0.8, m = density * a * b * c;
  CHECK(p.mass_kg == Approx(m).epsilon(1e-12));
  CHECK(p.centre_of_mass_m.x == Approx(a / 2).epsilon(1e-12));
  CHECK(p.centre_of_mass_m.y == Approx(b / 2).epsilon(1e-12));
  CHECK(p.centre_of_mass_m.z == Approx(c / 2).epsilon(1e-12));
  // Solid box about its centre: m/12 (b^2 + c^2), ...; no products of inertia.
  CHECK(p.inertia_kgm2[0][0] == Approx(m / 12 * (b * b + c * c)).epsilon(1e-12));
  CHECK(p.inertia_kgm2[1][1] == Approx(m / 12 * (a * a + c * c)).epsilon(1e-12));
  CHECK(p.inertia_kgm2[2][2] == Approx(m / 12 * (a * a + b * b)).epsilon(1e-12));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) CHECK(std::abs(p.inertia_kgm2[i][j]) < 1e-12 * m);
  // Bounding sphere: half the box diagonal.
  CHECK(p.bounding_radius_m == Approx(0.5 * std::sqrt(a * a + b * b + c * c)).epsilon(1e-12));
}

TEST_CASE("mass properties: a voxelised ball lies between the balls of radius r -+ the voxel half-diagonal",
          "[world][mass]") {
  // A voxel is kept when its centre is inside the ball of radius r. Every kept voxel lies in
  // the ball of radius r + h and every point of the ball of radius r - h is in a kept voxel,
  // h = sqrt(3)/2 s being the voxel's half-diagonal. Mass and moment of inertia grow with
  // the set, so each is bracketed by the two analytic balls: a rigorous voxelisation bound.
  const double density = 1000, size = 1.0, r = size / 2;
  double previous_error = 1;
  for (int res : {8, 16, 32, 64}) {
    const double s = size / res, h = std::sqrt(3.0) / 2 * s;
    const MassProperties p = compute_mass_properties(make_ball({res, res, res}, s), density);
    const auto ball_mass = [&](double radius) { return density * 4.0 / 3.0 * std::numbers::pi * std::pow(radius, 3); };
    const auto ball_inertia = [&](double radius) { return 0.4 * ball_mass(radius) * radius * radius; };
    INFO("resolution " << res);
    CHECK(p.mass_kg >= ball_mass(r - h));
    CHECK(p.mass_kg <= ball_mass(r + h));
    for (int axis = 0; axis < 3; ++axis) {
      CHECK(p.inertia_kgm2[axis][axis] >= ball_inertia(r - h));
      CHECK(p.inertia_kgm2[axis][axis] <= ball_inertia(r + h));
      CHECK(p.centre_of_mass_m[axis] == Approx(r).epsilon(1e-12));
    }
    // And the error shrinks as the resolution grows: 1.5 % of the mass at 32 voxels.
    const double error = std::abs(p.mass_kg - ball_mass(r)) / ball_mass(r);
    CHECK(error < previous_error);
    previous_error = error;
    if (res == 32) CHECK(error < 0.015);
  }
}

TEST_CASE("mass properties: balls and cubes get exactly isotropic tensors, other shapes keep theirs", "[world][mass]") {
  // A voxel ball's three diagonal sums differ only by the order they add their terms; made
  // exactly isotropic (their mean on the diagonal), within kIsotropicTolerance of the sums.
  for (int res : {8, 16, 32, 64}) {
    INFO("ball of " << res << " voxels");
    const VoxelModel ball = make_ball({res, res, res}, 1.0 / res);
    const MassProperties p = compute_mass_properties(ball, 1000);
    CHECK(is_isotropic(p.inertia_kgm2));
    CHECK(p.inertia_kgm2[0][1] == 0.0);
    CHECK(p.inertia_kgm2[0][0] == p.inertia_kgm2[2][2]);
  }
  CHECK(is_isotropic(compute_mass_properties(make_box({5, 5, 5}, 0.1), 1000).inertia_kgm2));
  // Shapes whose moments differ keep them: a box of three sides, an L, a rock.
  CHECK_FALSE(is_isotropic(compute_mass_properties(make_box({4, 6, 8}, 0.1), 1000).inertia_kgm2));
  CHECK_FALSE(is_isotropic(compute_mass_properties(make_box({4, 4, 5}, 0.1), 1000).inertia_kgm2));
  CHECK_FALSE(is_isotropic(compute_mass_properties(make_l_shape({8, 8, 8}, 0.1), 1000).inertia_kgm2));
  CHECK_FALSE(is_isotropic(compute_mass_properties(make_rock({12, 12, 12}, 0.05, 3), 1000).inertia_kgm2));
  CHECK_FALSE(is_isotropic(Mat3(2.0) + Mat3(glm::dvec3(1e-6, 0, 0), glm::dvec3(0.0), glm::dvec3(0.0))));

  // The balls' sums before the snap (as compute_mass_properties sums them): some sizes differ
  // (12, 20, 24, 48 voxels; 8, 16, 32 and 64 happen to sum alike), by at most 1.2e-14 of
  // their mean up to 137,376 voxels: kIsotropicTolerance's 1e-10 has four orders to spare.
  int uneven = 0;
  for (int res : {8, 12, 16, 20, 24, 32, 48, 64}) {
    INFO("ball of " << res << " voxels");
    const VoxelModel ball = make_ball({res, res, res}, 1.0 / res);
    Mat3 sums(0.0);
    Vec3 centre(0.0);
    ball.for_each_occupied([&](int x, int y, int z) { centre += ball.voxel_centre_m(x, y, z); });
    centre /= static_cast<double>(ball.occupied_count());
    ball.for_each_occupied([&](int x, int y, int z) {
      const Vec3 r = ball.voxel_centre_m(x, y, z) - centre;
      sums += Mat3(glm::dot(r, r)) - outer(r, r);
    });
    const double mean = (sums[0][0] + sums[1][1] + sums[2][2]) / 3;
    double stray = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) stray = std::max(stray, std::abs(sums[i][j] - (i == j ? mean : 0.0)));
    CHECK(stray <= 1e-13 * mean);
    uneven += is_isotropic(sums) ? 0 : 1;
    CHECK(is_isotropic(isotropic_if_nearly(sums)));
  }
  CHECK(uneven >= 3);  // the snap has work to do
}

TEST_CASE("mass properties: a tensor is made isotropic within kIsotropicTolerance of its mean diagonal, not past it",
          "[world][mass]") {
  const double mean = 3.0;
  for (const int entry : {0, 1}) {  // a diagonal entry, an off-diagonal one
    INFO("entry [0][" << entry << "]");
    const auto strayed = [&](double relative) {
      Mat3 t(mean);
      t[0][entry] += relative * mean;
      t[entry][0] = t[0][entry];
      return t;
    };
    // Off the diagonal the mean stays 3; on it, it moves by a third of the stray.
    CHECK(is_isotropic(isotropic_if_nearly(strayed(0.1 * kIsotropicTolerance))));
    CHECK_FALSE(is_isotropic(isotropic_if_nearly(strayed(10 * kIsotropicTolerance))));
    CHECK(isotropic_if_nearly(strayed(10 * kIsotropicTolerance)) == strayed(10 * kIsotropicTolerance));
  }
  CHECK(isotropic_if_nearly(Mat3(mean)) == Mat3(mean));
}

TEST_CASE("mass properties: L-shape inertia matches a hand computation", "[world][mass]") {
  // The L of make_l_shape({4, 4, 2}) with unit voxels and unit density is two boxes:
  //   A: x in [0, 2], y in [0, 4], z in [0, 2]: mass 16, centre (1, 2, 1)
  //   B: x in [2, 4], y in [0, 2], z in [0, 2]: mass 8,  centre (3, 1, 1)
  // Total mass 24, centre of mass (16 (1,2,1) + 8 (3,1,1)) / 24 = (5/3, 5/3, 1).
  // Offsets from it: dA = (-2/3, 1/3, 0), dB = (4/3, -2/3, 0).
  // Own inertia (m/12 (b^2 + c^2) ...): A (80/3, 32/3, 80/3), B (16/3, 16/3, 16/3).
  // Parallel axis, Ixx = sum (Iown + m (dy^2 + dz^2)):
  //   Ixx = 80/3 + 16/9 + 16/3 + 32/9 = 112/3
  //   Iyy = 32/3 + 64/9 + 16/3 + 128/9 = 112/3
  //   Izz = 80/3 + 80/9 + 16/3 + 160/9 = 176/3
  //   Ixy = -sum m dx dy = -(16 (-2/3)(1/3) + 8 (4/3)(-2/3)) = 32/3;  Ixz = Iyz = 0.
  const MassProperties p = compute_mass_properties(make_l_shape({4, 4, 2}, 1.0), 1.0);
  CHECK(p.mass_kg == Approx(24));
  CHECK(p.centre_of_mass_m.x == Approx(5.0 / 3));
  CHECK(p.centre_of_mass_m.y == Approx(5.0 / 3));
  CHECK(p.centre_of_mass_m.z == Approx(1.0));
  CHECK(p.inertia_kgm2[0][0] == Approx(112.0 / 3));
  CHECK(p.inertia_kgm2[1][1] == Approx(112.0 / 3));
  CHECK(p.inertia_kgm2[2][2] == Approx(176.0 / 3));
  // The inertia tensor's off-diagonal entries are the products of inertia as signed above.
  CHECK(p.inertia_kgm2[0][1] == Approx(32.0 / 3));
  CHECK(p.inertia_kgm2[1][0] == Approx(32.0 / 3));
  CHECK(std::abs(p.inertia_kgm2[0][2]) < 1e-12);
  CHECK(std::abs(p.inertia_kgm2[1][2]) < 1e-12);

  // Scaling: voxels of 0.1 m and density 7800 scale mass by rho s^3 and inertia by rho s^5.
  const MassProperties scaled = compute_mass_properties(make_l_shape({4, 4, 2}, 0.1), 7800);
  CHECK(scaled.mass_kg == Approx(24 * 7800 * 1e-3));
  CHECK(scaled.inertia_kgm2[2][2] == Approx(176.0 / 3 * 7800 * 1e-5));
}

TEST_CASE("mass properties: the bounding radius holds every voxel corner at any orientation", "[world][mass]") {
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const VoxelModel rock = make_rock({10, 12, 9}, 0.07, seed);
    const MassProperties p = compute_mass_properties(rock, 1.0);
    double farthest = 0;
    rock.for_each_occupied([&](int x, int y, int z) {
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 c = Vec3(x + (corner & 1), y + ((corner >> 1) & 1), z + ((corner >> 2) & 1)) * 0.07;
        farthest = std::max(farthest, glm::length(c - p.centre_of_mass_m));
      }
    });
    CHECK(p.bounding_radius_m == Approx(farthest).epsilon(1e-12));
  }
}

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "core/rng.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "world/model_generators.hpp"

using namespace fovea;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------
// The oracle: every pair of voxels, each voxel a world-space cube of its own, with its own
// separating-axis test and its own feature distances, written apart from the fast path
// (which works in A's model frame, with matrices, over hierarchies and surface voxels only).

/// One voxel as a world-space cube.
struct Cube {
  Vec3 centre_m{0.0};
  std::array<Vec3, 3> axis{};  ///< unit, right-handed
  double half_m = 0.5;
};

Cube make_cube(const Vec3& centre_m, const Quat& orientation, double size_m) {
  Cube c;
  c.centre_m = centre_m;
  c.axis = {orientation * Vec3(1, 0, 0), orientation * Vec3(0, 1, 0), orientation * Vec3(0, 0, 1)};
  c.half_m = 0.5 * size_m;
  return c;
}

std::vector<Cube> world_cubes(const VoxelModel& model, const Vec3& com_m, const ExactPose& pose) {
  std::vector<Cube> cubes;
  model.for_each_occupied([&](int x, int y, int z) {
    const Vec3 centre = pose.position_m + pose.orientation * (model.voxel_centre_m(x, y, z) - com_m);
    cubes.push_back(make_cube(centre, pose.orientation, model.voxel_size_m()));
  });
  return cubes;
}

double projected_half(const Cube& c, const Vec3& axis) {
  return c.half_m * (std::abs(glm::dot(c.axis[0], axis)) + std::abs(glm::dot(c.axis[1], axis)) +
                     std::abs(glm::dot(c.axis[2], axis)));
}

/// Closed cubes intersect: none of the 15 axes separates them (edge-cross axes shorter than
/// 1e-8 skipped: for parallel edges the face axes decide).
bool oracle_cubes_touch(const Cube& a, const Cube& b) {
  const Vec3 d = b.centre_m - a.centre_m;
  std::vector<Vec3> axes;
  for (int i = 0; i < 3; ++i) axes.push_back(a.axis[static_cast<std::size_t>(i)]);
  for (int j = 0; j < 3; ++j) axes.push_back(b.axis[static_cast<std::size_t>(j)]);
  for (const Vec3& u : a.axis)
    for (const Vec3& v : b.axis) {
      const Vec3 n = glm::cross(u, v);
      if (glm::length(n) >= 1e-8) axes.push_back(glm::normalize(n));
    }
  for (const Vec3& n : axes)
    if (std::abs(glm::dot(d, n)) > projected_half(a, n) + projected_half(b, n)) return false;
  return true;
}

std::array<Vec3, 8> corners(const Cube& c) {
  std::array<Vec3, 8> result{};
  for (int k = 0; k < 8; ++k)
    result[static_cast<std::size_t>(k)] = c.centre_m + c.half_m * ((k & 1 ? 1.0 : -1.0) * c.axis[0] +
                                                                   (k & 2 ? 1.0 : -1.0) * c.axis[1] +
                                                                   (k & 4 ? 1.0 : -1.0) * c.axis[2]);
  return result;
}

/// Distance from p to the solid cube, and the cube's point nearest p.
double point_cube_distance(const Vec3& p, const Cube& c, Vec3& nearest) {
  nearest = c.centre_m;
  for (const Vec3& axis : c.axis) nearest += std::clamp(glm::dot(p - c.centre_m, axis), -c.half_m, c.half_m) * axis;
  return glm::length(p - nearest);
}

double point_segment_distance(const Vec3& p, const Vec3& start, const Vec3& dir, Vec3& nearest) {
  const double t = std::clamp(glm::dot(p - start, dir) / glm::dot(dir, dir), 0.0, 1.0);
  nearest = start + t * dir;
  return glm::length(p - nearest);
}

/// Segments p1 + s d1, p2 + t d2, (s, t) in [0, 1]^2: the squared distance is a convex
/// quadratic in (s, t), so its minimum is the interior stationary point when that lies in
/// the square (non-parallel segments only), else on one of the square's four sides, each an
/// endpoint against the other segment.
double segment_segment_distance(const Vec3& p1, const Vec3& d1, const Vec3& p2, const Vec3& d2, Vec3& c1,
                                Vec3& c2) {
  double best = kInf;
  const auto consider = [&](const Vec3& q1, const Vec3& q2) {
    const double d = glm::length(q1 - q2);
    if (d < best) {
      best = d;
      c1 = q1;
      c2 = q2;
    }
  };
  Vec3 n;
  point_segment_distance(p1, p2, d2, n);
  consider(p1, n);
  point_segment_distance(p1 + d1, p2, d2, n);
  consider(p1 + d1, n);
  point_segment_distance(p2, p1, d1, n);
  consider(n, p2);
  point_segment_distance(p2 + d2, p1, d1, n);
  consider(n, p2 + d2);
  const Vec3 r = p1 - p2;
  const double a = glm::dot(d1, d1), b = glm::dot(d1, d2), e = glm::dot(d2, d2);
  const double c = glm::dot(d1, r), f = glm::dot(d2, r);
  const double denom = a * e - b * b;
  if (denom > 1e-12 * a * e) {
    const double s = (b * f - c * e) / denom;
    const double t = (a * f - b * c) / denom;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1) consider(p1 + s * d1, p2 + t * d2);
  }
  return best;
}

/// Distance between two disjoint cubes: the least of the 16 vertex-cube and the 144
/// edge-edge distances, with the points realising it.
double oracle_cube_distance(const Cube& a, const Cube& b, Vec3& pa, Vec3& pb) {
  double best = kInf;
  const auto consider = [&](double d, const Vec3& on_a, const Vec3& on_b) {
    if (d >= best) return;
    best = d;
    pa = on_a;
    pb = on_b;
  };
  Vec3 nearest;
  for (const Vec3& v : corners(b)) consider(point_cube_distance(v, a, nearest), nearest, v);
  for (const Vec3& v : corners(a)) consider(point_cube_distance(v, b, nearest), v, nearest);
  const std::array<Vec3, 8> ca = corners(a), cb = corners(b);
  // Edges: corner pairs differing in one bit.
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t bit = 1; bit < 8; bit <<= 1) {
      if (i & bit) continue;
      const Vec3 p1 = ca[i], d1 = ca[i | bit] - p1;
      for (std::size_t j = 0; j < 8; ++j)
        for (std::size_t bit2 = 1; bit2 < 8; bit2 <<= 1) {
          if (j & bit2) continue;
          const Vec3 p2 = cb[j], d2 = cb[j | bit2] - p2;
          Vec3 c1, c2;
          const double d = segment_segment_distance(p1, d1, p2, d2, c1, c2);
          consider(d, c1, c2);
        }
    }
  return best;
}

struct OracleResult {
  bool touching = false;
  double separation_m = 0;
};

/// Every pair of voxels (interior ones too). A pair whose cubes' circumspheres are apart by
/// at least the best distance so far cannot improve it, so it is skipped.
OracleResult oracle(const std::vector<Cube>& a, const std::vector<Cube>& b) {
  OracleResult result;
  const double reach = std::sqrt(3.0) * (a.front().half_m + b.front().half_m);
  for (const Cube& ca : a)
    for (const Cube& cb : b)
      if (glm::length(cb.centre_m - ca.centre_m) <= reach * (1 + 1e-9) && oracle_cubes_touch(ca, cb)) {
        result.touching = true;
        return result;
      }
  // Start from the pair of nearest centres, then visit every pair that might beat it.
  double nearest_centres = kInf;
  std::size_t ia = 0, ib = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) {
      const double d = glm::length(b[j].centre_m - a[i].centre_m);
      if (d < nearest_centres) {
        nearest_centres = d;
        ia = i;
        ib = j;
      }
    }
  Vec3 pa, pb;
  double best = oracle_cube_distance(a[ia], b[ib], pa, pb);
  for (const Cube& ca : a)
    for (const Cube& cb : b)
      if (glm::length(cb.centre_m - ca.centre_m) - reach < best) best = std::min(best, oracle_cube_distance(ca, cb, pa, pb));
  result.separation_m = best;
  return result;
}

/// Distance from p to the nearest voxel cube of a set.
double distance_to_cubes(const Vec3& p, const std::vector<Cube>& cubes) {
  double best = kInf;
  Vec3 nearest;
  for (const Cube& c : cubes) best = std::min(best, point_cube_distance(p, c, nearest));
  return best;
}

// ---------------------------------------------------------------------------------------

VoxelModel single_voxel(double size_m) {
  VoxelModel m(IVec3(1), size_m);
  m.set(0, 0, 0, true);
  return m;
}

/// A single voxel, its centre of mass at its centre: its position is its centre.
ExactVoxelShape single_cube_shape(double size_m) { return ExactVoxelShape(single_voxel(size_m), Vec3(0.5 * size_m)); }

ExactPose pose_at(const Vec3& position_m, const Quat& orientation = Quat(1, 0, 0, 0)) {
  ExactPose pose;
  pose.position_m = position_m;
  pose.orientation = orientation;
  return pose;
}

/// Checks what any separated result must satisfy: the closest points are separation_m
/// apart, each on its own cube's surface.
void require_closest_points_on_cubes(const ExactContact& c, const Cube& a, const Cube& b) {
  REQUIRE_FALSE(c.touching);
  REQUIRE(glm::length(c.closest_b_m - c.closest_a_m) == Approx(c.separation_m).epsilon(1e-12));
  Vec3 nearest;
  REQUIRE(point_cube_distance(c.closest_a_m, a, nearest) <= 1e-12);
  REQUIRE(point_cube_distance(c.closest_b_m, b, nearest) <= 1e-12);
  // On the surface, not inside: some local coordinate at the half-extent.
  const auto on_surface = [](const Vec3& p, const Cube& cube) {
    double largest = 0;
    for (const Vec3& axis : cube.axis) largest = std::max(largest, std::abs(glm::dot(p - cube.centre_m, axis)));
    return std::abs(largest - cube.half_m) <= 1e-12;
  };
  REQUIRE(on_surface(c.closest_a_m, a));
  REQUIRE(on_surface(c.closest_b_m, b));
}

}  // namespace

TEST_CASE("exact: the shape holds every occupied voxel, and an empty model is refused") {
  const VoxelModel rock = make_rock(IVec3(9), 0.1, 7);
  const ExactVoxelShape shape(rock, Vec3(0.45));
  REQUIRE(shape.voxel_count() == static_cast<std::size_t>(rock.occupied_count()));
  REQUIRE(shape.voxel_size_m() == 0.1);
  REQUIRE_THROWS_AS(ExactVoxelShape(VoxelModel(IVec3(3), 0.1), Vec3(0.0)), std::invalid_argument);
}

TEST_CASE("exact: single cubes apart across a face, an edge and a corner") {
  const double s = 0.25, d = 0.1;
  const ExactVoxelShape cube = single_cube_shape(s);
  const Quat identity(1, 0, 0, 0);
  struct Case {
    Vec3 offset;
    double separation;
  };
  const Case cases[] = {{{s + d, 0, 0}, d},
                        {{0, -(s + d), 0}, d},
                        {{s + d, s + d, 0}, std::sqrt(2.0) * d},
                        {{0, -(s + d), s + d}, std::sqrt(2.0) * d},
                        {{s + d, s + d, s + d}, std::sqrt(3.0) * d},
                        {{-(s + d), s + d, -(s + d)}, std::sqrt(3.0) * d},
                        {{s + d, 0.3 * s, -0.2 * s}, d}};  // faces overlapping in part
  for (const Case& c : cases) {
    INFO("offset " << c.offset.x << " " << c.offset.y << " " << c.offset.z);
    const ExactContact contact = exact_contact(cube, pose_at(Vec3(0.0)), cube, pose_at(c.offset));
    REQUIRE_FALSE(exact_touching(cube, pose_at(Vec3(0.0)), cube, pose_at(c.offset)));
    REQUIRE(contact.separation_m == Approx(c.separation).epsilon(1e-12));
    require_closest_points_on_cubes(contact, make_cube(Vec3(0.0), identity, s), make_cube(c.offset, identity, s));
  }
}

TEST_CASE("exact: cubes meeting exactly at a face, an edge or a corner touch") {
  // Sizes and offsets in binary fractions: the arithmetic is exact, so contact is exact.
  const double s = 0.25;
  const ExactVoxelShape cube = single_cube_shape(s);
  const ExactVoxelShape half_cube = single_cube_shape(0.5 * s);
  for (const Vec3& offset : {Vec3(s, 0, 0), Vec3(0, 0, -s), Vec3(s, 0.5 * s, 0.25 * s), Vec3(s, s, 0), Vec3(-s, 0, s),
                             Vec3(s, s, s), Vec3(-s, -s, s)}) {
    INFO("offset " << offset.x << " " << offset.y << " " << offset.z);
    REQUIRE(exact_touching(cube, pose_at(Vec3(0.0)), cube, pose_at(offset)));
    const ExactContact contact = exact_contact(cube, pose_at(Vec3(0.0)), cube, pose_at(offset));
    REQUIRE(contact.touching);
    REQUIRE(contact.separation_m == 0);
    // A cube half the size meeting the same face, edge or corner (different voxel sizes).
    REQUIRE(exact_touching(cube, pose_at(Vec3(0.0)), half_cube, pose_at(0.75 * offset)));
    // A gap of one part in 2^20 of the voxel is a gap.
    const Vec3 apart = offset * (1.0 + std::ldexp(1.0, -20));
    REQUIRE_FALSE(exact_touching(cube, pose_at(Vec3(0.0)), cube, pose_at(apart)));
    REQUIRE(exact_contact(cube, pose_at(Vec3(0.0)), cube, pose_at(apart)).separation_m > 0);
  }
}

TEST_CASE("exact: a cube turned 45 degrees about z, its edge towards a face of an axis-aligned cube") {
  const double sa = 0.25, sb = 0.5;  // different voxel sizes
  const ExactVoxelShape a = single_cube_shape(sa);
  const ExactVoxelShape b = single_cube_shape(sb);
  const Quat turned = glm::angleAxis(glm::radians(45.0), Vec3(0, 0, 1));
  // B's edge along z reaches sqrt(2) * sb / 2 towards -x from its centre; A's face is at sa / 2.
  const double reach = std::sqrt(2.0) * 0.5 * sb + 0.5 * sa;
  for (const double gap : {0.2, 0.01, 1e-6}) {
    const Vec3 centre_b(reach + gap, 0.05, 0.03);
    const ExactContact c = exact_contact(a, pose_at(Vec3(0.0)), b, pose_at(centre_b, turned));
    REQUIRE(c.separation_m == Approx(gap).epsilon(1e-9));
    require_closest_points_on_cubes(c, make_cube(Vec3(0.0), Quat(1, 0, 0, 0), sa), make_cube(centre_b, turned, sb));
    REQUIRE(c.closest_a_m.x == Approx(0.5 * sa).epsilon(1e-12));
    // The same from B's side, and touching when pushed in by the gap and a bit.
    const ExactContact swapped = exact_contact(b, pose_at(centre_b, turned), a, pose_at(Vec3(0.0)));
    REQUIRE(swapped.separation_m == Approx(gap).epsilon(1e-9));
    REQUIRE(exact_touching(a, pose_at(Vec3(0.0)), b, pose_at(centre_b - Vec3(1.01 * gap, 0, 0), turned)));
  }
}

TEST_CASE("exact: two cubes whose edges cross, separated along the edges' cross product only") {
  // A axis-aligned; B's edge along u = (1,-1,0)/sqrt(2) points at A's edge along z from the
  // direction w = (1,1,0)/sqrt(2). No face axis separates these cubes: only w = z x u does,
  // and the distance is realised by the two edges, at A's point (ha, ha, 0).
  const double sa = 0.2, sb = 0.3;
  const double ha = 0.5 * sa, hb = 0.5 * sb;
  const Vec3 u = glm::normalize(Vec3(1, -1, 0)), w = glm::normalize(Vec3(1, 1, 0)), z(0, 0, 1);
  const Quat orientation_b = glm::quat_cast(Mat3(u, (w + z) / std::sqrt(2.0), (z - w) / std::sqrt(2.0)));
  const ExactVoxelShape a = single_cube_shape(sa);
  const ExactVoxelShape b = single_cube_shape(sb);
  for (const double gap : {0.05 * sa, 1e-4 * sa}) {
    const Vec3 centre_b = (std::sqrt(2.0) * (ha + hb) + gap) * w;
    const ExactPose pose_b = pose_at(centre_b, orientation_b);
    REQUIRE_FALSE(exact_touching(a, pose_at(Vec3(0.0)), b, pose_b));
    const ExactContact c = exact_contact(a, pose_at(Vec3(0.0)), b, pose_b);
    REQUIRE(c.separation_m == Approx(gap).epsilon(1e-9));
    REQUIRE(glm::length(c.closest_a_m - Vec3(ha, ha, 0)) <= 1e-12);
    REQUIRE(glm::length(c.closest_b_m - (Vec3(ha, ha, 0) + gap * w)) <= 1e-12);
    REQUIRE(exact_touching(a, pose_at(Vec3(0.0)), b, pose_at(centre_b - 2 * gap * w, orientation_b)));
  }
}

TEST_CASE("exact: parallel faces turned in their plane are found at their gap, where only edges cross") {
  // B above A, turned about z: the faces overlap in an octagon whose corners are crossings
  // of A's and B's edges; no vertex of either lies over the other's face.
  const double s = 0.2, h = 0.5 * s;
  const ExactVoxelShape cube = single_cube_shape(s);
  for (const double angle_deg : {45.0, 30.0, 10.0, 75.0}) {
    const Quat turned = glm::angleAxis(glm::radians(angle_deg), Vec3(0, 0, 1));
    for (const double gap : {0.1 * s, 1e-3 * s}) {
      INFO("angle " << angle_deg << " gap " << gap);
      const Vec3 centre_b(0.01 * s, -0.02 * s, 2 * h + gap);
      const ExactContact c = exact_contact(cube, pose_at(Vec3(0.0)), cube, pose_at(centre_b, turned));
      REQUIRE(c.separation_m == Approx(gap).epsilon(1e-9));
      require_closest_points_on_cubes(c, make_cube(Vec3(0.0), Quat(1, 0, 0, 0), s), make_cube(centre_b, turned, s));
      REQUIRE(c.closest_a_m.z == Approx(h).epsilon(1e-12));
    }
  }
}

TEST_CASE("exact: an edge parallel to a face, crossing it near a corner, is found at its gap") {
  // B turned about its x axis, then about z: its nearest edge (along its x axis) is parallel
  // to A's face across z and crosses it at the gap, its midpoint near a corner of the face.
  // Where the edge runs out across two of the face's edges, only those two crossings realise
  // the distance: the face's axis is an edge-cross axis in its plane, where rounding decides
  // which edges look like the support, so both must be taken.
  const double sa = 0.2, sb = 0.3, ha = 0.5 * sa, hb = 0.5 * sb;
  const ExactVoxelShape a = single_cube_shape(sa), b = single_cube_shape(sb);
  Rng rng(31, 4);
  for (int trial = 0; trial < 200; ++trial) {
    const double side = rng.uniform() < 0.5 ? -1.0 : 1.0;  // B above or below A
    const Vec3 corner(rng.uniform() < 0.5 ? -1.0 : 1.0, rng.uniform() < 0.5 ? -1.0 : 1.0, 0.0);
    const double inset = rng.uniform(0.01, 0.05), gap = rng.uniform(0.001, 0.02);
    const Quat orientation = glm::angleAxis(rng.uniform(0.0, 6.3), Vec3(0, 0, 1)) *
                             glm::angleAxis(rng.uniform(0.2, 1.3), Vec3(1, 0, 0));
    const Vec3 b_y = orientation * Vec3(0, 1, 0), b_z = orientation * Vec3(0, 0, 1);
    // The midpoint of B's edge nearest A, and B's centre from it: that edge is at
    // -hb (b_y + b_z) from the centre when B is above, +hb (b_y + b_z) when below.
    const Vec3 midpoint(corner.x * (ha - inset), corner.y * (ha - inset), side * (ha + gap));
    const Vec3 centre_b = midpoint + side * hb * (b_y + b_z);
    INFO("trial " << trial);
    const ExactContact c = exact_contact(a, pose_at(Vec3(0.0)), b, pose_at(centre_b, orientation));
    REQUIRE(c.separation_m == Approx(gap).epsilon(1e-9));
    require_closest_points_on_cubes(c, make_cube(Vec3(0.0), Quat(1, 0, 0, 0), sa), make_cube(centre_b, orientation, sb));
    REQUIRE(c.closest_a_m.z == Approx(side * ha).epsilon(1e-12));
  }
}

TEST_CASE("exact: closest points of random separated cubes lie on them, and no surface point is nearer") {
  // Independent of both distance routines: points sampled densely over each cube's surface
  // are never nearer the other cube than separation_m, and the nearest sample is within the
  // sampling step of it.
  Rng rng(11, 1);
  constexpr int kSteps = 24;
  int separated = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const double sa = rng.uniform(0.1, 0.3), sb = rng.uniform(0.1, 0.3);
    const ExactVoxelShape a = single_cube_shape(sa), b = single_cube_shape(sb);
    const ExactPose pose_a = pose_at(Vec3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)), rng.rotation());
    const ExactPose pose_b =
        pose_at(pose_a.position_m + rng.unit_vector() * (0.5 * std::sqrt(3.0) * (sa + sb) * rng.uniform(0.6, 1.2)),
                rng.rotation());
    const Cube ca = make_cube(pose_a.position_m, pose_a.orientation, sa);
    const Cube cb = make_cube(pose_b.position_m, pose_b.orientation, sb);
    const ExactContact c = exact_contact(a, pose_a, b, pose_b);
    if (c.touching) continue;
    ++separated;
    INFO("trial " << trial);
    require_closest_points_on_cubes(c, ca, cb);
    // Samples on every face of each cube, step = size / kSteps.
    const auto nearest_sample = [&](const Cube& from, const Cube& to) {
      double best = kInf;
      Vec3 nearest;
      for (int axis = 0; axis < 3; ++axis)
        for (const double side : {-1.0, 1.0})
          for (int i = 0; i <= kSteps; ++i)
            for (int j = 0; j <= kSteps; ++j) {
              const Vec3 p = from.centre_m + from.half_m * (side * from.axis[static_cast<std::size_t>(axis)] +
                                                            (2.0 * i / kSteps - 1) * from.axis[static_cast<std::size_t>((axis + 1) % 3)] +
                                                            (2.0 * j / kSteps - 1) * from.axis[static_cast<std::size_t>((axis + 2) % 3)]);
              best = std::min(best, point_cube_distance(p, to, nearest));
            }
      return best;
    };
    for (const double sampled : {nearest_sample(ca, cb), nearest_sample(cb, ca)}) {
      REQUIRE(sampled >= c.separation_m - 1e-12);
      REQUIRE(sampled <= c.separation_m + std::max(sa, sb) / kSteps);
    }
  }
  CHECK(separated >= 20);
}

TEST_CASE("exact: a small model inside a big solid one touches it, inside a hollow one it does not") {
  const VoxelModel big = make_box(IVec3(10), 0.1);
  const ExactVoxelShape solid(big, Vec3(0.5));
  const ExactVoxelShape small(make_ball(IVec3(3), 0.05), Vec3(0.075));
  Rng rng(5, 2);
  const ExactPose centre = pose_at(Vec3(0.0));
  for (int trial = 0; trial < 5; ++trial) {
    const ExactPose inside = pose_at(Vec3(rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1), 0), rng.rotation());
    REQUIRE(exact_touching(solid, centre, small, inside));
    REQUIRE(exact_touching(small, inside, solid, centre));
    const ExactContact c = exact_contact(small, inside, solid, centre);
    REQUIRE(c.touching);
    REQUIRE(c.separation_m == 0);
  }
  // The same box with its 8^3 interior removed: a single small cube at its centre is
  // 4 voxels of the box minus its own half-size from the inner walls.
  VoxelModel shell = big;
  for (int z = 1; z < 9; ++z)
    for (int y = 1; y < 9; ++y)
      for (int x = 1; x < 9; ++x) shell.set(x, y, z, false);
  const ExactVoxelShape hollow(shell, Vec3(0.5));
  const ExactVoxelShape cube = single_cube_shape(0.05);
  const ExactContact c = exact_contact(hollow, centre, cube, centre);
  REQUIRE_FALSE(c.touching);
  REQUIRE(c.separation_m == Approx(0.4 - 0.025).epsilon(1e-12));
}

namespace {

/// What a run of random model pairs saw.
struct PairRun {
  int touching = 0;
  int separated = 0;
  std::int64_t cube_tests = 0;
  std::int64_t voxel_pairs = 0;
};

/// Random pairs of generated models (rocks, L-shapes, humanoids, balls of 4 to 12 voxels,
/// every other pair with a different voxel size for B), oriented by `orientation(rng)`, B
/// placed along a random direction from A at a random fraction of the distance where their
/// extreme voxels along it meet, plus up to two voxels: about half touch. Each pair must
/// agree with the oracle exactly on touching and to 1e-9 on the separation.
template <class Orientation>
PairRun check_random_pairs(Rng& rng, int pairs, Orientation&& orientation) {
  const Shape shapes[] = {Shape::rock, Shape::l_shape, Shape::humanoid, Shape::ball};
  PairRun run;
  for (int trial = 0; trial < pairs; ++trial) {
    const auto random_model = [&](double voxel_size_m) {
      ModelSettings settings;
      settings.shape = shapes[rng.below(4)];
      settings.resolution_voxels = 4 + static_cast<int>(rng.below(9));
      settings.size_m = voxel_size_m * settings.resolution_voxels;
      return make_model(settings, rng.next_u64());
    };
    const double size_a = 0.1;
    const double size_b = trial % 2 == 0 ? size_a : rng.uniform(0.05, 0.15);
    const VoxelModel model_a = random_model(size_a), model_b = random_model(size_b);
    // Centres of mass anywhere near the middle: the fast path must use them as given.
    const Vec3 com_a = 0.5 * model_a.extent_m() + Vec3(0.01, -0.02, 0.015);
    const Vec3 com_b = 0.5 * model_b.extent_m() + Vec3(-0.01, 0.005, 0.02);
    const ExactPose pose_a = pose_at(Vec3(rng.uniform(-2, 2), rng.uniform(-2, 2), rng.uniform(-2, 2)), orientation(rng));
    ExactPose pose_b = pose_at(Vec3(0.0), orientation(rng));
    const Vec3 u = rng.unit_vector();
    double reach_a = -kInf, reach_b = -kInf;
    for (const Cube& c : world_cubes(model_a, com_a, pose_at(Vec3(0.0), pose_a.orientation)))
      for (const Vec3& p : corners(c)) reach_a = std::max(reach_a, glm::dot(p, u));
    for (const Cube& c : world_cubes(model_b, com_b, pose_b))
      for (const Vec3& p : corners(c)) reach_b = std::max(reach_b, glm::dot(p, -u));
    pose_b.position_m =
        pose_a.position_m + u * ((reach_a + reach_b) * rng.uniform(0.5, 1.0) + rng.uniform(0.0, 2.0 * size_a));

    const std::vector<Cube> world_a = world_cubes(model_a, com_a, pose_a);
    const std::vector<Cube> world_b = world_cubes(model_b, com_b, pose_b);
    const OracleResult expected = oracle(world_a, world_b);
    const ExactVoxelShape shape_a(model_a, com_a), shape_b(model_b, com_b);
    const ExactContact c = exact_contact(shape_a, pose_a, shape_b, pose_b);
    INFO("trial " << trial);
    REQUIRE(c.touching == expected.touching);
    REQUIRE(exact_touching(shape_a, pose_a, shape_b, pose_b) == expected.touching);
    run.cube_tests += c.cube_tests;
    run.voxel_pairs += static_cast<std::int64_t>(world_a.size() * world_b.size());
    if (c.touching) {
      ++run.touching;
      REQUIRE(c.separation_m == 0);
      continue;
    }
    ++run.separated;
    REQUIRE(c.separation_m == Approx(expected.separation_m).epsilon(1e-9));
    REQUIRE(glm::length(c.closest_b_m - c.closest_a_m) == Approx(c.separation_m).epsilon(1e-9));
    REQUIRE(distance_to_cubes(c.closest_a_m, world_a) <= 1e-9 * size_a);
    REQUIRE(distance_to_cubes(c.closest_b_m, world_b) <= 1e-9 * size_b);
    // The other way round: the same distance.
    REQUIRE(exact_contact(shape_b, pose_b, shape_a, pose_a).separation_m == Approx(expected.separation_m).epsilon(1e-9));
  }
  return run;
}

}  // namespace

TEST_CASE("exact: random posed models agree with every voxel pair, touching and separation") {
  Rng rng(2024, 7);
  constexpr int kPairs = 400;
  const PairRun run = check_random_pairs(rng, kPairs, [](Rng& r) { return r.rotation(); });
  INFO("touching " << run.touching << ", separated " << run.separated);
  CHECK(run.touching >= kPairs / 4);
  CHECK(run.separated >= kPairs / 4);
  // The hierarchies must prune: far fewer cube tests than voxel pairs.
  CHECK(run.cube_tests * 20 < run.voxel_pairs);
}

TEST_CASE("exact: models turned by right angles agree with every voxel pair (parallel faces and edges)") {
  // Orientations from the cube's 24 rotations: every edge of A is parallel to an edge of B,
  // so the edge-cross axes degenerate, and many voxel pairs tie for the nearest.
  Rng rng(77, 7);
  constexpr int kPairs = 150;
  const auto right_angles = [](Rng& r) {
    const double quarter = 0.5 * std::acos(-1.0);
    return glm::angleAxis(quarter * static_cast<double>(r.below(4)), Vec3(1, 0, 0)) *
           glm::angleAxis(quarter * static_cast<double>(r.below(4)), Vec3(0, 1, 0)) *
           glm::angleAxis(quarter * static_cast<double>(r.below(4)), Vec3(0, 0, 1));
  };
  const PairRun run = check_random_pairs(rng, kPairs, right_angles);
  INFO("touching " << run.touching << ", separated " << run.separated);
  CHECK(run.touching >= kPairs / 4);
  CHECK(run.separated >= kPairs / 4);
}

TEST_CASE("exact: models turned about one common axis agree with every voxel pair (parallel faces)") {
  // Both turned about z by any angle: faces across z are parallel but their edges are not,
  // so parallel faces overlap in polygons whose corners may be crossings of edges only.
  Rng rng(91, 7);
  constexpr int kPairs = 150;
  const auto about_z = [](Rng& r) { return glm::angleAxis(r.uniform(0.0, 6.3), Vec3(0, 0, 1)); };
  const PairRun run = check_random_pairs(rng, kPairs, about_z);
  INFO("touching " << run.touching << ", separated " << run.separated);
  CHECK(run.touching >= kPairs / 4);
  CHECK(run.separated >= kPairs / 4);
}

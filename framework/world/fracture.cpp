#include "world/fracture.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fovea {

namespace {

/// Every component finite (no NaN, no infinity).
bool is_finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

/// A usable direction: finite and not zero (length need not be one, and may be tiny).
bool is_direction(const Vec3& v) { return is_finite(v) && v != Vec3(0.0); }

/// v / |v| for any finite non-zero v: scaled by its largest component first, since |v|^2
/// underflows to zero for components below 1e-154.
Vec3 unit(const Vec3& v) {
  const Vec3 a = glm::abs(v);
  return glm::normalize(v / std::max(a.x, std::max(a.y, a.z)));
}

// One byte per grid cell: empty, unvisited on either side, or already in a component.
// Visiting overwrites the side, so a neighbour is taken exactly when its byte equals the
// side being filled: the other side, empty cells and visited cells all differ from it.
constexpr std::uint8_t kEmpty = 0;
constexpr std::uint8_t kSide0 = 1;
constexpr std::uint8_t kSide1 = 2;
constexpr std::uint8_t kVisited = 3;

}  // namespace

FractureResult fracture_voxels(const VoxelModel& parent, const Vec3& plane_point_model_m,
                               const Vec3& plane_normal_model, std::int64_t min_fragment_voxels) {
  if (!is_direction(plane_normal_model)) throw std::invalid_argument("the cutting plane's normal must be finite and non-zero");
  if (!is_finite(plane_point_model_m)) throw std::invalid_argument("the cutting plane's point must be finite");
  if (min_fragment_voxels < 1) throw std::invalid_argument("a fragment needs at least one voxel");

  const IVec3 dims = parent.dims();
  const std::size_t nx = static_cast<std::size_t>(dims.x);
  const std::size_t nxy = nx * static_cast<std::size_t>(dims.y);
  const std::size_t cells = nxy * static_cast<std::size_t>(dims.z);
  std::vector<std::uint8_t> state(cells, kEmpty);
  parent.for_each_occupied([&](int x, int y, int z) {
    const double signed_distance = glm::dot(parent.voxel_centre_m(x, y, z) - plane_point_model_m, plane_normal_model);
    state[static_cast<std::size_t>(x) + nx * static_cast<std::size_t>(y) + nxy * static_cast<std::size_t>(z)] =
        signed_distance < 0 ? kSide0 : kSide1;
  });

  FractureResult result;
  // Cell indices of the component being filled; breadth first, the list is its own queue.
  std::vector<std::size_t> component;
  // Seeds are taken in storage order, so each component starts at its lowest index and the
  // components come out ordered by it: deterministic, whatever the fill order inside one.
  for (std::size_t seed = 0; seed < cells; ++seed) {
    const std::uint8_t side_mark = state[seed];
    if (side_mark != kSide0 && side_mark != kSide1) continue;
    component.clear();
    component.push_back(seed);
    state[seed] = kVisited;
    const auto visit = [&](std::size_t j) {
      if (state[j] == side_mark) {
        state[j] = kVisited;
        component.push_back(j);
      }
    };
    IVec3 lo = dims, hi(0);
    Vec3 centre_sum_m(0.0);
    for (std::size_t head = 0; head < component.size(); ++head) {
      const std::size_t i = component[head];
      const int x = static_cast<int>(i % nx);
      const int y = static_cast<int>((i % nxy) / nx);
      const int z = static_cast<int>(i / nxy);
      lo = glm::min(lo, IVec3(x, y, z));
      hi = glm::max(hi, IVec3(x, y, z) + 1);
      centre_sum_m += parent.voxel_centre_m(x, y, z);
      if (x > 0) visit(i - 1);
      if (x + 1 < dims.x) visit(i + 1);
      if (y > 0) visit(i - nx);
      if (y + 1 < dims.y) visit(i + nx);
      if (z > 0) visit(i - nxy);
      if (z + 1 < dims.z) visit(i + nxy);
    }

    const int side = side_mark == kSide0 ? 0 : 1;
    const auto count = static_cast<std::int64_t>(component.size());
    if (count < min_fragment_voxels) {
      result.debris.push_back({count, centre_sum_m / static_cast<double>(count), side});
      result.debris_voxels += count;
      continue;
    }
    Fragment fragment;
    fragment.model = VoxelModel(hi - lo, parent.voxel_size_m());
    fragment.model.set_palette(parent.palette());
    for (const std::size_t i : component) {
      const int x = static_cast<int>(i % nx);
      const int y = static_cast<int>((i % nxy) / nx);
      const int z = static_cast<int>(i / nxy);
      fragment.model.set_colour_index(x - lo.x, y - lo.y, z - lo.z, parent.colour_index(x, y, z));
    }
    fragment.offset_voxels = lo;
    fragment.side = side;
    fragment.voxel_count = count;
    result.fragments.push_back(std::move(fragment));
  }
  return result;
}

std::vector<PieceMotion> fracture_motion(const ParentMotion& parent, std::span<const PieceMass> pieces,
                                         const Vec3& plane_normal_world, double separation_speed_mps) {
  if (!is_direction(plane_normal_world)) throw std::invalid_argument("the cutting plane's normal must be finite and non-zero");
  if (!(separation_speed_mps >= 0) || !std::isfinite(separation_speed_mps))
    throw std::invalid_argument("the separation speed must be finite and not negative");
  double mass_kg = 0, signed_mass_kg = 0;
  for (const PieceMass& piece : pieces) {
    if (!(piece.mass_kg > 0) || !std::isfinite(piece.mass_kg)) throw std::invalid_argument("a piece's mass must be positive and finite");
    if (piece.side != 0 && piece.side != 1) throw std::invalid_argument("a piece's side is 0 or 1");
    mass_kg += piece.mass_kg;
    signed_mass_kg += piece.side == 0 ? -piece.mass_kg : piece.mass_kg;
  }
  const Vec3 n = unit(plane_normal_world);
  // Subtracting the mass-weighted mean sign makes the separations' momenta cancel whatever
  // the two sides weigh: a crumb flies off fast, a big half barely moves.
  const double mean_sign = pieces.empty() ? 0.0 : signed_mass_kg / mass_kg;

  std::vector<PieceMotion> motions;
  motions.reserve(pieces.size());
  for (const PieceMass& piece : pieces) {
    const double sign = piece.side == 0 ? -1.0 : 1.0;
    const Vec3 rigid_mps = parent.linear_velocity_mps +
                           glm::cross(parent.angular_velocity_radps, piece.centre_of_mass_m - parent.centre_of_mass_m);
    motions.push_back({rigid_mps + (separation_speed_mps * (sign - mean_sign)) * n, parent.angular_velocity_radps});
  }
  return motions;
}

}  // namespace fovea

#include "metrics/exact_voxel_contact.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>

#include "spheretree/octree_builder.hpp"

namespace fovea {
namespace {

/// Leaf size of the hierarchy. Leaves of 1 to 8 voxels ran alike (two 12-voxel rocks: a
/// voxel-pair separating-axis test, 15 dot products, costs about what a node pair does);
/// 4 keeps the nodes to about two thirds of the voxel count, a third of what single voxels need.
constexpr std::size_t kMaxLeafVoxels = 4;

/// An edge-cross axis a_i x b_j shorter than this (sine of the angle between the edges) is
/// skipped. For exactly parallel edges the face axes cover the case (the problem is the 2D
/// one in the plane across the edges, whose axes are face normals); below this length the
/// normalised axis would be mostly rounding. Decisions can thus go either way only within
/// about 1e-8 of the voxel size from exact contact.
constexpr double kMinCrossLength = 1e-8;

/// Slack on node bounds in the touching search, relative to the two spheres' radii, so that
/// rounding never prunes a pair of cubes that meet exactly (say corner to corner, where the
/// bounding spheres are tangent and the boxes share a face plane).
constexpr double kSlack = 1e-9;

/// Everything about the two models' relative pose that is the same for every voxel pair:
/// all voxels of a model are equal cubes with the same orientation. Computed in A's model
/// frame, where A's voxels are axis-aligned cubes [x, x + 1] * size_a.
struct PairFrame {
  Mat3 b_axes{1.0};       ///< B's model axes in A's frame (columns); A_from_B(p) = b_axes p + b_origin
  Mat3 b_axes_t{1.0};     ///< its transpose: A's frame to B's axes
  Mat3 abs_b_axes{1.0};   ///< element-wise |b_axes|: projects B-aligned half-extents onto A's axes
  Mat3 abs_b_axes_t{1.0}; ///< element-wise |b_axes_t|: A-aligned half-extents onto B's axes
  Vec3 b_origin{0.0};
  double size_a = 1.0, size_b = 1.0;
  double half_a = 0.5, half_b = 0.5;

  /// Separating axes (unit, A frame) and the sum of both cubes' projected half-extents on each.
  std::array<Vec3, 15> axis{};
  std::array<double, 15> support{};
  int axis_count = 0;

  std::array<Vec3, 8> a_vertex{};       ///< A cube corners from its centre, A frame
  std::array<Vec3, 8> a_vertex_in_b{};  ///< the same, in B's axes
  std::array<Vec3, 8> b_vertex{};       ///< B cube corners from its centre, A frame
  /// Edges along axis i: the four start points from the cube centre (edge m at the sign of
  /// bit 0 on axis i + 1 and of bit 1 on axis i + 2), and the edge vector.
  std::array<std::array<Vec3, 4>, 3> a_edge_start{}, b_edge_start{};
  std::array<Vec3, 3> a_edge{}, b_edge{};
  double edge_a_sq = 1.0, edge_b_sq = 1.0;  ///< |a_edge|^2, |b_edge|^2

  /// For each edge-cross axis k >= 6 (a_i x b_j): i, j, d1.d2 and 1 / (|d1|^2 |d2|^2 - (d1.d2)^2)
  /// for edge vectors d1 = a_edge[i], d2 = b_edge[j] (never parallel: the axis would have been
  /// skipped), and, as bit masks over the four edges, the edges in the cubes' supports along
  /// it: A's furthest along the axis and B's furthest against it ([0]), or the reverse ([1])
  /// when B lies on the axis' negative side. One edge each, or both edges of a face where
  /// the axis lies in that face's plane (within rounding).
  std::array<std::uint8_t, 15> edge_i{}, edge_j{};
  std::array<double, 15> edge_dot{}, edge_inv_denom{};
  std::array<std::array<std::uint8_t, 2>, 15> a_edges{}, b_edges{};
  /// Rounding allowance on separations when choosing the edge axes that can realise the
  /// distance (a tiny fraction of a voxel: separations err by ~1e-16 of the voxel-pair offset).
  double separation_tolerance_m = 0;
};

Vec3 corner_sign(int k) { return Vec3(k & 1 ? 1.0 : -1.0, k & 2 ? 1.0 : -1.0, k & 4 ? 1.0 : -1.0); }

PairFrame make_pair_frame(double size_a, const Vec3& com_a, const ExactPose& pose_a, double size_b,
                          const Vec3& com_b, const ExactPose& pose_b) {
  PairFrame f;
  // Matrices, not quaternion rotation: an identity orientation then gives exact arithmetic,
  // so cubes placed at exact offsets meet exactly (the face-contact tests rely on it).
  const Mat3 rot_a = glm::mat3_cast(pose_a.orientation);
  const Mat3 rot_b = glm::mat3_cast(pose_b.orientation);
  const Mat3 rot_a_t = glm::transpose(rot_a);
  f.b_axes = rot_a_t * rot_b;
  f.b_axes_t = glm::transpose(f.b_axes);
  for (int c = 0; c < 3; ++c) f.abs_b_axes[c] = glm::abs(f.b_axes[c]);
  f.abs_b_axes_t = glm::transpose(f.abs_b_axes);
  f.b_origin = com_a + rot_a_t * (pose_b.position_m - pose_a.position_m) - f.b_axes * com_b;
  f.size_a = size_a;
  f.size_b = size_b;
  f.half_a = 0.5 * size_a;
  f.half_b = 0.5 * size_b;

  const auto add_axis = [&](const Vec3& n) {
    const double support_a = f.half_a * (std::abs(n.x) + std::abs(n.y) + std::abs(n.z));
    const double support_b = f.half_b * (std::abs(glm::dot(n, f.b_axes[0])) + std::abs(glm::dot(n, f.b_axes[1])) +
                                         std::abs(glm::dot(n, f.b_axes[2])));
    f.axis[static_cast<std::size_t>(f.axis_count)] = n;
    f.support[static_cast<std::size_t>(f.axis_count)] = support_a + support_b;
    ++f.axis_count;
  };
  // Face axes first: they separate most pairs, so the touching test exits early on them.
  for (int i = 0; i < 3; ++i) {
    Vec3 e(0.0);
    e[i] = 1.0;
    add_axis(e);
  }
  for (int j = 0; j < 3; ++j) add_axis(f.b_axes[j]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Vec3 e(0.0);
      e[i] = 1.0;
      const Vec3 cross = glm::cross(e, f.b_axes[j]);
      const double length = glm::length(cross);
      if (length < kMinCrossLength) continue;
      const Vec3 n = cross / length;
      const auto k = static_cast<std::size_t>(f.axis_count);
      add_axis(n);
      f.edge_i[k] = static_cast<std::uint8_t>(i);
      f.edge_j[k] = static_cast<std::uint8_t>(j);
      // The edges along axis i in the support along direction g: those whose signs on the
      // other two axes match g's components there; both signs where a component is ~0 (the
      // support is a face, and which of its edges holds the closest points depends on where
      // the other cube's edge crosses it; with a 1e-9 margin, rounding cannot pick wrongly).
      const auto support_edges = [](double along_u, double along_v) {
        constexpr double kTie = 1e-9;
        std::uint8_t mask = 0;
        for (int m = 0; m < 4; ++m) {
          const bool ok_u = (m & 1) ? along_u > -kTie : along_u < kTie;
          const bool ok_v = (m & 2) ? along_v > -kTie : along_v < kTie;
          if (ok_u && ok_v) mask = static_cast<std::uint8_t>(mask | (1 << m));
        }
        return mask;
      };
      const auto opposite = [](std::uint8_t mask) {  // edge m -> edge m ^ 3
        std::uint8_t result = 0;
        for (int m = 0; m < 4; ++m)
          if (mask & (1 << m)) result = static_cast<std::uint8_t>(result | (1 << (m ^ 3)));
        return result;
      };
      const int iu = (i + 1) % 3, iv = (i + 2) % 3, ju = (j + 1) % 3, jv = (j + 2) % 3;
      f.a_edges[k][0] = support_edges(n[iu], n[iv]);
      f.b_edges[k][0] = support_edges(-glm::dot(n, f.b_axes[ju]), -glm::dot(n, f.b_axes[jv]));
      f.a_edges[k][1] = opposite(f.a_edges[k][0]);
      f.b_edges[k][1] = opposite(f.b_edges[k][0]);
    }

  for (int k = 0; k < 8; ++k) {
    const Vec3 sign = corner_sign(k);
    f.a_vertex[static_cast<std::size_t>(k)] = f.half_a * sign;
    f.a_vertex_in_b[static_cast<std::size_t>(k)] = f.b_axes_t * (f.half_a * sign);
    f.b_vertex[static_cast<std::size_t>(k)] = f.b_axes * (f.half_b * sign);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t u = (i + 1) % 3, v = (i + 2) % 3;
    for (std::size_t m = 0; m < 4; ++m) {
      Vec3 local(0.0);
      local[static_cast<int>(i)] = -1.0;
      local[static_cast<int>(u)] = m & 1 ? 1.0 : -1.0;
      local[static_cast<int>(v)] = m & 2 ? 1.0 : -1.0;
      f.a_edge_start[i][m] = f.half_a * local;
      f.b_edge_start[i][m] = f.b_axes * (f.half_b * local);
    }
    Vec3 e(0.0);
    e[static_cast<int>(i)] = 1.0;
    f.a_edge[i] = f.size_a * e;
    f.b_edge[i] = f.size_b * f.b_axes[static_cast<int>(i)];
  }
  f.separation_tolerance_m = 1e-9 * (f.size_a + f.size_b);
  f.edge_a_sq = f.size_a * f.size_a;
  f.edge_b_sq = f.size_b * f.size_b;
  for (std::size_t k = 6; k < static_cast<std::size_t>(f.axis_count); ++k) {
    const double dot = glm::dot(f.a_edge[f.edge_i[k]], f.b_edge[f.edge_j[k]]);
    f.edge_dot[k] = dot;
    // = |d1|^2 |d2|^2 sin^2(angle) >= 1e-16 |d1|^2 |d2|^2 for the axes kept.
    f.edge_inv_denom[k] = 1.0 / (f.edge_a_sq * f.edge_b_sq - dot * dot);
  }
  return f;
}

/// Centre of voxel v of a model with voxels of `size`, in that model's frame.
Vec3 voxel_centre(const IVec3& v, double size) { return (Vec3(v) + 0.5) * size; }

/// The two cubes' separations along each axis (B's centre minus A's: `d`, A frame); returns
/// the largest: > 0 means disjoint, and is then a lower bound on their distance, equal to it
/// when a face and a vertex, or two edges at interior points, realise the distance.
double sat_separations(const PairFrame& f, const Vec3& d, std::array<double, 15>& separation) {
  double largest = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < static_cast<std::size_t>(f.axis_count); ++k) {
    separation[k] = std::abs(glm::dot(d, f.axis[k])) - f.support[k];
    largest = std::max(largest, separation[k]);
  }
  return largest;
}

/// Closed cubes intersect: no axis separates them (touching counts).
bool sat_touching(const PairFrame& f, const Vec3& d) {
  for (std::size_t k = 0; k < static_cast<std::size_t>(f.axis_count); ++k)
    if (std::abs(glm::dot(d, f.axis[k])) > f.support[k]) return false;
  return true;
}

/// Whether `gap` is shorter than sqrt(best_sq); if so best_sq becomes its squared length.
inline bool shorter(const Vec3& gap, double& best_sq) {
  const double dist_sq = glm::dot(gap, gap);
  if (!(dist_sq < best_sq)) return false;
  best_sq = dist_sq;
  return true;
}

/// The vertex-box half of cube_distance, for one cube's 8 vertices against the other cube:
/// the vertices are `centre` + vertices[k] in the other cube's own axes, that cube of half
/// side `half_m` about the origin. The nearest vertex's index if it is nearer than
/// sqrt(best_sq), best_sq then its squared distance; 8 if none is.
inline std::size_t nearest_vertex_to_cube(const std::array<Vec3, 8>& vertices, const Vec3& centre, double half_m,
                                          double& best_sq) {
  std::size_t nearest = 8;
  for (std::size_t k = 0; k < 8; ++k) {
    const Vec3 v = centre + vertices[k];
    if (shorter(v - glm::clamp(v, Vec3(-half_m), Vec3(half_m)), best_sq)) nearest = k;
  }
  return nearest;
}

/// Exact distance between the disjoint cubes centred at `ca` (A) and `cb` (B), A frame, if
/// it is below sqrt(best_sq): then best_sq and the closest points are updated. `separation`
/// and `largest` come from sat_separations.
///
/// Disjoint convex boxes are nearest at a vertex of one and the other box, or at two edges.
/// All 16 vertex-box distances are taken (a clamp in the box's own axes). Of the 144 edge
/// pairs only those that can hold the closest points at interior points of both edges are
/// taken, and only there:
///  - closest points at an edge's end are a vertex's, found by the vertex-box distances;
///  - parallel edges are nearest along a whole overlap, which ends at a vertex: likewise;
///  - otherwise the distance runs along the edges' cross axis n (it is perpendicular to
///    both), so n's separation equals the distance, and is the largest separation (all are
///    lower bounds); and each edge lies in its cube's support along +-n: that edge, or where
///    n lies in a face's plane, one of the face's two edges along that direction (two
///    parallel faces turned in their plane meet in an octagon whose corners are such
///    crossings of edges, none a vertex).
/// So per cross axis whose separation is the largest (within rounding), one edge pair, or up
/// to four where faces are parallel: the stationary point of the distance between the two
/// lines, kept when inside both edges.
bool cube_distance(const PairFrame& f, const Vec3& ca, const Vec3& cb, const std::array<double, 15>& separation,
                   double largest, double& best_sq, Vec3& p_a, Vec3& p_b) {
  bool improved = false;
  const Vec3 d = cb - ca;
  // B's vertices against A's cube (A frame), then A's against B's (B's axes): the nearest
  // point on the cube is the vertex clamped to it.
  if (const std::size_t k = nearest_vertex_to_cube(f.b_vertex, d, f.half_a, best_sq); k < 8) {
    p_a = ca + glm::clamp(d + f.b_vertex[k], Vec3(-f.half_a), Vec3(f.half_a));
    p_b = cb + f.b_vertex[k];
    improved = true;
  }
  const Vec3 d_in_b = f.b_axes_t * (-d);
  if (const std::size_t k = nearest_vertex_to_cube(f.a_vertex_in_b, d_in_b, f.half_b, best_sq); k < 8) {
    p_a = ca + f.a_vertex[k];
    p_b = cb + f.b_axes * glm::clamp(d_in_b + f.a_vertex_in_b[k], Vec3(-f.half_b), Vec3(f.half_b));
    improved = true;
  }
  for (std::size_t k = 6; k < static_cast<std::size_t>(f.axis_count); ++k) {
    if (separation[k] < largest - f.separation_tolerance_m) continue;
    const std::size_t side = glm::dot(d, f.axis[k]) >= 0 ? 0 : 1;
    const std::size_t i = f.edge_i[k], j = f.edge_j[k];
    const Vec3& d1 = f.a_edge[i];
    const Vec3& d2 = f.b_edge[j];
    for (std::size_t m = 0; m < 4; ++m) {
      if (!(f.a_edges[k][side] & (1u << m))) continue;
      const Vec3 p1 = ca + f.a_edge_start[i][m];
      for (std::size_t n = 0; n < 4; ++n) {
        if (!(f.b_edges[k][side] & (1u << n))) continue;
        const Vec3 p2 = cb + f.b_edge_start[j][n];
        // Minimise |r + s d1 - t d2|^2, r = p1 - p2:
        // (d1.d1) s - (d1.d2) t = -d1.r and (d1.d2) s - (d2.d2) t = -d2.r.
        const Vec3 r = p1 - p2;
        const double c = glm::dot(d1, r), e = glm::dot(d2, r), b = f.edge_dot[k];
        const double s = (b * e - c * f.edge_b_sq) * f.edge_inv_denom[k];
        const double t = (f.edge_a_sq * e - b * c) * f.edge_inv_denom[k];
        if (s < 0.0 || s > 1.0 || t < 0.0 || t > 1.0) continue;  // at an edge's end: a vertex's case
        const Vec3 q1 = p1 + s * d1;
        const Vec3 q2 = p2 + t * d2;
        if (shorter(q2 - q1, best_sq)) {
          p_a = q1;
          p_b = q2;
          improved = true;
        }
      }
    }
  }
  return improved;
}

}  // namespace

ExactVoxelShape::ExactVoxelShape(const VoxelModel& model, const Vec3& centre_of_mass_model_m)
    : voxel_size_m_(model.voxel_size_m()), centre_of_mass_model_m_(centre_of_mass_model_m) {
  static_assert(sizeof(Node) == 48, "keep the nodes compact: they are the traversals' hot data");
  const std::int64_t occupied = model.occupied_count();
  if (occupied == 0) throw std::invalid_argument("the exact voxel test needs a model with at least one occupied voxel");
  if (occupied >= static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max() / 2))
    throw std::invalid_argument("the exact voxel test takes fewer than 2^31 occupied voxels");

  struct Item {
    IVec3 voxel;
    std::uint8_t surface;
  };
  std::vector<Item> items;
  items.reserve(static_cast<std::size_t>(occupied));
  const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
  const IVec3 dims = model.dims();
  model.for_each_occupied([&](int x, int y, int z) {
    const std::size_t cell = static_cast<std::size_t>(x) +
                             static_cast<std::size_t>(dims.x) *
                                 (static_cast<std::size_t>(y) + static_cast<std::size_t>(dims.y) * static_cast<std::size_t>(z));
    items.push_back({IVec3(x, y, z), surface[cell]});
  });

  // Top-down median splits with an explicit work list (no recursion for any model size).
  // Both children of a node are allocated together, so they sit next to each other.
  struct Work {
    std::uint32_t node, begin, end;
  };
  nodes_.reserve(2 * items.size() / kMaxLeafVoxels + 2);
  nodes_.emplace_back();
  std::vector<Work> work{{0, 0, static_cast<std::uint32_t>(items.size())}};
  while (!work.empty()) {
    const Work w = work.back();
    work.pop_back();
    IVec3 lo = items[w.begin].voxel, hi = lo;
    bool has_surface = false;
    for (std::uint32_t i = w.begin; i < w.end; ++i) {
      lo = glm::min(lo, items[i].voxel);
      hi = glm::max(hi, items[i].voxel);
      has_surface = has_surface || items[i].surface != 0;
    }
    // The sphere around the box of this node's voxels (the octree builder's choice too).
    const Vec3 box_lo = Vec3(lo) * voxel_size_m_;
    const Vec3 box_hi = Vec3(hi + 1) * voxel_size_m_;
    Node& node = nodes_[w.node];
    node.centre_m = 0.5 * (box_lo + box_hi);
    node.radius_m = 0.5 * glm::length(box_hi - box_lo);
    node.has_surface = has_surface ? 1 : 0;
    for (int axis = 0; axis < 3; ++axis) node.box_voxels[axis] = static_cast<std::uint16_t>(hi[axis] - lo[axis] + 1);
    const std::uint32_t count = w.end - w.begin;
    if (count <= kMaxLeafVoxels) {
      node.first = w.begin;
      node.voxel_count = static_cast<std::uint8_t>(count);
      continue;
    }
    const IVec3 extent = hi - lo;
    const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
    const std::uint32_t mid = w.begin + count / 2;
    const auto items_begin = items.begin();
    std::nth_element(items_begin + w.begin, items_begin + mid, items_begin + w.end, [axis](const Item& p, const Item& q) {
      // A total order, so the split (and with it the whole tree) does not depend on the
      // standard library's nth_element.
      if (p.voxel[axis] != q.voxel[axis]) return p.voxel[axis] < q.voxel[axis];
      if (p.voxel.z != q.voxel.z) return p.voxel.z < q.voxel.z;
      if (p.voxel.y != q.voxel.y) return p.voxel.y < q.voxel.y;
      return p.voxel.x < q.voxel.x;
    });
    const auto first_child = static_cast<std::uint32_t>(nodes_.size());
    node.first = first_child;  // `node` is not used after the emplace_back below (it may reallocate)
    node.voxel_count = 0;
    nodes_.emplace_back();
    nodes_.emplace_back();
    work.push_back({first_child + 1, mid, w.end});
    work.push_back({first_child, w.begin, mid});
  }

  voxels_.reserve(items.size());
  voxel_is_surface_.reserve(items.size());
  for (const Item& item : items) {
    voxels_.push_back(item.voxel);
    voxel_is_surface_.push_back(item.surface);
  }
}

namespace {

/// A pair of nodes, one per model, and a lower bound on the distance between their voxels.
struct NodePair {
  double lower_bound_m;
  std::uint32_t a, b;
  bool operator>(const NodePair& other) const { return lower_bound_m > other.lower_bound_m; }
};

}  // namespace

/// The two searches; a friend of ExactVoxelShape, so they see its hierarchy.
struct ExactVoxelAccess {
  using Node = ExactVoxelShape::Node;

  static PairFrame frame(const ExactVoxelShape& a, const ExactPose& pose_a, const ExactVoxelShape& b,
                         const ExactPose& pose_b) {
    return make_pair_frame(a.voxel_size_m_, a.centre_of_mass_model_m_, pose_a, b.voxel_size_m_,
                           b.centre_of_mass_model_m_, pose_b);
  }

  /// A point of A's model frame (where the searches work) in world space, as Entity's to_world.
  static Vec3 a_to_world(const ExactVoxelShape& a, const ExactPose& pose_a, const Vec3& p_model_m) {
    return pose_a.position_m + pose_a.orientation * (p_model_m - a.centre_of_mass_model_m_);
  }

  /// A lower bound on the distance between two nodes' voxels, or <= 0 where they may touch:
  /// the larger of the gap between their spheres and the separation of their boxes along
  /// the six face normals. Spheres bound well along diagonals, boxes across faces (and for
  /// the thin slabs of L-shapes and limbs); the two together cost about 60 flops.
  static double node_gap(const PairFrame& f, const Node& na, const Node& nb) {
    const Vec3 d = f.b_axes * nb.centre_m + f.b_origin - na.centre_m;
    const double sphere_gap = glm::length(d) - na.radius_m - nb.radius_m;
    const Vec3 half_a = Vec3(na.box_voxels[0], na.box_voxels[1], na.box_voxels[2]) * f.half_a;
    const Vec3 half_b = Vec3(nb.box_voxels[0], nb.box_voxels[1], nb.box_voxels[2]) * f.half_b;
    const Vec3 gap_on_a = glm::abs(d) - half_a - f.abs_b_axes * half_b;
    const Vec3 gap_on_b = glm::abs(f.b_axes_t * d) - half_b - f.abs_b_axes_t * half_a;
    return std::max({sphere_gap, gap_on_a.x, gap_on_a.y, gap_on_a.z, gap_on_b.x, gap_on_b.y, gap_on_b.z});
  }

  /// Which node of a pair to open: the one that is not a leaf, else the larger, so both
  /// trees descend at the pace of their sphere sizes (models of different voxel sizes too).
  static bool open_a(const Node& na, const Node& nb) {
    if (na.voxel_count != 0) return false;
    if (nb.voxel_count != 0) return true;
    return na.radius_m >= nb.radius_m;
  }

  /// The touching search: depth-first over the pairs of nodes that node_gap (with kSlack)
  /// says may touch, over all voxels, interior ones included; stops at the first pair of
  /// intersecting cubes. The stack holds at most one sibling per level of either tree.
  ///
  /// With `frontier` given it also seeds the distance search, so that search need not walk
  /// the same pairs again: every pair it drops with both nodes holding surface voxels goes
  /// there with its lower bound, and so does every leaf pair it tested (bound 0). Together
  /// they cover every pair of surface voxels.
  static bool touching(const ExactVoxelShape& a, const ExactVoxelShape& b, const PairFrame& f,
                       std::int64_t& cube_tests, std::vector<NodePair>* frontier) {
    // The pair may touch; else, when asked for, it goes to the frontier.
    const auto may_touch = [&](std::uint32_t ia, std::uint32_t ib) {
      const Node& na = a.nodes_[ia];
      const Node& nb = b.nodes_[ib];
      const double gap_m = node_gap(f, na, nb);
      if (gap_m <= kSlack * (na.radius_m + nb.radius_m)) return true;
      if (frontier != nullptr && na.has_surface && nb.has_surface) frontier->push_back({gap_m, ia, ib});
      return false;
    };
    if (!may_touch(0, 0)) return false;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;
    stack.reserve(64);
    stack.emplace_back(0, 0);
    while (!stack.empty()) {
      const auto [ia, ib] = stack.back();
      stack.pop_back();
      const Node& na = a.nodes_[ia];
      const Node& nb = b.nodes_[ib];
      if (na.voxel_count != 0 && nb.voxel_count != 0) {
        for (std::uint32_t vb = nb.first; vb < nb.first + nb.voxel_count; ++vb) {
          const Vec3 cb = f.b_axes * voxel_centre(b.voxels_[vb], f.size_b) + f.b_origin;
          for (std::uint32_t va = na.first; va < na.first + na.voxel_count; ++va) {
            ++cube_tests;
            if (sat_touching(f, cb - voxel_centre(a.voxels_[va], f.size_a))) return true;
          }
        }
        if (frontier != nullptr && na.has_surface && nb.has_surface) frontier->push_back({0.0, ia, ib});
        continue;
      }
      if (open_a(na, nb)) {
        for (std::uint32_t c = na.first; c < na.first + 2; ++c)
          if (may_touch(c, ib)) stack.emplace_back(c, ib);
      } else {
        for (std::uint32_t c = nb.first; c < nb.first + 2; ++c)
          if (may_touch(ia, c)) stack.emplace_back(ia, c);
      }
    }
    return false;
  }

  /// Branch and bound for the distance between the surface voxels of two models known not
  /// to touch, from the touching search's frontier: best-first by the lower bound
  /// max(0, node_gap) (at least the spheres' max(0, |ca - cb| - ra - rb)), stopping when the
  /// best pair left is bounded at least as far as the best distance found. Pairs with a node
  /// free of surface voxels are dropped. At the leaves, each pair of surface voxels is
  /// screened by its largest separation along the 15 axes (also a lower bound) before
  /// cube_distance. The heap holds only pairs bounded below the best distance so far.
  static void distance(const ExactVoxelShape& a, const ExactVoxelShape& b, const PairFrame& f,
                       std::vector<NodePair> frontier, ExactContact& out, Vec3& closest_a, Vec3& closest_b) {
    double best_m = std::numeric_limits<double>::infinity();
    double best_sq = best_m;
    std::priority_queue<NodePair, std::vector<NodePair>, std::greater<>> heap(std::greater<>{}, std::move(frontier));
    std::array<double, 15> separation{};
    while (!heap.empty()) {
      const NodePair top = heap.top();
      heap.pop();
      if (top.lower_bound_m >= best_m) break;  // every pair left is bounded at least as far
      const Node& na = a.nodes_[top.a];
      const Node& nb = b.nodes_[top.b];
      if (na.voxel_count != 0 && nb.voxel_count != 0) {
        for (std::uint32_t vb = nb.first; vb < nb.first + nb.voxel_count; ++vb) {
          if (!b.voxel_is_surface_[vb]) continue;
          const Vec3 cb = f.b_axes * voxel_centre(b.voxels_[vb], f.size_b) + f.b_origin;
          for (std::uint32_t va = na.first; va < na.first + na.voxel_count; ++va) {
            if (!a.voxel_is_surface_[va]) continue;
            ++out.cube_tests;
            const Vec3 ca = voxel_centre(a.voxels_[va], f.size_a);
            const double largest = sat_separations(f, cb - ca, separation);
            if (largest >= best_m) continue;
            if (cube_distance(f, ca, cb, separation, largest, best_sq, closest_a, closest_b))
              best_m = std::sqrt(best_sq);
          }
        }
        continue;
      }
      const bool split_a = open_a(na, nb);
      const Node& opened = split_a ? na : nb;
      for (std::uint32_t c = opened.first; c < opened.first + 2; ++c) {
        const std::uint32_t ia = split_a ? c : top.a;
        const std::uint32_t ib = split_a ? top.b : c;
        const Node& ca = a.nodes_[ia];
        const Node& cb = b.nodes_[ib];
        if (!ca.has_surface || !cb.has_surface) continue;
        const double bound = std::max(0.0, node_gap(f, ca, cb));
        if (bound < best_m) heap.push({bound, ia, ib});
      }
    }
    out.separation_m = best_m;
  }
};

bool exact_touching(const ExactVoxelShape& a, const ExactPose& pose_a, const ExactVoxelShape& b,
                    const ExactPose& pose_b) {
  const PairFrame f = ExactVoxelAccess::frame(a, pose_a, b, pose_b);
  std::int64_t cube_tests = 0;
  return ExactVoxelAccess::touching(a, b, f, cube_tests, nullptr);
}

ExactContact exact_contact(const ExactVoxelShape& a, const ExactPose& pose_a, const ExactVoxelShape& b,
                           const ExactPose& pose_b) {
  const PairFrame f = ExactVoxelAccess::frame(a, pose_a, b, pose_b);
  ExactContact contact;
  std::vector<NodePair> frontier;
  frontier.reserve(256);
  contact.touching = ExactVoxelAccess::touching(a, b, f, contact.cube_tests, &frontier);
  if (contact.touching) return contact;
  Vec3 closest_a(0.0), closest_b(0.0);  // A's model frame
  ExactVoxelAccess::distance(a, b, f, std::move(frontier), contact, closest_a, closest_b);
  contact.closest_a_m = ExactVoxelAccess::a_to_world(a, pose_a, closest_a);
  contact.closest_b_m = ExactVoxelAccess::a_to_world(a, pose_a, closest_b);
  return contact;
}

}  // namespace fovea

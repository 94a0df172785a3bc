#include "spheretree/medial_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "spheretree/distance_transform.hpp"
#include "spheretree/octree_builder.hpp"

namespace fovea {

// ---------------------------------------------------------------------------------------
// The depth field.

namespace {

/// Along one axis, the voxels holding lattice coordinate i (lattice units, voxel i / 2 - 1):
/// two at a voxel boundary (i even), one at a voxel centre (i odd).
int voxels_at(int i, int out[2]) {
  if (i % 2 == 1) {
    out[0] = (i - 3) / 2;
    return 1;
  }
  out[0] = i / 2 - 2;
  out[1] = i / 2 - 1;
  return 2;
}

}  // namespace

ModelDepth::ModelDepth(const VoxelModel& model) {
  // One voxel of empty space around the grid, so the outside is on the lattice.
  count_ = 2 * (model.dims() + 2) + 1;
  std::vector<std::uint8_t> outside(static_cast<std::size_t>(count_.x) * static_cast<std::size_t>(count_.y) * static_cast<std::size_t>(count_.z));
  std::size_t p = 0;
  for (int l = 0; l < count_.z; ++l) {
    int vz[2];
    const int nz = voxels_at(l, vz);
    for (int j = 0; j < count_.y; ++j) {
      int vy[2];
      const int ny = voxels_at(j, vy);
      for (int i = 0; i < count_.x; ++i, ++p) {
        int vx[2];
        const int nx = voxels_at(i, vx);
        // In the closed complement when any voxel sharing the point is empty.
        bool out = false;
        for (int c = 0; c < nz && !out; ++c)
          for (int b = 0; b < ny && !out; ++b)
            for (int a = 0; a < nx && !out; ++a) out = !model.occupied(vx[a], vy[b], vz[c]);
        outside[p] = out ? 1 : 0;
      }
    }
  }
  // The nearest point of a closed empty cube to a lattice point is a lattice point (clamping
  // to a cube with integer corners stays on the half-voxel lattice), so these are exact.
  const std::vector<double> d2 = squared_distance_transform(outside, count_);
  const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
  const IVec3 dims = model.dims();
  std::size_t v = 0;
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x, ++v)
        if (surface[v]) surface_voxels_.emplace_back(x, y, z);
  depth_.resize(d2.size());
  for (std::size_t q = 0; q < d2.size(); ++q) depth_[q] = static_cast<float>(0.5 * std::sqrt(d2[q]));
}

double ModelDepth::depth_voxels(IVec3 lattice) const { return depth_[index(lattice)]; }

double ModelDepth::depth_lower_bound_voxels(const Vec3& x) const {
  // From each of the 8 lattice points around: a point q of depth D(q) > 0 has the ball of
  // radius D(q) about it inside the model, so the depth at x is at least D(q) - |x - q|.
  // float rounding is a few 1e-7 voxel: take 1e-5 off.
  const Vec3 g = (x + 1.0) * 2.0;
  const IVec3 base = glm::clamp(IVec3(glm::floor(g)), IVec3(0), count_ - 2);
  double best = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < 8; ++c) {
    const IVec3 q = base + IVec3(c & 1, (c >> 1) & 1, (c >> 2) & 1);
    const double dq = depth_[index(q)];
    if (dq <= 0) continue;
    best = std::max(best, dq - glm::length(x - point_voxels(q)) - 1e-5);
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

// ---------------------------------------------------------------------------------------
// The builder.

namespace fovea {
namespace {

constexpr float kFloatInfinity = std::numeric_limits<float>::infinity();
/// At most this many candidate centres and voxels enter a node's greedy choice (a regular
/// subsample of each beyond it); the exchanges and the radii then use every voxel.
constexpr std::size_t kMaxChoiceCandidates = 320;
constexpr std::size_t kMaxChoiceVoxels = 320;

/// Radius a sphere centred at c needs to hold the voxel centred at e wholly: the distance to
/// the voxel's farthest corner. Voxel units.
inline float reach(const Vec3& c, const Vec3& e) { return static_cast<float>(glm::length(glm::abs(c - e) + 0.5)); }

/// One node's children: centres (lattice points) and the voxels each holds.
struct Split {
  std::vector<IVec3> centres;
  std::vector<std::vector<std::uint32_t>> voxels;  ///< per child, indices into the builder's voxels
  float worst = kFloatInfinity;                   ///< worst protrusion bound over the children, voxels
};

class MedialBuilder {
 public:
  MedialBuilder(const VoxelModel& model, const MedialBuildOptions& options) : model_(model), options_(options), depth_(model) {
    const std::vector<std::uint8_t> surface = surface_voxel_mask(model);
    const IVec3 dims = model.dims();
    std::size_t v = 0;
    for (int z = 0; z < dims.z; ++z)
      for (int y = 0; y < dims.y; ++y)
        for (int x = 0; x < dims.x; ++x, ++v)
          if (options.remove_hidden ? surface[v] != 0 : model.colour_index(x, y, z) != 0) voxels_.push_back(Vec3(x, y, z) + 0.5);
    find_medial_points();
  }

  SphereTree build();

 private:
  double depth(IVec3 p) const { return depth_.depth_voxels(p); }
  bool inside(IVec3 p) const {
    return glm::all(glm::greaterThanEqual(p, IVec3(0))) && glm::all(glm::lessThan(p, depth_.lattice_count())) && depth(p) > 0;
  }

  void find_medial_points();
  /// Worst protrusion bound of a sphere at p holding `members`: max reach - D(p).
  float cost(IVec3 p, const std::vector<std::uint32_t>& members) const;
  /// Moves p downhill on cost() by lattice steps of 8, 4, 2 and 1, axis and diagonal.
  IVec3 improve_centre(IVec3 p, const std::vector<std::uint32_t>& members) const;
  /// Greedy k-centre on a subsample: the first `branching` centres, each the one that lowers
  /// the worst cost most, and the worst cost after each.
  void greedy_centres(const std::vector<std::uint32_t>& members, const Vec3& node_centre, double node_radius,
                      std::size_t k_max, std::vector<IVec3>& order, std::vector<float>& worst) const;
  /// Assigns each member to the centre that holds it at the least cost, moves the centres,
  /// and again, a few times. Drops centres left with nothing.
  Split exchange(std::vector<IVec3> centres, const std::vector<std::uint32_t>& members) const;

  const VoxelModel& model_;
  MedialBuildOptions options_;
  ModelDepth depth_;
  std::vector<Vec3> voxels_;        ///< centres of the voxels to cover, voxel units
  std::vector<IVec3> medial_;       ///< candidate centres: lattice points on the medial axis
};

void MedialBuilder::find_medial_points() {
  // A point whose inscribed ball (radius D) lies inside a neighbour's is not medial:
  // D(q) >= D(p) + |q - p|. What is left is a thin sheet along the medial axis.
  const IVec3 count = depth_.lattice_count();
  for (int l = 1; l + 1 < count.z; ++l)
    for (int j = 1; j + 1 < count.y; ++j)
      for (int i = 1; i + 1 < count.x; ++i) {
        const IVec3 p(i, j, l);
        const double dp = depth(p);
        if (dp <= 0) continue;
        bool medial = true;
        for (int dz = -1; dz <= 1 && medial; ++dz)
          for (int dy = -1; dy <= 1 && medial; ++dy)
            for (int dx = -1; dx <= 1 && medial; ++dx) {
              if (dx == 0 && dy == 0 && dz == 0) continue;
              const double step = 0.5 * std::sqrt(double(dx * dx + dy * dy + dz * dz));
              medial = depth(p + IVec3(dx, dy, dz)) < dp + step - 1e-4;
            }
        if (medial) medial_.push_back(p);
      }
}

float MedialBuilder::cost(IVec3 p, const std::vector<std::uint32_t>& members) const {
  const Vec3 c = depth_.point_voxels(p);
  float r = 0;
  for (const std::uint32_t m : members) r = std::max(r, reach(c, voxels_[m]));
  return r - static_cast<float>(depth(p));
}

IVec3 MedialBuilder::improve_centre(IVec3 p, const std::vector<std::uint32_t>& members) const {
  float best = cost(p, members);
  for (const int step : {8, 4, 2, 1}) {
    for (bool moved = true; moved;) {
      moved = false;
      IVec3 best_p = p;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0 && dz == 0) continue;
            const IVec3 q = p + step * IVec3(dx, dy, dz);
            if (!inside(q)) continue;
            const float c = cost(q, members);
            if (c < best) {
              best = c;
              best_p = q;
            }
          }
      if (best_p != p) {
        p = best_p;
        moved = true;
      }
    }
  }
  return p;
}

void MedialBuilder::greedy_centres(const std::vector<std::uint32_t>& members, const Vec3& node_centre, double node_radius,
                                   std::size_t k_max, std::vector<IVec3>& order, std::vector<float>& worst) const {
  // Candidates: medial points within the node's sphere (a child's best centre is near the
  // voxels it holds), thinned to a regular subsample.
  std::vector<IVec3> candidates;
  for (const IVec3& p : medial_) {
    const Vec3 d = depth_.point_voxels(p) - node_centre;
    if (glm::dot(d, d) <= node_radius * node_radius) candidates.push_back(p);
  }
  if (candidates.empty()) candidates = medial_;
  if (candidates.size() > kMaxChoiceCandidates) {
    std::vector<IVec3> thinned;
    for (std::size_t i = 0; i < kMaxChoiceCandidates; ++i) thinned.push_back(candidates[i * candidates.size() / kMaxChoiceCandidates]);
    candidates.swap(thinned);
  }
  std::vector<std::uint32_t> sample;
  if (members.size() > kMaxChoiceVoxels) {
    for (std::size_t i = 0; i < kMaxChoiceVoxels; ++i) sample.push_back(members[i * members.size() / kMaxChoiceVoxels]);
  } else {
    sample = members;
  }
  const std::size_t nc = candidates.size(), ne = sample.size();
  std::vector<float> cost_of(nc * ne);
  for (std::size_t c = 0; c < nc; ++c) {
    const Vec3 p = depth_.point_voxels(candidates[c]);
    const float d = static_cast<float>(depth(candidates[c]));
    for (std::size_t e = 0; e < ne; ++e) cost_of[c * ne + e] = reach(p, voxels_[sample[e]]) - d;
  }
  std::vector<float> current(ne, kFloatInfinity);
  k_max = std::min(k_max, members.size());
  order.clear();
  worst.clear();
  for (std::size_t k = 0; k < k_max; ++k) {
    float best = kFloatInfinity;
    std::size_t best_c = 0;
    for (std::size_t c = 0; c < nc; ++c) {
      const float* row = &cost_of[c * ne];
      float w = -kFloatInfinity;
      for (std::size_t e = 0; e < ne; ++e) w = std::max(w, std::min(current[e], row[e]));
      if (w < best) {
        best = w;
        best_c = c;
      }
    }
    const float* row = &cost_of[best_c * ne];
    for (std::size_t e = 0; e < ne; ++e) current[e] = std::min(current[e], row[e]);
    order.push_back(candidates[best_c]);
    worst.push_back(best);
  }
}

Split MedialBuilder::exchange(std::vector<IVec3> centres, const std::vector<std::uint32_t>& members) const {
  Split split;
  for (int round = 0; round < 3; ++round) {
    // Assign: each voxel to the centre that holds it with the least reach - D.
    std::vector<std::vector<std::uint32_t>> groups(centres.size());
    std::vector<float> d(centres.size());
    std::vector<Vec3> c(centres.size());
    for (std::size_t k = 0; k < centres.size(); ++k) {
      d[k] = static_cast<float>(depth(centres[k]));
      c[k] = depth_.point_voxels(centres[k]);
    }
    for (const std::uint32_t m : members) {
      std::size_t best_k = 0;
      float best = kFloatInfinity;
      for (std::size_t k = 0; k < centres.size(); ++k) {
        const float cost_k = reach(c[k], voxels_[m]) - d[k];
        if (cost_k < best) {
          best = cost_k;
          best_k = k;
        }
      }
      groups[best_k].push_back(m);
    }
    std::vector<IVec3> kept;
    std::vector<std::vector<std::uint32_t>> kept_groups;
    for (std::size_t k = 0; k < centres.size(); ++k)
      if (!groups[k].empty()) {
        kept.push_back(centres[k]);
        kept_groups.push_back(std::move(groups[k]));
      }
    float worst = -kFloatInfinity;
    for (std::size_t k = 0; k < kept.size(); ++k) worst = std::max(worst, cost(kept[k], kept_groups[k]));
    if (worst >= split.worst) break;  // no better than the last round
    split.centres = kept;
    split.voxels = kept_groups;
    split.worst = worst;
    // Move: each centre downhill for the voxels it now holds.
    centres = kept;
    for (std::size_t k = 0; k < centres.size(); ++k) centres[k] = improve_centre(centres[k], kept_groups[k]);
  }
  return split;
}

SphereTree MedialBuilder::build() {
  const double s = model_.voxel_size_m();
  SphereTree tree;
  std::vector<std::vector<std::uint32_t>> node_voxels;
  const auto add_node = [&](IVec3 centre, std::vector<std::uint32_t> members, int level) {
    const Vec3 c = depth_.point_voxels(centre);
    float r = 0;
    for (const std::uint32_t m : members) r = std::max(r, reach(c, voxels_[m]));
    tree.centre_m.push_back(c * s);
    tree.radius_m.push_back(static_cast<double>(r) * s);
    tree.first_child.push_back(0);
    tree.child_count.push_back(0);
    tree.level.push_back(static_cast<std::uint8_t>(level));
    node_voxels.push_back(std::move(members));
  };

  // The root: the one centre that holds every voxel with the least protrusion.
  std::vector<std::uint32_t> all(voxels_.size());
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  {
    std::vector<IVec3> order;
    std::vector<float> worst;
    greedy_centres(all, Vec3(0.0), std::numeric_limits<double>::infinity(), 1, order, worst);
    add_node(improve_centre(order[0], all), all, 0);
  }
  tree.level_begin = {0, 1};

  const std::size_t branching = static_cast<std::size_t>(options_.branching);
  for (int level = 0; level < options_.levels; ++level) {
    const std::uint32_t begin = tree.level_begin[static_cast<std::size_t>(level)];
    const std::uint32_t end = tree.level_begin[static_cast<std::size_t>(level) + 1];
    // Every splitting node's best split with all its children, then the level's worst of
    // them: no node needs to be tighter than that, so each takes the fewest children that
    // stay within it (at least two: one child would repeat its parent).
    struct Plan {
      std::uint32_t node = 0;
      std::vector<IVec3> order;
      std::vector<float> greedy_worst;
      Split full;
    };
    std::vector<Plan> plans;
    float level_worst = 0;
    for (std::uint32_t n = begin; n < end; ++n) {
      if (node_voxels[n].size() < 2) continue;  // a single voxel: a leaf
      Plan plan;
      plan.node = n;
      greedy_centres(node_voxels[n], tree.centre_m[n] / s, tree.radius_m[n] / s, branching, plan.order, plan.greedy_worst);
      plan.full = exchange(plan.order, node_voxels[n]);
      level_worst = std::max(level_worst, plan.full.worst);
      plans.push_back(std::move(plan));
    }
    if (plans.empty()) break;
    for (Plan& plan : plans) {
      Split chosen = std::move(plan.full);
      for (std::size_t k = 2; k < plan.order.size(); ++k) {
        if (plan.greedy_worst[k - 1] > level_worst) continue;
        Split fewer = exchange(std::vector<IVec3>(plan.order.begin(), plan.order.begin() + static_cast<std::ptrdiff_t>(k)),
                               node_voxels[plan.node]);
        if (fewer.worst <= level_worst && fewer.centres.size() >= 2) {
          chosen = std::move(fewer);
          break;
        }
      }
      const auto first = static_cast<std::uint32_t>(tree.size());
      for (std::size_t k = 0; k < chosen.centres.size(); ++k) add_node(chosen.centres[k], std::move(chosen.voxels[k]), level + 1);
      tree.first_child[plan.node] = first;
      tree.child_count[plan.node] = static_cast<std::uint8_t>(chosen.centres.size());
    }
    tree.level_begin.push_back(static_cast<std::uint32_t>(tree.size()));
  }
  return tree;
}

}  // namespace

SphereTree build_medial_sphere_tree(const VoxelModel& model, const MedialBuildOptions& options) {
  if (model.occupied_count() == 0) throw std::invalid_argument("a sphere tree needs at least one occupied voxel");
  if (options.levels < 0 || options.levels > 255) throw std::invalid_argument("sphere tree levels must be in [0, 255]");
  if (options.branching < 2 || options.branching > 8) throw std::invalid_argument("sphere tree branching must be in [2, 8]");
  return MedialBuilder(model, options).build();
}

}  // namespace fovea

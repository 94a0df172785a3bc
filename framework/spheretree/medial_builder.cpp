#include "spheretree/medial_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "spheretree/octree_builder.hpp"


// ---------------------------------------------------------------------------------------
// The builder.

namespace fovea {
namespace {

constexpr float kFloatInfinity = std::numeric_limits<float>::infinity();
/// At most this many candidate centres and voxels enter a node's greedy choice (a regular
/// subsample of each beyond it); the exchanges and the radii then use every voxel.
constexpr std::size_t kMaxChoiceCandidates = 192;
constexpr std::size_t kMaxChoiceVoxels = 256;
/// A node takes the fewest children whose worst protrusion is within this share of its best
/// split's (the Toolkit's "balance" optimisation allows 5 % too).
constexpr float kBalanceExcess = 0.05f;
/// Rounds of exchange() at most: each moves the centres and reassigns the voxels.
constexpr int kExchangeRounds = 4;
/// Costs are compared in float: within this many voxels they are equal.
constexpr float kCostRounding = 1e-4f;
/// The share by which exchanges can lower a greedy choice's worst cost, at most, as seen on
/// the built-in shapes: a greedy choice of fewer centres worse than that is not tried.
constexpr float kExchangeGain = 0.5f;
/// Radii are raised by this share over the farthest corner, in metres: more than the rounding
/// of centres and corners scaled by the voxel size (a few 1e-14 of a radius), so every covered
/// corner is inside in floating point too.
constexpr double kRadiusRoundUp = 1e-12;
/// A lattice point is on the medial axis where the depth rises towards no neighbour faster
/// than this (away from the axis it rises at slope 1, towards the axis).
constexpr double kMedialSlope = 0.4;

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
    for (const Vec3& centre : voxels_) {
      voxel_x_.push_back(static_cast<float>(centre.x));
      voxel_y_.push_back(static_cast<float>(centre.y));
      voxel_z_.push_back(static_cast<float>(centre.z));
    }
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
  /// Voxel centres in float, one array per axis, for the vectorised cost.
  struct Points {
    std::vector<float> x, y, z;
  };
  void gather(const std::vector<std::uint32_t>& members, Points& out) const;
  /// Worst protrusion bound at p for `points`; stops early, returning some value above
  /// `give_up_above`, once the answer is known to exceed it.
  float cost(IVec3 p, const Points& points, float give_up_above = kFloatInfinity) const;
  /// Moves p downhill on cost() through lattice points inside the model: to the best of its 26
  /// neighbours `first_step` lattice points away while one is better, then half as far, down
  /// to one lattice point (half a voxel).
  IVec3 improve_centre(IVec3 p, const std::vector<std::uint32_t>& members, int first_step = 4) const;
  /// Greedy k-centre on a subsample: the first `branching` centres, each the one that lowers
  /// the worst cost most, and the worst cost after each.
  void greedy_centres(const std::vector<std::uint32_t>& members, const std::vector<IVec3>& candidates,
                      std::size_t k_max, std::vector<IVec3>& order, std::vector<float>& worst) const;
  /// Each member to the centre that holds it at the least cost.
  std::vector<std::vector<std::uint32_t>> assign(const std::vector<IVec3>& centres, const std::vector<std::uint32_t>& members) const;
  /// From centres and their groups: moves the centres, reassigns the members, and again, while
  /// the worst protrusion falls. Drops centres left with nothing.
  Split exchange(std::vector<IVec3> centres, std::vector<std::vector<std::uint32_t>> groups) const;
  /// The medial points a node's children may be centred on: those within its sphere,
  /// thinned to a regular subsample.
  std::vector<IVec3> node_candidates(const Vec3& node_centre, double node_radius) const;
  /// Splits the members' bounding box at the middle of its `axes` longest axes (like an
  /// octree cell): up to 2^axes groups.
  std::vector<std::vector<std::uint32_t>> split_by_box(const std::vector<std::uint32_t>& members, int axes) const;
  /// Each group's best centre among `candidates`, then exchange().
  Split split_from_groups(const std::vector<std::vector<std::uint32_t>>& groups, const std::vector<IVec3>& candidates) const;

  const VoxelModel& model_;
  MedialBuildOptions options_;
  ModelDepth depth_;
  std::vector<Vec3> voxels_;        ///< centres of the voxels to cover, voxel units
  std::vector<float> voxel_x_, voxel_y_, voxel_z_;  ///< the same in float
  std::vector<IVec3> medial_;       ///< candidate centres: lattice points on the medial axis
};

void MedialBuilder::find_medial_points() {
  // Away from the medial axis the depth rises at slope 1 towards it (the inscribed ball of p
  // lies inside that of its neighbour q when D(q) >= D(p) + |q - p|). On a lattice the
  // exact test keeps most points; a point is kept where no neighbour is deeper by more than
  // kMedialSlope times its distance, which leaves the ridges of the depth field: few points
  // (a few dozen in a 32^3 rock). They are where children start; the exchanges then move the
  // centres to any lattice point inside the model.
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
              medial = depth(p + IVec3(dx, dy, dz)) < dp + kMedialSlope * step;
            }
        if (medial) medial_.push_back(p);
      }
}

float MedialBuilder::cost(IVec3 p, const std::vector<std::uint32_t>& members) const {
  Points points;
  gather(members, points);
  return cost(p, points);
}

void MedialBuilder::gather(const std::vector<std::uint32_t>& members, Points& out) const {
  out.x.resize(members.size());
  out.y.resize(members.size());
  out.z.resize(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    out.x[i] = voxel_x_[members[i]];
    out.y[i] = voxel_y_[members[i]];
    out.z[i] = voxel_z_[members[i]];
  }
}

float MedialBuilder::cost(IVec3 p, const Points& points, float give_up_above) const {
  // In float, squared, in blocks of 16 that vectorise; the radii the tree keeps are computed
  // in double. Past `give_up_above` the exact value does not matter: stop (points sorted by
  // falling reach make that early).
  const Vec3 c = depth_.point_voxels(p);
  const float cx = static_cast<float>(c.x), cy = static_cast<float>(c.y), cz = static_cast<float>(c.z);
  const float d = static_cast<float>(depth(p));
  const float limit = give_up_above + d;
  const float limit2 = limit > 0 ? limit * limit : 0;
  float r2 = 0;
  const std::size_t n = points.x.size();
  for (std::size_t block = 0; block < n; block += 16) {
    const std::size_t end = std::min(n, block + 16);
    for (std::size_t i = block; i < end; ++i) {
      const float dx = std::abs(cx - points.x[i]) + 0.5f, dy = std::abs(cy - points.y[i]) + 0.5f, dz = std::abs(cz - points.z[i]) + 0.5f;
      r2 = std::max(r2, dx * dx + dy * dy + dz * dz);
    }
    if (limit > 0 && r2 > limit2) return std::sqrt(r2) - d;
  }
  return std::sqrt(r2) - d;
}

IVec3 MedialBuilder::improve_centre(IVec3 p, const std::vector<std::uint32_t>& members, int first_step) const {
  // No longer first steps than a quarter of the group's extent (in lattice points): a small
  // group's best centre is near.
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  for (const std::uint32_t m : members) {
    lo = glm::min(lo, voxels_[m]);
    hi = glm::max(hi, voxels_[m]);
  }
  const Vec3 extent = hi - lo;
  const double extent_lattice = 2 * std::max({extent.x, extent.y, extent.z});
  while (first_step > 1 && first_step * 4 > extent_lattice) first_step /= 2;
  Points all;
  gather(members, all);
  std::vector<float> reach_of(members.size());
  std::vector<std::size_t> active;
  std::vector<std::uint32_t> active_members;
  Points active_points;
  for (int step = first_step; step >= 1; step /= 2) {
    // A move of `step` lattice points changes any reach by at most its length, so only the
    // members within twice that of the farthest can be the farthest after the move: the
    // neighbours' costs need only those, and are still exact. Sorted farthest first, so a
    // worse neighbour is known to be worse after a few.
    const float move = static_cast<float>(0.5 * step * std::sqrt(3.0));
    for (;;) {
      // Squared reaches (float, vectorised); the window compares squares.
      const Vec3 c = depth_.point_voxels(p);
      const float cx = static_cast<float>(c.x), cy = static_cast<float>(c.y), cz = static_cast<float>(c.z);
      float farthest2 = 0;
      for (std::size_t m = 0; m < members.size(); ++m) {
        const float dx = std::abs(cx - all.x[m]) + 0.5f, dy = std::abs(cy - all.y[m]) + 0.5f, dz = std::abs(cz - all.z[m]) + 0.5f;
        reach_of[m] = dx * dx + dy * dy + dz * dz;
        farthest2 = std::max(farthest2, reach_of[m]);
      }
      const float farthest = std::sqrt(farthest2);
      const float window = std::max(0.0f, farthest - 2 * move);
      const float window2 = window * window;
      active.clear();
      for (std::size_t m = 0; m < members.size(); ++m)
        if (reach_of[m] >= window2) active.push_back(m);
      std::sort(active.begin(), active.end(), [&](std::size_t a, std::size_t b) { return reach_of[a] > reach_of[b] || (reach_of[a] == reach_of[b] && a < b); });
      active_members.clear();
      for (const std::size_t m : active) active_members.push_back(members[m]);
      gather(active_members, active_points);
      float best = farthest - static_cast<float>(depth(p));
      IVec3 best_p = p;
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            if (dx == 0 && dy == 0 && dz == 0) continue;
            const IVec3 q = p + step * IVec3(dx, dy, dz);
            if (!inside(q)) continue;
            const float c_q = cost(q, active_points, best);
            if (c_q < best) {
              best = c_q;
              best_p = q;
            }
          }
      if (best_p == p) break;
      p = best_p;
    }
  }
  return p;
}

std::vector<IVec3> MedialBuilder::node_candidates(const Vec3& node_centre, double node_radius) const {
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
  return candidates;
}

std::vector<std::vector<std::uint32_t>> MedialBuilder::split_by_box(const std::vector<std::uint32_t>& members, int axes) const {
  Vec3 lo(std::numeric_limits<double>::infinity()), hi(-std::numeric_limits<double>::infinity());
  for (const std::uint32_t m : members) {
    lo = glm::min(lo, voxels_[m]);
    hi = glm::max(hi, voxels_[m]);
  }
  const Vec3 size = hi - lo, mid = 0.5 * (lo + hi);
  // The axes to split, longest first (ties: x before y before z).
  int order[3] = {0, 1, 2};
  std::stable_sort(order, order + 3, [&](int a, int b) { return size[a] > size[b]; });
  std::vector<std::vector<std::uint32_t>> groups(std::size_t{1} << axes);
  for (const std::uint32_t m : members) {
    std::size_t g = 0;
    for (int a = 0; a < axes; ++a)
      if (voxels_[m][order[a]] > mid[order[a]]) g |= std::size_t{1} << a;
    groups[g].push_back(m);
  }
  std::erase_if(groups, [](const std::vector<std::uint32_t>& g) { return g.empty(); });
  return groups;
}

Split MedialBuilder::split_from_groups(const std::vector<std::vector<std::uint32_t>>& groups, const std::vector<IVec3>& candidates) const {
  std::vector<IVec3> centres;
  for (const std::vector<std::uint32_t>& group : groups) {
    // Ranked on the group's extremes in 26 directions, which stand for its farthest points;
    // improve_centre() then works on every member.
    std::vector<std::uint32_t> extremes;
    for (int dz = -1; dz <= 1; ++dz)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0 && dz == 0) continue;
          const Vec3 dir(dx, dy, dz);
          std::uint32_t best_m = group.front();
          double best_d = -std::numeric_limits<double>::infinity();
          for (const std::uint32_t m : group)
            if (const double d = glm::dot(dir, voxels_[m]); d > best_d) {
              best_d = d;
              best_m = m;
            }
          if (std::find(extremes.begin(), extremes.end(), best_m) == extremes.end()) extremes.push_back(best_m);
        }
    Points extreme_points;
    gather(extremes, extreme_points);
    IVec3 best_p = candidates.front();
    float best = kFloatInfinity;
    const auto consider = [&](IVec3 p) {
      const float c = cost(p, extreme_points);
      if (c < best) {
        best = c;
        best_p = p;
      }
    };
    for (const IVec3& p : candidates) consider(p);
    // Where the medial points are far (a thin limb can have none near), the member voxel
    // nearest the group's centroid is a start inside the model, near what it must hold.
    Vec3 centroid(0.0);
    for (const std::uint32_t m : group) centroid += voxels_[m];
    centroid /= static_cast<double>(group.size());
    std::uint32_t nearest = group.front();
    for (const std::uint32_t m : group)
      if (glm::dot(voxels_[m] - centroid, voxels_[m] - centroid) < glm::dot(voxels_[nearest] - centroid, voxels_[nearest] - centroid)) nearest = m;
    consider(IVec3(glm::round((voxels_[nearest] + 1.0) * 2.0)));
    centres.push_back(best_p);
  }
  return exchange(centres, groups);
}

void MedialBuilder::greedy_centres(const std::vector<std::uint32_t>& members, const std::vector<IVec3>& candidates,
                                   std::size_t k_max, std::vector<IVec3>& order, std::vector<float>& worst) const {
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

std::vector<std::vector<std::uint32_t>> MedialBuilder::assign(const std::vector<IVec3>& centres,
                                                              const std::vector<std::uint32_t>& members) const {
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
  return groups;
}

Split MedialBuilder::exchange(std::vector<IVec3> centres, std::vector<std::vector<std::uint32_t>> groups) const {
  // Alternate: move each centre downhill for its group; keep the split if its worst
  // protrusion fell; reassign every voxel to the centre that holds it at the least cost.
  std::vector<std::uint32_t> members;
  for (const auto& g : groups) members.insert(members.end(), g.begin(), g.end());
  Split split;
  for (int round = 0; round < kExchangeRounds; ++round) {
    std::vector<IVec3> kept;
    std::vector<std::vector<std::uint32_t>> kept_groups;
    for (std::size_t k = 0; k < centres.size(); ++k)
      if (!groups[k].empty()) {
        // A group the reassignment left as it was keeps the centre already moved for it.
        const bool unchanged = round > 0 && k < split.voxels.size() && groups[k] == split.voxels[k];
        kept.push_back(unchanged ? centres[k] : improve_centre(centres[k], groups[k], round == 0 ? 4 : 2));
        kept_groups.push_back(std::move(groups[k]));
      }
    float worst = -kFloatInfinity;
    for (std::size_t k = 0; k < kept.size(); ++k) worst = std::max(worst, cost(kept[k], kept_groups[k]));
    if (worst >= split.worst) break;  // no better than the last round
    split.centres = kept;
    split.voxels = std::move(kept_groups);
    split.worst = worst;
    centres = kept;
    groups = assign(centres, members);
    if (groups == split.voxels) break;  // the same groups: the centres would not move again
  }
  return split;
}

SphereTree MedialBuilder::build() {
  const double s = model_.voxel_size_m();
  SphereTree tree;
  std::vector<std::vector<std::uint32_t>> node_voxels;
  std::vector<IVec3> node_lattice;  // each node's centre on the lattice
  const auto add_node = [&](IVec3 centre, std::vector<std::uint32_t> members, int level) {
    // The radius in double: the farthest corner, raised past rounding (the coverage guarantee
    // rests on it).
    const Vec3 c = depth_.point_voxels(centre);
    double r = 0;
    for (const std::uint32_t m : members) r = std::max(r, glm::length(glm::abs(c - voxels_[m]) + 0.5));
    tree.centre_m.push_back(c * s);
    tree.radius_m.push_back(r * s * (1 + kRadiusRoundUp));
    node_lattice.push_back(centre);
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
    greedy_centres(all, node_candidates(Vec3(0.0), std::numeric_limits<double>::infinity()), 1, order, worst);
    add_node(improve_centre(order[0], all), all, 0);
  }
  tree.level_begin = {0, 1};

  const std::size_t branching = static_cast<std::size_t>(options_.branching);
  int box_axes = 0;  // the most axes a box split may cut with `branching` children
  while (box_axes < 3 && (std::size_t{2} << box_axes) <= branching) ++box_axes;
  for (int level = 0; level < options_.levels; ++level) {
    const std::uint32_t begin = tree.level_begin[static_cast<std::size_t>(level)];
    const std::uint32_t end = tree.level_begin[static_cast<std::size_t>(level) + 1];
    for (std::uint32_t n = begin; n < end; ++n) {
      const std::vector<std::uint32_t> members = node_voxels[n];  // a copy: add_node grows node_voxels
      if (members.size() < 2) continue;  // a single voxel: a leaf
      // Splits to choose from: box splits of 2, 4, 8 (an octree's, on the voxels' box) and
      // greedy k-centre choices, each improved by exchanges. The node's own centre is a
      // candidate for every group, so a box split is never looser than the node itself.
      std::vector<IVec3> candidates = node_candidates(tree.centre_m[n] / s, tree.radius_m[n] / s);
      candidates.push_back(node_lattice[n]);
      std::vector<Split> splits;
      for (int axes = 1; axes <= box_axes; ++axes) splits.push_back(split_from_groups(split_by_box(members, axes), candidates));
      std::vector<IVec3> order;
      std::vector<float> greedy_worst;
      greedy_centres(members, candidates, branching, order, greedy_worst);
      const auto greedy_split = [&](std::size_t k) {
        std::vector<IVec3> centres(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
        std::vector<std::vector<std::uint32_t>> groups = assign(centres, members);
        return exchange(std::move(centres), std::move(groups));
      };
      if (order.size() >= 2) splits.push_back(greedy_split(order.size()));
      std::erase_if(splits, [](const Split& sp) { return sp.centres.size() < 2; });
      if (splits.empty()) continue;
      // The fewest children within kBalanceExcess of the best split's worst protrusion, and
      // no looser than the node itself where the best split is not (a group's centre is
      // chosen on its extremes and moved downhill, so a split can end looser than the node's
      // own centre would be; the best split is always allowed). Fewer greedy centres are tried
      // where their greedy worst promises it.
      float best = kFloatInfinity;
      for (const Split& sp : splits) best = std::min(best, sp.worst);
      const float balanced = std::min(best + kBalanceExcess * std::max(best, 0.0f), cost(node_lattice[n], members));
      const float allowed = std::max(balanced, best) + kCostRounding;
      std::size_t fewest = branching + 1;
      for (const Split& sp : splits)
        if (sp.worst <= allowed) fewest = std::min(fewest, sp.centres.size());
      for (std::size_t k = 2; k + 1 < order.size() && k < fewest; ++k) {
        if (greedy_worst[k - 1] > allowed + kExchangeGain * std::max(allowed, 0.0f)) continue;
        Split fewer = greedy_split(k);
        if (fewer.centres.size() >= 2 && fewer.worst <= allowed) {
          splits.push_back(std::move(fewer));
          break;
        }
      }
      const Split* chosen = nullptr;
      for (const Split& sp : splits)
        if (sp.worst <= allowed && (!chosen || sp.centres.size() < chosen->centres.size() ||
                                    (sp.centres.size() == chosen->centres.size() && sp.worst < chosen->worst)))
          chosen = &sp;
      const auto first = static_cast<std::uint32_t>(tree.size());
      for (std::size_t k = 0; k < chosen->centres.size(); ++k) add_node(chosen->centres[k], chosen->voxels[k], level + 1);
      tree.first_child[n] = first;
      tree.child_count[n] = static_cast<std::uint8_t>(chosen->centres.size());
    }
    if (tree.size() == end) break;
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

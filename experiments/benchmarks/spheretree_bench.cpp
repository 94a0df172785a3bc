// Sphere-tree benchmark, two tables (CSV on stdout, a summary on stderr).
//
// Default: the builders side by side (docs/spheretree.md, "Builders compared"): 004's octree
// tree, the octree with spheres fitted to the voxels they cover, and the medial tree, on the
// five built-in shapes at 32 voxels and a rock at 64, 4 levels, hidden nodes removed. Per
// depth: spheres, the worst protrusion (lattice value and upper bound, voxels and fraction of
// the model's longest side), the mean, and the build time (median of repeated builds).
//
// --rocks: the octree builder's speed, per occupied voxel, on seeded rocks at 16^3, 32^3 and
// 64^3 beside a bare kernel (one pass over the grid reading every cell, the least any
// builder must do).
//
// The machine is shared: compare ratios (builder against builder, build against kernel), not
// absolute times.
//
//   build/bin/fovea_bench_spheretree [--rocks] [--levels N] [--seeds N]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "metrics/exact_voxel_contact.hpp"
#include "narrowphase/collision_model.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sph_file.hpp"
#include "spheretree/tightness.hpp"
#include "spheretree/tree_builder.hpp"
#include "world/model_generators.hpp"

namespace {

/// Median wall time of `f` in milliseconds, over at least `min_runs` runs and about 0.3 s.
template <class F>
double median_ms(F&& f, std::size_t min_runs = 7) {
  std::vector<double> times;
  fovea::Stopwatch total;
  do {
    fovea::Stopwatch one;
    f();
    times.push_back(one.elapsed_ms());
  } while (times.size() < min_runs || (total.elapsed_ms() < 300 && times.size() < 2000));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int rocks(int levels, int seeds) {
  std::printf("resolution,seed,occupied_voxels,spheres,build_ms,build_ns_per_voxel,kernel_ms,build_over_kernel\n");
  for (const int res : {16, 32, 64}) {
    std::vector<double> per_voxel;
    for (int seed = 1; seed <= seeds; ++seed) {
      const fovea::VoxelModel rock = fovea::make_rock({res, res, res}, 1.0 / res, static_cast<std::uint64_t>(seed));
      fovea::SphereTree tree;
      const double build = median_ms([&] { tree = fovea::build_octree_sphere_tree(rock, {levels, true}); });
      volatile std::int64_t sink = 0;
      const double kernel = median_ms([&] {
        std::int64_t n = 0;
        for (int z = 0; z < res; ++z)
          for (int y = 0; y < res; ++y)
            for (int x = 0; x < res; ++x) n += rock.colour_index(x, y, z) != 0;
        sink = sink + n;
      });
      const auto occupied = static_cast<double>(rock.occupied_count());
      per_voxel.push_back(build * 1e6 / occupied);
      std::printf("%d,%d,%.0f,%zu,%.4f,%.1f,%.4f,%.1f\n", res, seed, occupied, tree.size(), build, build * 1e6 / occupied,
                  kernel, build / kernel);
    }
    std::sort(per_voxel.begin(), per_voxel.end());
    std::fprintf(stderr, "%d^3 rocks: median %.1f ns per occupied voxel over %d seeds\n", res,
                 per_voxel[per_voxel.size() / 2], seeds);
  }
  return 0;
}

struct Contender {
  const char* name;
  fovea::SphereTreeBuildOptions options;
};

int builders(int levels) {
  using namespace fovea;
  struct Subject {
    const char* name;
    Shape shape;
    int resolution;
  };
  const Subject subjects[] = {{"ball", Shape::ball, 32},       {"box", Shape::box, 32},
                              {"rock", Shape::rock, 32},       {"l_shape", Shape::l_shape, 32},
                              {"humanoid", Shape::humanoid, 32}, {"rock", Shape::rock, 64}};
  std::vector<Contender> contenders = {{"octree", {}}, {"octree_fit", {}}, {"medial", {}}};
  for (Contender& c : contenders) c.options.levels = levels;
  contenders[1].options.fit = SphereFit::voxels;
  contenders[2].options.builder = SphereTreeBuilder::medial;

  std::printf("model,resolution,builder,build_ms,depth,spheres,max_voxels,max_upper_voxels,mean_voxels,"
              "max_fraction_of_side,max_upper_fraction_of_side,longest_side_voxels\n");
  for (const Subject& subject : subjects) {
    ModelSettings settings;
    settings.shape = subject.shape;
    settings.resolution_voxels = subject.resolution;
    settings.size_m = 1.0;
    const VoxelModel model = make_model(settings, 1);
    for (const Contender& c : contenders) {
      SphereTree tree;
      const double build = median_ms([&] { tree = build_sphere_tree(model, c.options).tree; }, 5);
      const TightnessReport report = measure_tightness(model, tree);
      std::fprintf(stderr, "%s %d %-10s %8.3f ms:", subject.name, subject.resolution, c.name, build);
      for (const LevelTightness& l : report.levels) {
        std::printf("%s,%d,%s,%.4f,%d,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.0f\n", subject.name, subject.resolution, c.name, build,
                    l.depth, l.spheres, l.max_distance_voxels, l.max_upper_bound_voxels, l.mean_distance_voxels,
                    l.max_fraction_of_side, l.max_upper_fraction_of_side, report.longest_side_voxels);
        std::fprintf(stderr, "  L%d %zu/%.3f", l.depth, l.spheres, l.max_fraction_of_side);
      }
      std::fprintf(stderr, "\n");
    }
  }
  return 0;
}

/// What the roots do to a pair the broad phase hands over: packed500's rocks (12^3 voxels,
/// 0.6 m, 8 shapes) posed at random, turned at random, their fixed-size cubes overlapping.
/// Per builder, on the same pairs: the share whose roots intersect (each needs the first
/// level's tests), the children the first level brings in per pair, and the gap bound the
/// roots give (centre distance plus the centres' slack, narrowphase/collision_model.hpp)
/// against the exact separation of the voxels (0 for touching pairs), means over all pairs.
int pairs(int count) {
  using namespace fovea;
  std::vector<VoxelModel> rocks;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) rocks.push_back(make_rock({12, 12, 12}, 0.6 / 12, seed));
  std::vector<Vec3> centre;     // each rock's pose origin: its occupied box's centre, model space
  std::vector<double> reach_m;  // the farthest voxel corner from it
  std::vector<ExactVoxelShape> exact;
  for (const VoxelModel& rock : rocks) {
    centre.push_back(model_bounds_centre_m(rock));
    reach_m.push_back(rock.farthest_voxel_corner_m(centre.back()));
    exact.emplace_back(rock, centre.back());
  }
  std::vector<Contender> contenders = {{"octree", {}}, {"octree_fit", {}}, {"medial", {}}};
  contenders[1].options.fit = SphereFit::voxels;
  contenders[2].options.builder = SphereTreeBuilder::medial;
  std::printf("builder,pairs,roots_intersect_share,first_level_spheres_per_pair,root_gap_bound_mm_mean,"
              "true_gap_mm_mean,bound_over_true_mm_mean\n");
  for (const Contender& c : contenders) {
    std::vector<SphereTree> trees;
    std::vector<double> slack_m;
    for (const VoxelModel& rock : rocks) {
      trees.push_back(build_sphere_tree(rock, c.options).tree);
      slack_m.push_back(distance_to_voxels_m(rock, trees.back().centre_m[0]));
    }
    Rng rng(2024);  // the same poses for every builder
    std::int64_t intersecting = 0, first_level = 0;
    double root_gap_sum = 0, true_gap_sum = 0;
    for (int i = 0; i < count; ++i) {
      const std::size_t a = rng.below(8), b = rng.below(8);
      const ExactPose pa{Vec3(0.0), rng.rotation()};
      // Fixed-size cubes of side 2 reach overlap when the centres are nearer than that on
      // every axis.
      const double side = reach_m[a] + reach_m[b];
      const ExactPose pb{Vec3(rng.uniform(-side, side), rng.uniform(-side, side), rng.uniform(-side, side)), rng.rotation()};
      const Vec3 root_a = pa.position_m + pa.orientation * (trees[a].centre_m[0] - centre[a]);
      const Vec3 root_b = pb.position_m + pb.orientation * (trees[b].centre_m[0] - centre[b]);
      const double distance = glm::length(root_b - root_a);
      root_gap_sum += distance + slack_m[a] + slack_m[b];
      true_gap_sum += exact_contact(exact[a], pa, exact[b], pb).separation_m;
      if (distance > trees[a].radius_m[0] + trees[b].radius_m[0]) continue;  // resolved at the roots
      ++intersecting;
      first_level += trees[a].child_count[0] + trees[b].child_count[0];
    }
    const double n = count;
    std::printf("%s,%d,%.4f,%.3f,%.2f,%.2f,%.2f\n", c.name, count, static_cast<double>(intersecting) / n,
                static_cast<double>(first_level) / n, 1000 * root_gap_sum / n, 1000 * true_gap_sum / n,
                1000 * (root_gap_sum - true_gap_sum) / n);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int levels = 4, seeds = 5;
  bool rock_speed = false;
  int pair_count = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf(
          "usage: fovea_bench_spheretree [--rocks | --pairs N] [--levels N] [--seeds N]\n"
          "  (default)    the builders side by side: 004's octree, the octree with fitted spheres\n"
          "               (sphere_tree.fit: voxels) and the medial tree, on the five built-in shapes\n"
          "               at 32 voxels and a rock at 64: per depth, spheres, worst protrusion (lattice\n"
          "               value and upper bound, voxels and fraction of the longest side), mean, build ms\n"
          "  --rocks      the octree builder's time per occupied voxel on seeded rocks at 16, 32, 64\n"
          "  --pairs N    N random pairs of packed500's rocks whose broad-phase cubes overlap: per builder,\n"
          "               the share whose roots intersect, the first level's spheres, the roots' gap\n"
          "  --levels N   levels below the root (4)\n"
          "  --seeds N    rocks per size with --rocks (5)\n"
          "CSV on stdout, a summary on stderr; docs/spheretree.md reads them.\n");
      return 0;
    }
    if (std::strcmp(argv[i], "--rocks") == 0) rock_speed = true;
    else if (i + 1 < argc && std::strcmp(argv[i], "--pairs") == 0) pair_count = std::atoi(argv[++i]);
    else if (i + 1 < argc && std::strcmp(argv[i], "--levels") == 0) levels = std::atoi(argv[++i]);
    else if (i + 1 < argc && std::strcmp(argv[i], "--seeds") == 0) seeds = std::atoi(argv[++i]);
  }
  if (pair_count > 0) return pairs(pair_count);
  return rock_speed ? rocks(levels, seeds) : builders(levels);
}

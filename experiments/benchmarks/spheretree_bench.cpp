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

#include "core/stopwatch.hpp"
#include "spheretree/octree_builder.hpp"
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

}  // namespace

int main(int argc, char** argv) {
  int levels = 4, seeds = 5;
  bool rock_speed = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf(
          "usage: fovea_bench_spheretree [--rocks] [--levels N] [--seeds N]\n"
          "  (default)    the builders side by side: 004's octree, the octree with fitted spheres\n"
          "               (sphere_tree.fit: voxels) and the medial tree, on the five built-in shapes\n"
          "               at 32 voxels and a rock at 64: per depth, spheres, worst protrusion (lattice\n"
          "               value and upper bound, voxels and fraction of the longest side), mean, build ms\n"
          "  --rocks      the octree builder's time per occupied voxel on seeded rocks at 16, 32, 64\n"
          "  --levels N   levels below the root (4)\n"
          "  --seeds N    rocks per size with --rocks (5)\n"
          "CSV on stdout, a summary on stderr; docs/spheretree.md reads them.\n");
      return 0;
    }
    if (std::strcmp(argv[i], "--rocks") == 0) rock_speed = true;
    else if (i + 1 < argc && std::strcmp(argv[i], "--levels") == 0) levels = std::atoi(argv[++i]);
    else if (i + 1 < argc && std::strcmp(argv[i], "--seeds") == 0) seeds = std::atoi(argv[++i]);
  }
  return rock_speed ? rocks(levels, seeds) : builders(levels);
}

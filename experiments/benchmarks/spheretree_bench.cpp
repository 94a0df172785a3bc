// Sphere-tree build benchmark: octree trees of seeded rocks at 16^3, 32^3 and 64^3, the
// build time per occupied voxel beside a bare kernel (one pass over the grid reading every
// cell, the least any builder must do), as CSV on stdout. Times are medians of repeated
// builds; the machine is shared, so compare the ratios, not the absolute figures.
//
//   build/bin/fovea_bench_spheretree [--levels N] [--seeds N]

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/stopwatch.hpp"
#include "spheretree/octree_builder.hpp"
#include "world/model_generators.hpp"

namespace {

/// Median wall time of `f` in milliseconds, over at least 7 runs and about 0.3 s.
template <class F>
double median_ms(F&& f) {
  std::vector<double> times;
  fovea::Stopwatch total;
  do {
    fovea::Stopwatch one;
    f();
    times.push_back(one.elapsed_ms());
  } while (times.size() < 7 || (total.elapsed_ms() < 300 && times.size() < 2000));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int levels = 4, seeds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--levels") == 0) levels = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--seeds") == 0) seeds = std::atoi(argv[i + 1]);
  }
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

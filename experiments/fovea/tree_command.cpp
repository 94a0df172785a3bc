#include "fovea/tree_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <iostream>
#include <sstream>
#include <vector>

#include "config/config.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "fovea/run_command.hpp"
#include "record/results_folder.hpp"
#include "spheretree/octree_builder.hpp"
#include "spheretree/sph_file.hpp"
#include "spheretree/surface_mesh.hpp"
#include "spheretree/tightness.hpp"
#include "spheretree/tree_builder.hpp"
#include "spheretree/vox_file.hpp"
#include "frame/animation.hpp"
#include "world/model_generators.hpp"

namespace fovea {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// A tree read from a group's sphere_tree.file, as the run uses it, and what inflate grew.
struct FileTree {
  SphereTree tree;
  std::optional<InflationReport> inflation;
};

/// The model of group `o.group`, variant `o.variant`, of a config's world: exactly the model
/// (and tree settings) a run of that config uses.
bool load_config_model(const TreeOptions& o, VoxelModel& model, SphereTreeBuildOptions& build,
                       std::optional<FileTree>& file_tree, std::string& description) {
  if (o.model_options_given) {
    std::cerr << "fovea tree: " << o.model << ": the config describes the model and its tree; leave out --builder, "
                 "--levels, --fit, --branching, --resolution, --size, --seed, --model-index and --keep-hidden\n";
    return false;
  }
  config::LoadedConfig loaded;
  try {
    loaded = config::load_config_file(o.model);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  const std::unique_ptr<Animation> world = build_world(loaded);
  if (!world) return false;
  const auto& groups = loaded.settings.world.entities;
  if (o.group < 0 || static_cast<std::size_t>(o.group) >= groups.size()) {
    std::cerr << "fovea tree: " << o.model << " has " << groups.size() << " entity groups, no --group " << o.group << "\n";
    return false;
  }
  std::vector<ModelId> variants;
  for (const Entity& e : world->entities())
    if (e.group == static_cast<std::uint32_t>(o.group) && std::find(variants.begin(), variants.end(), e.model) == variants.end())
      variants.push_back(e.model);
  if (o.variant < 0 || static_cast<std::size_t>(o.variant) >= variants.size()) {
    std::cerr << "fovea tree: group " << o.group << " of " << o.model << " has " << variants.size()
              << " model variants, no --variant " << o.variant << "\n";
    return false;
  }
  const ModelId id = variants[static_cast<std::size_t>(o.variant)];
  model = world->models()[id];
  const SphereTreeSettings& trees = groups[static_cast<std::size_t>(o.group)].sphere_tree;
  build = tree_build_options(trees);
  if (!trees.file.empty()) {
    file_tree = FileTree{world->model_library().trees()[id], std::nullopt};  // the file's tree, as the run uses it
    for (const TreeInflation& inflation : world->model_library().inflations())
      if (inflation.model == id) file_tree->inflation = inflation.report;
  }
  description = o.model + " group " + std::to_string(o.group) + " ('" + groups[static_cast<std::size_t>(o.group)].name +
                "') variant " + std::to_string(o.variant);
  return true;
}

/// The model the command names, or an error message.
bool load_model(const TreeOptions& o, VoxelModel& model, std::string& description) {
  for (const auto& [shape, name, help] : kModelShapes) {
    if (shape == Shape::file || o.model != name) continue;
    ModelSettings settings;
    settings.shape = shape;
    settings.resolution_voxels = o.resolution_voxels;
    settings.size_m = o.size_m;
    model = make_model(settings, static_cast<std::uint64_t>(o.seed));
    description = o.model + (shape == Shape::rock ? " (seed " + std::to_string(o.seed) + ")" : "");
    return true;
  }
  if (!ends_with(o.model, ".vox")) {
    std::cerr << "fovea tree: " << o.model
              << ": not a built-in shape (ball, box, rock, l_shape, humanoid), a .vox file or a .yaml config\n";
    return false;
  }
  std::vector<VoxelModel> models;
  try {
    models = read_vox_file(o.model);
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  if (static_cast<std::size_t>(o.model_index) >= models.size()) {
    std::cerr << o.model << ": holds " << models.size() << " models, no --model-index " << o.model_index << "\n";
    return false;
  }
  model = std::move(models[static_cast<std::size_t>(o.model_index)]);
  const IVec3 d = model.dims();
  model.set_voxel_size_m(o.size_m / std::max({d.x, d.y, d.z}));
  description = o.model + (models.size() > 1 ? " model " + std::to_string(o.model_index) : "");
  return true;
}

/// Writes an export made in memory by `write`, atomically: a failed export leaves no file.
template <class Write>
bool export_file(const std::string& path, Write&& write) {
  std::ostringstream text;
  try {
    write(text);
  } catch (const std::exception& e) {
    std::cerr << "fovea tree: " << path << ": " << e.what() << "\n";
    return false;
  }
  try {
    write_file_atomically(path, text.str());
  } catch (const std::exception& e) {
    std::cerr << "fovea tree: " << e.what() << "\n";  // names the file and the OS's reason
    return false;
  }
  return true;
}

/// The build options the command line asks for.
SphereTreeBuildOptions command_line_build(const TreeOptions& o) {
  SphereTreeBuildOptions build;
  build.builder = o.builder == "medial"     ? SphereTreeBuilder::medial
                  : o.builder == "tightest" ? SphereTreeBuilder::tightest
                                            : SphereTreeBuilder::octree;
  build.levels = o.levels;
  build.remove_hidden = !o.keep_hidden;
  build.fit = o.fit == "voxels" ? SphereFit::voxels : SphereFit::cell;
  build.branching = o.branching;
  return build;
}

/// Which builder made the tree, with the option that shaped it: "octree (fit cell)",
/// "medial (branching 8)", "tightest kept the medial tree (branching 8)".
std::string builder_text(const SphereTreeBuildOptions& build, SphereTreeBuilder used) {
  const std::string shaped_by = used == SphereTreeBuilder::medial
                                    ? "branching " + std::to_string(build.branching)
                                    : "fit " + std::string(sphere_fit_name(build.fit));
  const std::string name(sphere_tree_builder_name(used));
  if (build.builder == SphereTreeBuilder::tightest) return "tightest kept the " + name + " tree (" + shaped_by + ")";
  return name + " (" + shaped_by + ")";
}

}  // namespace

int tree_command(const TreeOptions& o) {
  VoxelModel model;
  std::string description;
  SphereTreeBuildOptions build = command_line_build(o);
  std::optional<FileTree> file_tree;
  const bool from_config = ends_with(o.model, ".yaml") || ends_with(o.model, ".yml");
  if (!(from_config ? load_config_model(o, model, build, file_tree, description) : load_model(o, model, description)))
    return kExitBadInput;
  if (model.occupied_count() == 0) {
    std::cerr << "fovea tree: " << description << " has no occupied voxel\n";
    return kExitBadInput;
  }
  // Each export's place, before the builds and the table: an export that cannot be written
  // is said now, not after the table.
  for (const std::string& path : {o.export_obj, o.export_sph, o.export_vox}) {
    if (path.empty()) continue;
    if (const std::string problem = file_write_problem(path); !problem.empty()) {
      std::cerr << "fovea tree: " << path << ": cannot write: " << problem << "\n";
      return kExitFailure;
    }
  }

  // Build time: the median of repeated builds (at least 5, about 0.2 s in all), as one build
  // of a small model is too short to time alone.
  // A tree read from a .sph file (a config's sphere_tree.file) is shown as it is; no build.
  std::vector<double> times_ms;
  SphereTree tree;
  SphereTreeBuilder used = SphereTreeBuilder::octree;
  Stopwatch total;
  if (file_tree) {
    tree = file_tree->tree;
  } else {
    do {
      Stopwatch one;
      BuiltSphereTree built = build_sphere_tree(model, build);
      times_ms.push_back(one.elapsed_ms());
      tree = std::move(built.tree);
      used = built.used;
    } while (times_ms.size() < 5 || (total.elapsed_ms() < 200 && times_ms.size() < 1000));
    std::sort(times_ms.begin(), times_ms.end());
  }
  const double build_ms = times_ms.empty() ? 0 : times_ms[times_ms.size() / 2];

  // Tightness needs a lattice of the model's size; past its budget the rest still stands.
  TightnessReport report;
  std::string not_measured;
  try {
    report = measure_tightness(model, tree);
  } catch (const std::exception& e) {
    not_measured = e.what();
  }
  const std::int64_t occupied = model.occupied_count();
  const auto surface_mask = surface_voxel_mask(model);
  const auto surface = std::count(surface_mask.begin(), surface_mask.end(), std::uint8_t{1});
  const IVec3 d = model.dims();

  if (o.csv && !not_measured.empty()) std::cerr << "fovea tree: tightness not measured: " << not_measured << "\n";
  if (o.csv) {
    // New columns go at the end, so scripts reading the first ones by position keep working.
    std::cout << "depth,spheres,max_distance_voxels,mean_distance_voxels,max_fraction_of_root,mean_fraction_of_root,"
                 "max_fraction_of_side,max_upper_bound_voxels,max_upper_fraction_of_side\n";
    for (const auto& l : report.levels)
      std::cout << l.depth << ',' << l.spheres << ',' << format_number(l.max_distance_voxels) << ','
                << format_number(l.mean_distance_voxels) << ',' << format_number(l.max_fraction_of_root) << ','
                << format_number(l.mean_fraction_of_root) << ',' << format_number(l.max_fraction_of_side) << ','
                << format_number(l.max_upper_bound_voxels) << ',' << format_number(l.max_upper_fraction_of_side) << '\n';
  } else {
    std::printf("model: %s, %d x %d x %d voxels of %s m, %lld occupied, %lld on the surface\n", description.c_str(), d.x,
                d.y, d.z, format_significant(model.voxel_size_m()).c_str(), static_cast<long long>(occupied),
                static_cast<long long>(surface));
    if (file_tree) {
      std::printf("tree: %d levels below the root, %zu spheres, read from the group's sphere_tree.file", tree.height(),
                  tree.size());
      if (file_tree->inflation) {
        const InflationReport& r = *file_tree->inflation;
        std::printf(", inflated: %zu spheres grown", r.grown);
        if (r.grown > 0)
          std::printf(" by at most %s m and %s %% of a radius", format_significant(r.max_growth_m).c_str(),
                      format_significant(100 * r.max_growth_fraction).c_str());
      }
      std::printf("\n");
    } else {
      std::printf("tree: %s, %d levels below the root (%d asked), %zu spheres, hidden nodes %s\n",
                  builder_text(build, used).c_str(), tree.height(), build.levels, tree.size(),
                  build.remove_hidden ? "removed" : "kept");
      std::printf("build: %.4g ms (median of %zu), %.3g ns per occupied voxel\n", build_ms, times_ms.size(),
                  build_ms * 1e6 / static_cast<double>(occupied));
    }
    if (!not_measured.empty()) std::printf("tightness: not measured: %s\n", not_measured.c_str());
    else
      std::printf("tightness: one-sided Hausdorff distance from each depth's spheres to the model,\n"
                  "sampled exactly on a lattice of 1/%d voxel (docs/spheretree.md)\n",
                  static_cast<int>(std::lround(1 / report.lattice_spacing_voxels)));
    if (not_measured.empty())
      std::printf("%5s %8s %10s %10s %10s %10s %10s %10s\n", "depth", "spheres", "max_vox", "mean_vox", "max/root",
                  "mean/root", "max/side", "upper/side");
    for (const auto& l : report.levels)
      std::printf("%5d %8zu %10.3f %10.3f %10.4f %10.4f %10.4f %10.4f\n", l.depth, l.spheres, l.max_distance_voxels,
                  l.mean_distance_voxels, l.max_fraction_of_root, l.mean_fraction_of_root, l.max_fraction_of_side,
                  l.max_upper_fraction_of_side);
  }

  bool ok = true;
  if (!o.export_obj.empty())
    ok &= export_file(o.export_obj, [&](std::ostream& out) {
      write_obj(out, voxel_surface_mesh(model), "fovea: " + description + ", exposed voxel faces, model space");
    });
  if (!o.export_sph.empty())
    ok &= export_file(o.export_sph, [&](std::ostream& out) { write_sph(out, tree, model_bounds_centre_m(model)); });
  if (!o.export_vox.empty())
    ok &= export_file(o.export_vox, [&](std::ostream& out) { write_vox(out, std::span(&model, 1)); });
  return ok && (o.csv ? not_measured.empty() : true) ? kExitOk : kExitFailure;
}

void register_tree_command(CLI::App& app, CommandContext& context) {
  const auto o = std::make_shared<TreeOptions>();
  CLI::App* tree = app.add_subcommand(
      "tree", "Build a model's sphere tree; print per depth its spheres and tightness, and the build time");
  tree->add_option("model", o->model,
                   "a built-in shape (ball, box, rock, l_shape, humanoid), a .vox file, or a config (.yaml) "
                   "with --group and --variant")
      ->required();
  tree->add_option("--group", o->group, "with a config: the entity group, from 0 (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_option("--variant", o->variant, "with a config: the group's model variant, from 0 (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_option("--builder", o->builder,
                   "octree (004's), medial (spheres on the medial axis) or tightest (both, the tighter kept) "
                   "(default octree)")
      ->check(CLI::IsMember({"octree", "medial", "tightest"}));
  tree->add_option("--levels", o->levels, "levels of spheres below the root (default 4)")->check(CLI::Range(0, 16));
  tree->add_option("--fit", o->fit,
                   "octree spheres: cell (004's, around the occupied box of each cell) or voxels (the smallest "
                   "around the voxels each node covers) (default cell)")
      ->check(CLI::IsMember({"cell", "voxels"}));
  tree->add_option("--branching", o->branching, "most children per node of a medial tree, 2 to 8 (default 8)")
      ->check(CLI::Range(2, 8));
  tree->add_option("--resolution", o->resolution_voxels, "voxels along the longest side, built-in shapes (default 32)")
      ->check(CLI::Range(1, 256));
  tree->add_option("--size", o->size_m, "length of the longest side in metres (default 1)")
      ->check(CLI::Range(1e-6, 1e6));
  tree->add_option("--seed", o->seed, "seed of a rock's shape (default 1)")->check(CLI::NonNegativeNumber);
  tree->add_option("--model-index", o->model_index, "which model of a .vox file holding several (default 0)")
      ->check(CLI::NonNegativeNumber);
  tree->add_flag("--keep-hidden", o->keep_hidden,
                 "keep nodes hidden on all six sides (004 removes them; a config says it per group)");
  tree->add_option("--export-obj", o->export_obj, "write the model's surface as a Wavefront .obj");
  tree->add_option("--export-sph", o->export_sph, "write the tree as a Sphere-Tree Construction Toolkit .sph");
  tree->add_option("--export-vox", o->export_vox, "write the model as a MagicaVoxel .vox");
  tree->add_flag("--csv", o->csv, "print the per-depth table as CSV only");
  tree->callback([o, tree, &context] {
    for (const char* option : {"--builder", "--levels", "--fit", "--branching", "--resolution", "--size", "--seed",
                               "--model-index", "--keep-hidden"})
      o->model_options_given = o->model_options_given || tree->count(option) > 0;
    context.exit_status = tree_command(*o);
  });
}

}  // namespace fovea

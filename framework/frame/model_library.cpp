#include "frame/model_library.hpp"

#include <algorithm>
#include <cmath>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "core/stopwatch.hpp"
#include "spheretree/sph_file.hpp"
#include "spheretree/vox_file.hpp"
#include "world/entity_bounds.hpp"
#include "world/mass_properties.hpp"
#include "world/model_generators.hpp"

namespace fovea {
namespace {

/// Seed of variant `variant` of group `group`'s model: its own stream, so groups and
/// variants get unrelated shapes that do not change when other groups are added.
std::uint64_t model_seed(std::uint64_t seed, std::uint32_t group, int variant) {
  Rng rng(seed, rng_stream(RngStream::model_shapes, (std::uint64_t{group} << 16) | static_cast<std::uint64_t>(variant)));
  return rng.next_u64();
}

}  // namespace

SphereTreeBuildOptions tree_build_options(const SphereTreeSettings& trees) {
  SphereTreeBuildOptions options;
  options.builder = trees.builder;
  options.levels = trees.levels;
  options.remove_hidden = trees.remove_hidden;
  options.fit = trees.fit;
  options.branching = trees.branching;
  return options;
}

std::string_view tree_source_name(TreeSource source) {
  switch (source) {
    case TreeSource::octree: return sphere_tree_builder_name(SphereTreeBuilder::octree);
    case TreeSource::medial: return sphere_tree_builder_name(SphereTreeBuilder::medial);
    case TreeSource::file: return "file";
  }
  return "?";
}

bool grows_tree_on_demand(const EntityGroupSettings& group, ModelLifetime lifetime, bool reads_tree_file) {
  const bool from_file = reads_tree_file && !group.sphere_tree.file.empty();
  return !from_file && (group.sphere_tree.on_demand || lifetime == ModelLifetime::released_when_unused);
}

ModelLibrary::ModelLibrary(std::vector<EntityGroupSettings> groups) : groups_(std::move(groups)) {
  for (const EntityGroupSettings& group : groups_)
    if (grows_tree_on_demand(group, ModelLifetime::kept, true)) grows_trees_on_demand_ = true;
}

std::vector<std::vector<ModelId>> ModelLibrary::install_groups(std::uint64_t seed, std::vector<InstalledModel>& installed) {
  // One model per (group, variant), shared by the group's entities, with its sphere tree.
  // Only rocks are seeded, so other shapes build one model whatever `variants` says. The
  // voxel budget is checked before anything is built.
  std::vector<int> variants(groups_.size(), 0);
  std::int64_t total_cells = 0;
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    const EntityGroupSettings& group = groups_[g];
    if (group.count == 0) continue;
    variants[g] = group.model.shape == Shape::rock ? std::min(group.model.variants, group.count) : 1;
    if (group.model.shape == Shape::file) continue;  // bounded by the .vox reader, counted when read
    const IVec3 dims = model_dims(group.model.shape, group.model.resolution_voxels, group.model.aspect);
    const std::int64_t cells = std::int64_t{dims.x} * dims.y * dims.z;
    total_cells += cells * variants[g];
    if (total_cells > kMaxModelVoxelCells)
      throw ModelError(g, variants[g] > 1 ? "model.variants" : "model.resolution_voxels",
                       "the models need " + std::to_string(total_cells) + " voxel cells up to this group (" +
                           std::to_string(cells) + " per model x " + std::to_string(variants[g]) +
                           (variants[g] == 1 ? " variant" : " variants") + " here), more than the " +
                           std::to_string(kMaxModelVoxelCells) + " allowed; lower resolution_voxels or variants");
  }

  std::vector<std::vector<ModelId>> ids(groups_.size());
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    const EntityGroupSettings& group = groups_[g];
    for (int v = 0; v < variants[g]; ++v) {
      VoxelModel model = group.model.shape == Shape::file ? read_file_model(g) : make_model(group.model, model_seed(seed, g, v));
      if (group.model.shape == Shape::file) {
        const IVec3 d = model.dims();
        total_cells += std::int64_t{d.x} * d.y * d.z;
        if (total_cells > kMaxModelVoxelCells)
          throw ModelError(g, "model.file", "with this file's model the world's models need more than " +
                                                std::to_string(kMaxModelVoxelCells) + " voxel cells");
      }
      if (!group.sphere_tree.file.empty() && variants[g] > 1)
        throw ModelError(g, "sphere_tree.file", "one tree file cannot fit " + std::to_string(variants[g]) +
                                                    " different rock shapes; set model.variants: 1");
      installed.push_back(install(std::move(model), g, ModelLifetime::kept, true, 0));
      ids[g].push_back(installed.back().id);
    }
  }
  return ids;
}

InstalledModel ModelLibrary::install(VoxelModel model, std::uint32_t g, ModelLifetime lifetime, bool read_tree_file,
                                     std::int64_t frame) {
  const EntityGroupSettings& group = groups_[g];
  if (model.occupied_count() == 0) throw ModelError(g, "model.file", "the model has no occupied voxel");
  const MassProperties props = compute_mass_properties(model, group.material.density_kgpm3);
  const bool isotropic = is_isotropic(props.inertia_kgm2);
  const Mat3 inverse = inverse_inertia(props.inertia_kgm2);
  // The config's ranges keep these finite; this guards the arithmetic all the same.
  bool finite = std::isfinite(props.mass_kg) && props.mass_kg > 0 && std::isfinite(props.bounding_radius_m);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) finite = finite && std::isfinite(props.inertia_kgm2[i][j]) && std::isfinite(inverse[i][j]);
  if (!finite)
    throw ModelError(g, "model.size_m", "mass and inertia are not representable in double precision at this size and density");

  InstalledModel installed;
  ModelId& id = installed.id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<ModelId>(models_.size());
    models_.emplace_back();
    trees_.emplace_back();
    tree_sources_.push_back(TreeSource::octree);
    hull_points_.emplace_back();
    prototypes_.emplace_back();
    users_.push_back(0);
    lifetimes_.push_back(lifetime);
    generations_.push_back(0);
    in_use_.push_back(0);
  }
  lifetimes_[id] = lifetime;
  ++generations_[id];
  in_use_[id] = 1;
  users_[id] = 0;

  Entity& e = prototypes_[id];
  e = Entity{};
  e.model = id;
  e.group = g;
  e.is_static = group.is_static;
  e.bounds = resolve_bounds(group.bounds, model);
  hull_points_[id] = e.bounds == BoundsKind::dynamic ? fovea::hull_points(model, props.centre_of_mass_m) : std::vector<Vec3>{};
  e.material = group.material;
  e.mass_kg = props.mass_kg;
  e.centre_of_mass_model_m = props.centre_of_mass_m;
  e.inertia_body_kgm2 = props.inertia_kgm2;
  e.isotropic_inertia = isotropic;
  e.bounding_radius_m = props.bounding_radius_m;
  if (!group.is_static) {
    e.inverse_mass_per_kg = 1.0 / props.mass_kg;
    e.inverse_inertia_body = inverse;
  }

  // The tree: the group's file, built whole, or grown on demand. Growth makes octree trees
  // only: a group of another builder gets octree trees for its fragments (the config refuses
  // on_demand with another builder).
  Stopwatch tree_clock;
  if (grows_tree_on_demand(group, lifetime, read_tree_file)) {
    installed.grower = std::make_unique<TreeGrower>(model, octree_build_options(tree_build_options(group.sphere_tree)),
                                                    props.centre_of_mass_m, props.bounding_radius_m,
                                                    installed.collision_model);
    installed.grower->set_frame(frame);
    installed.grower->set_evict_after_frames(group.sphere_tree.evict_after_frames);
    trees_[id] = SphereTree{};
    tree_sources_[id] = TreeSource::octree;
    grows_trees_on_demand_ = true;
  } else {
    trees_[id] = read_tree_file ? read_or_build_tree(g, id, model) : build_tree(g, id, model);
    installed.collision_model =
        make_collision_model(trees_[id], model, props.centre_of_mass_m, props.bounding_radius_m);
  }
  if (frame == 0) build_ms_ += tree_clock.elapsed_ms();
  models_[id] = std::move(model);
  return installed;
}

void ModelLibrary::expect(std::uint32_t group, ModelLifetime lifetime) {
  if (grows_tree_on_demand(groups_[group], lifetime, false)) grows_trees_on_demand_ = true;
}

void ModelLibrary::remove_user(ModelId model) {
  if (--users_[model] == 0 && lifetimes_[model] == ModelLifetime::released_when_unused) to_check_.push_back(model);
}

std::span<const ModelId> ModelLibrary::release_unused() {
  released_.clear();
  for (const ModelId m : to_check_) {
    if (!in_use_[m] || users_[m] != 0) continue;  // listed twice, or spawned from again
    models_[m] = VoxelModel{};
    trees_[m] = SphereTree{};
    tree_sources_[m] = TreeSource::octree;
    hull_points_[m] = {};
    in_use_[m] = 0;
    free_.push_back(m);
    released_.push_back(m);
  }
  to_check_.clear();
  return released_;
}

VoxelModel ModelLibrary::read_file_model(std::uint32_t g) const {
  const EntityGroupSettings& group = groups_[g];
  std::vector<VoxelModel> models;
  try {
    models = read_vox_file(group.model.file);
  } catch (const std::exception& e) {
    throw ModelError(g, "model.file", e.what());
  }
  const auto index = static_cast<std::size_t>(group.model.file_model);
  if (index >= models.size())
    throw ModelError(g, "model.file_model", group.model.file + " holds " + std::to_string(models.size()) +
                                                (models.size() == 1 ? " model" : " models") + ", numbered from 0");
  VoxelModel model = std::move(models[index]);
  // A file has no unit: its longest side measures size_m, as for built-in shapes.
  const IVec3 d = model.dims();
  model.set_voxel_size_m(group.model.size_m / std::max({d.x, d.y, d.z}));
  return model;
}

SphereTree ModelLibrary::build_tree(std::uint32_t g, ModelId id, const VoxelModel& model) {
  BuiltSphereTree built = build_sphere_tree(model, tree_build_options(groups_[g].sphere_tree));
  tree_sources_[id] = built.used == SphereTreeBuilder::medial ? TreeSource::medial : TreeSource::octree;
  return std::move(built.tree);
}

SphereTree ModelLibrary::read_or_build_tree(std::uint32_t g, ModelId id, const VoxelModel& model) {
  const EntityGroupSettings& group = groups_[g];
  if (group.sphere_tree.file.empty()) return build_tree(g, id, model);
  SphereTree tree;
  try {
    tree = read_sph_file(group.sphere_tree.file, model_bounds_centre_m(model));
  } catch (const std::exception& e) {
    throw ModelError(g, "sphere_tree.file", e.what());
  }
  const std::string problem = tree.check_layout();
  if (!problem.empty()) throw ModelError(g, "sphere_tree.file", group.sphere_tree.file + ": " + problem);
  tree_sources_[id] = TreeSource::file;
  if (group.sphere_tree.inflate) {
    InflatedSphereTree inflated = inflate_sphere_tree(tree, model, group.sphere_tree.remove_hidden);
    inflations_.push_back({g, id, inflated.report});
    return std::move(inflated.tree);
  }
  // A tree made for another model, or at another size, would silently miss collisions: its
  // root must at least hold every occupied voxel (a relative 1e-6 for the file's rounding).
  const double farthest_m = model.farthest_voxel_corner_m(tree.centre_m[0]);
  if (farthest_m > tree.radius_m[0] * (1 + 1e-6))
    throw ModelError(g, "sphere_tree.file",
                     group.sphere_tree.file + ": its root sphere (radius " + format_significant(tree.radius_m[0]) +
                         " m) does not hold the model, which reaches " + format_significant(farthest_m) +
                         " m from its centre; was the tree made for this model at this model.size_m? If it misses by "
                         "a little, sphere_tree.inflate: true grows it to cover the model");
  return tree;
}

}  // namespace fovea

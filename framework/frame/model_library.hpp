#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "narrowphase/collision_model.hpp"
#include "narrowphase/on_demand_tree.hpp"
#include "spheretree/inflate.hpp"
#include "spheretree/sphere_tree.hpp"
#include "spheretree/tree_builder.hpp"
#include "world/entity.hpp"
#include "world/voxel_model.hpp"
#include "world/world_settings.hpp"

namespace fovea {

/// What becomes of a model added at run time when no entity uses it any more.
enum class ModelLifetime {
  kept,                  ///< stays, to spawn from later (a rockfall's rock shapes)
  released_when_unused,  ///< freed, its id reused (fragments of a broken rock)
};

/// A group's models cannot be built as configured. `setting` names the group's setting at
/// fault ("model.variants") so the caller can point at its line in the config.
class ModelError : public std::runtime_error {
 public:
  /// `group_index` in WorldSettings::entities, `setting` relative to the group, `message` the reason.
  ModelError(std::uint32_t group_index, std::string setting, const std::string& message)
      : std::runtime_error(message), group_index_(group_index), setting_(std::move(setting)) {}
  /// The group's index in WorldSettings::entities.
  std::uint32_t group_index() const { return group_index_; }
  /// The group's key at fault, relative to the group ("model.file", "sphere_tree.file").
  const std::string& setting() const { return setting_; }

 private:
  std::uint32_t group_index_;
  std::string setting_;
};

/// Voxel cells all of a world's models may hold together (one byte each): 128 Mi, eight
/// 256^3 grids. Beyond it the run stops with a ModelError instead of exhausting memory.
inline constexpr std::int64_t kMaxModelVoxelCells = std::int64_t{1} << 27;

/// Whether a model of `group` grows its sphere tree on demand (001's on-collide trees)
/// rather than getting it whole: when the group asks for it and the model's tree is not read
/// from the group's .sph file (`reads_tree_file`: the group's own models at the start), and
/// always for a model released when unused (a fragment), which needs a tree the frame it
/// appears.
bool grows_tree_on_demand(const EntityGroupSettings& group, ModelLifetime lifetime, bool reads_tree_file);

/// The options a group's trees are built with: sphere_tree's builder, levels, remove_hidden,
/// fit and branching (the world's settings named as spheretree/tree_builder.hpp names them).
SphereTreeBuildOptions tree_build_options(const SphereTreeSettings& trees);

/// Where a model's tree came from: the builder that made it (for `tightest`, the one that won;
/// trees grown on demand are octree trees), or the group's sphere_tree.file.
enum class TreeSource {
  octree,  ///< the octree builder, or grown on demand (also the value of a released slot)
  medial,  ///< the medial builder
  file     ///< read from the group's sphere_tree.file (inflated or not)
};
/// "octree", "medial", "file": summary.json's sphere_trees.builders.
std::string_view tree_source_name(TreeSource source);

/// A group's tree file grown to cover its model (sphere_tree.inflate, spheretree/inflate.hpp).
struct TreeInflation {
  std::uint32_t group = 0;      ///< the group's index in WorldSettings::entities
  ModelId model = 0;            ///< the model whose tree it is
  InflationReport report;       ///< what grew: nodes, largest growth in metres and as a fraction
};

/// A model just put in its slot, and what the narrow phase is to hold for it.
struct InstalledModel {
  ModelId id = 0;                       ///< the slot: a free one reused, or a new one
  CollisionModel collision_model;       ///< the whole tree, or the root of an on-demand one
  std::unique_ptr<TreeGrower> grower;   ///< null for a whole tree
};

/// The world's voxel models through their life (004 section 3.1; 001 for trees grown on
/// demand): built or read for each entity group at the start, added and released while the
/// world runs (a rockfall's rocks and fragments), each with its sphere tree, mass properties,
/// the prototype entity a spawn copies, and its hull for dynamic bounds.
///
/// Ids are handles: a released model's id is given to a later model, and generations() tells
/// a renderer that a slot holds a new model. Everything is by ModelId.
class ModelLibrary {
 public:
  /// The models of `groups` (WorldSettings::entities, copied: a world's groups never change
  /// once it is made); nothing is built yet.
  explicit ModelLibrary(std::vector<EntityGroupSettings> groups);

  /// Builds (or reads) the models of every group with entities: one per rock variant, one
  /// for other shapes, each seeded from `seed`, its tree built or read from the group's .sph
  /// file. Checks the voxel budget before building anything. Returns each group's model ids,
  /// one per variant, and appends what the narrow phase is to hold to `installed`. Throws
  /// ModelError naming the group's setting at fault.
  std::vector<std::vector<ModelId>> install_groups(std::uint64_t seed, std::vector<InstalledModel>& installed);
  /// Puts `model` in a free slot (or a new one) for group `group`: its mass properties,
  /// prototype entity, hull and tree, built whole or grown on demand (grows_tree_on_demand;
  /// `read_tree_file` reads the group's .sph file instead where it has one). `frame` is the
  /// frame about to run (the on-demand tree's stamps count from it). Throws ModelError for
  /// an empty model or an unrepresentable mass.
  InstalledModel install(VoxelModel model, std::uint32_t group, ModelLifetime lifetime, bool read_tree_file,
                         std::int64_t frame);

  /// Models of `group` with `lifetime` will be installed while the world runs (a rockfall's
  /// fragments): whether their trees grow on demand is known before the first frame.
  void expect(std::uint32_t group, ModelLifetime lifetime);

  /// An entity of `model` was made, or retired.
  void add_user(ModelId model) { ++users_[model]; }
  /// An entity of `model` retired; at the last, a model released when unused waits for release_unused().
  void remove_user(ModelId model);
  /// Frees the slots of models released when unused whose last entity has retired, and
  /// returns their ids (for the narrow phase and the metrics to drop theirs too).
  std::span<const ModelId> release_unused();

  /// Every slot's model; a released slot holds an empty one (has_model()).
  std::span<const VoxelModel> models() const { return models_; }
  /// Every slot's whole sphere tree (empty for trees grown on demand and released slots).
  std::span<const SphereTree> trees() const { return trees_; }
  /// Every slot's prototype entity (mass, inertia, bounds, material): what a spawn copies.
  std::span<const Entity> prototypes() const { return prototypes_; }
  /// Models each slot has held so far (a count): a renderer remeshes a slot whose count changed.
  std::span<const std::uint32_t> generations() const { return generations_; }
  /// Whether `model` is a slot that holds a model now (false for released and unknown ids).
  bool has_model(ModelId model) const { return model < in_use_.size() && in_use_[model]; }
  /// The model's hull points about its centre of mass (models with dynamic bounds only).
  std::span<const Vec3> hull_points(ModelId model) const { return hull_points_[model]; }
  /// What made each slot's tree (octree for released slots).
  std::span<const TreeSource> tree_sources() const { return tree_sources_; }
  /// The tree files grown to cover their models when the world was made, one per group
  /// with sphere_tree.inflate.
  std::span<const TreeInflation> inflations() const { return inflations_; }
  /// Wall-clock time building or reading whole trees and starting on-demand ones for models
  /// installed before the first frame.
  double build_ms() const { return build_ms_; }
  /// Whether some group's models grow their trees on demand, whatever its count, or some
  /// model installed or expected does: the world reports tree growth from the start.
  bool grows_trees_on_demand() const { return grows_trees_on_demand_; }

 private:
  VoxelModel read_file_model(std::uint32_t group) const;
  /// The group's tree file for `model` (inflated when the group says so), or its built tree.
  SphereTree read_or_build_tree(std::uint32_t group, ModelId id, const VoxelModel& model);
  SphereTree build_tree(std::uint32_t group, ModelId id, const VoxelModel& model);

  std::vector<EntityGroupSettings> groups_;
  std::vector<VoxelModel> models_;
  std::vector<SphereTree> trees_;
  std::vector<TreeSource> tree_sources_;
  std::vector<TreeInflation> inflations_;
  std::vector<std::vector<Vec3>> hull_points_;  // filled for models with dynamic bounds
  std::vector<Entity> prototypes_;              // the entity a spawn copies
  std::vector<std::int64_t> users_;             // live entities using the model
  std::vector<ModelLifetime> lifetimes_;
  std::vector<std::uint32_t> generations_;      // models ever put in the slot
  std::vector<std::uint8_t> in_use_;
  std::vector<ModelId> free_;
  std::vector<ModelId> to_check_;               // released-when-unused models whose last user retired
  std::vector<ModelId> released_;               // release_unused()'s answer
  double build_ms_ = 0;
  bool grows_trees_on_demand_ = false;
};

}  // namespace fovea

#pragma once

#include <cstdint>
#include <string>

#include "fovea/command_context.hpp"

namespace fovea {

struct TreeOptions {
  std::string model;            ///< a built-in shape name, a .vox file, or a config (.yaml)
  int group = 0;                ///< with a config: the entity group
  int variant = 0;              ///< with a config: the group's model variant
  std::string builder = "octree";  ///< octree, medial or tightest (spheretree/tree_builder.hpp)
  int levels = 4;
  std::string fit = "cell";         ///< octree spheres: cell or voxels
  int branching = 8;                ///< most children per node of a medial tree
  int resolution_voxels = 32;   ///< for built-in shapes
  double size_m = 1.0;          ///< length of the longest side
  std::int64_t seed = 1;        ///< for rocks
  int model_index = 0;          ///< for .vox files holding several models
  bool keep_hidden = false;     ///< keep nodes hidden on all six sides
  std::string export_obj;       ///< write the model's surface mesh here
  std::string export_sph;       ///< write the tree here
  std::string export_vox;       ///< write the model here
  bool csv = false;             ///< machine-readable output
  /// Options that describe a model or its tree (--builder, --levels, --fit, --branching,
  /// --resolution, --size, --seed, --model-index, --keep-hidden) were given: an error with a
  /// config, which describes both itself.
  bool model_options_given = false;
};

/// `fovea tree`: builds a model's sphere tree with the builder asked and prints which builder
/// made it, per depth the sphere count and the tightness (one-sided Hausdorff distance from
/// the spheres to the model, and its upper bound), and the build time.
int tree_command(const TreeOptions& options);

/// `fovea tree` on the command line: adds its subcommand, options and callback to `app`.
void register_tree_command(CLI::App& app, CommandContext& context);

}  // namespace fovea

#pragma once

#include <cstdint>
#include <string>

namespace fovea {

struct TreeOptions {
  std::string model;            ///< a built-in shape name, a .vox file, or a config (.yaml)
  int group = 0;                ///< with a config: the entity group
  int variant = 0;              ///< with a config: the group's model variant
  int levels = 4;
  int resolution_voxels = 32;   ///< for built-in shapes
  double size_m = 1.0;          ///< length of the longest side
  std::int64_t seed = 1;        ///< for rocks
  int model_index = 0;          ///< for .vox files holding several models
  bool keep_hidden = false;     ///< keep nodes hidden on all six sides
  std::string export_obj;       ///< write the model's surface mesh here
  std::string export_sph;       ///< write the tree here
  std::string export_vox;       ///< write the model here
  bool csv = false;             ///< machine-readable output
  /// Options that describe a model (--levels, --resolution, --size, --seed, --model-index,
  /// --keep-hidden) were given: an error with a config, which describes the model itself.
  bool model_options_given = false;
};

/// `fovea tree`: builds a model's sphere tree and prints, per depth, the sphere count and the
/// tightness (one-sided Hausdorff distance from the spheres to the model), and the build time.
int tree_command(const TreeOptions& options);

}  // namespace fovea

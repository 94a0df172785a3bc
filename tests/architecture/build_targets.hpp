#pragma once

// The build's targets as the layering check needs them: what each compiles, where it looks for
// headers and what it links. framework/CMakeLists.txt writes them at generate time to
// <build>/architecture/targets.txt, one block per target of the whole project:
//
//   source: /path/to/fovea
//   target: fovea_world
//     directory: /path/to/fovea/framework
//     sources: world/voxel_model.cpp;world/model_generators.cpp;...
//     includes: /path/to/fovea/framework;/usr/include/...
//     links: fovea_core;fovea_warnings

#include <filesystem>
#include <string>
#include <vector>

namespace fovea::architecture {

/// One library or program of the build.
struct BuildTarget {
  std::string name;  ///< "fovea_world"
  /// Its CMakeLists.txt, from the repository root: "framework/CMakeLists.txt".
  std::filesystem::path cmake_file;
  /// The files it compiles; those of the repository from its root ("framework/world/motion.cpp"),
  /// others absolute.
  std::vector<std::filesystem::path> sources;
  /// Where the compiler looks for `#include`s, the same way: "framework", "/usr/include/...".
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> links;  ///< as target_link_libraries names them: "fovea_core", "glm::glm"
};

/// The targets of the file framework/CMakeLists.txt writes; empty when it is missing.
std::vector<BuildTarget> read_build_targets(const std::filesystem::path& file);

/// The include directories of the repository that any target uses, each once, in the order of
/// the file ("framework", "experiments", "python"): where the check looks for an `#include`
/// after the including file's folder. One list for every file over-approximates what the
/// compiler sees, so an include that only some target could find is judged too.
std::vector<std::filesystem::path> repository_include_dirs(const std::vector<BuildTarget>& targets);

}  // namespace fovea::architecture

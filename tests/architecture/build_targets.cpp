#include "architecture/build_targets.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fovea::architecture {

namespace {

std::vector<std::string> list_of(const std::string& cmake_list) {
  std::vector<std::string> items;
  std::stringstream in(cmake_list);
  for (std::string item; std::getline(in, item, ';');)
    if (!item.empty()) items.push_back(item);
  return items;
}

/// `path` from the repository root when it lies inside it, else as it is.
std::filesystem::path from_root(const std::filesystem::path& path, const std::filesystem::path& root) {
  const std::filesystem::path relative = path.lexically_normal().lexically_relative(root);
  return relative.empty() || *relative.begin() == ".." ? path.lexically_normal() : relative;
}

}  // namespace

std::vector<BuildTarget> read_build_targets(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<BuildTarget> targets;
  std::filesystem::path root, directory;
  for (std::string line; std::getline(in, line);) {
    const std::size_t colon = line.find(": ");
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(line.find_first_not_of(' '), colon - line.find_first_not_of(' '));
    const std::string value = line.substr(colon + 2);
    if (key == "source") root = std::filesystem::path(value).lexically_normal();
    if (key == "target") targets.push_back({value, {}, {}, {}, {}});
    if (targets.empty()) continue;
    BuildTarget& target = targets.back();
    if (key == "directory") {
      directory = value;
      target.cmake_file = from_root(directory / "CMakeLists.txt", root);
    }
    if (key == "sources")
      for (const std::string& source : list_of(value)) target.sources.push_back(from_root(directory / source, root));
    if (key == "includes")
      for (const std::string& dir : list_of(value)) target.include_dirs.push_back(from_root(dir, root));
    if (key == "links") target.links = list_of(value);
  }
  return targets;
}

std::vector<std::filesystem::path> repository_include_dirs(const std::vector<BuildTarget>& targets) {
  std::vector<std::filesystem::path> dirs;
  for (const BuildTarget& target : targets)
    for (const std::filesystem::path& dir : target.include_dirs)
      if (dir.is_relative() && std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
  return dirs;
}

}  // namespace fovea::architecture

// The layers of docs/architecture.md hold in the code: read the table there, then every
// #include of framework/ and the simulation core's link libraries from the build.
//
// FOVEA_LAYERING_ROOT, when set, checks the tree at that path instead of this one (its
// docs/architecture.md and framework/): how a change is checked before it lands, and how the
// tree before issue 21 was shown to fail.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path tree_root() {
  const char* root = std::getenv("FOVEA_LAYERING_ROOT");
  return root && *root ? fs::path(root) : fs::path(FOVEA_SOURCE_DIR);
}

std::vector<std::string> lines_of_file(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The layers as docs/architecture.md's table lists them, bottom first, and how many of
/// them are the simulation core ("The simulation core, layers 1 to N").
struct Layers {
  std::vector<std::string> folders;  ///< "core", "world", ...
  std::size_t core_count = 0;
  int rank(const std::string& folder) const {
    const auto it = std::find(folders.begin(), folders.end(), folder);
    return it == folders.end() ? -1 : static_cast<int>(it - folders.begin());
  }
  bool is_core(const std::string& folder) const {
    const int r = rank(folder);
    return r >= 0 && static_cast<std::size_t>(r) < core_count;
  }
};

Layers read_layers() {
  const fs::path doc = tree_root() / "docs" / "architecture.md";
  const std::vector<std::string> lines = lines_of_file(doc);
  INFO(doc.string());
  REQUIRE_FALSE(lines.empty());
  Layers layers;
  const std::regex row(R"(^\|\s*(\d+)\s*\|\s*`([a-z_0-9]+)/`\s*\|)");
  const std::regex core(R"(simulation core, layers 1 to (\d+))");
  bool in_section = false;
  for (const std::string& line : lines) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## The layers";
    if (!in_section) continue;
    std::smatch m;
    if (std::regex_search(line, m, core)) layers.core_count = std::stoul(m[1]);
    if (std::regex_search(line, m, row)) {
      REQUIRE(std::stoul(m[1]) == layers.folders.size() + 1);  // numbered in order, from 1
      layers.folders.push_back(m[2]);
    }
  }
  REQUIRE(layers.folders.size() >= 2);
  REQUIRE(layers.core_count >= 1);
  REQUIRE(layers.core_count <= layers.folders.size());
  return layers;
}

/// One `#include` of a framework file.
struct Include {
  std::string from_folder;
  std::string file;   ///< framework/frame/animation.hpp
  int line = 0;
  std::string text;   ///< what is included: "narrowphase/narrow_phase.hpp" or <vector>
  bool angled = false;
};

std::vector<std::string> framework_folders() {
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(tree_root() / "framework"))
    if (entry.is_directory()) folders.push_back(entry.path().filename().string());
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::vector<Include> framework_includes() {
  std::vector<Include> includes;
  const std::regex include(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  for (const std::string& folder : framework_folders()) {
    for (const auto& entry : fs::recursive_directory_iterator(tree_root() / "framework" / folder)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".in")) continue;
      const std::vector<std::string> lines = lines_of_file(entry.path());
      for (std::size_t n = 0; n < lines.size(); ++n) {
        std::smatch m;
        if (!std::regex_search(lines[n], m, include)) continue;
        includes.push_back({folder, fs::relative(entry.path(), tree_root()).string(), static_cast<int>(n + 1), m[2],
                            m[1] == "<"});
      }
    }
  }
  return includes;
}

/// The framework folder a quoted include names ("narrowphase" for "narrowphase/x.hpp"), or "".
std::string included_folder(const Include& inc, const std::vector<std::string>& folders) {
  if (inc.angled) return "";
  const std::size_t slash = inc.text.find('/');
  if (slash == std::string::npos) return "";
  const std::string folder = inc.text.substr(0, slash);
  return std::binary_search(folders.begin(), folders.end(), folder) ? folder : "";
}

std::string where(const Include& inc) { return inc.file + ":" + std::to_string(inc.line) + ": includes " + inc.text; }

}  // namespace

TEST_CASE("Layering: every folder of framework/ is a layer of docs/architecture.md", "[architecture]") {
  const Layers layers = read_layers();
  std::vector<std::string> missing;
  for (const std::string& folder : framework_folders())
    if (layers.rank(folder) < 0) missing.push_back("framework/" + folder + "/");
  INFO("folders missing from docs/architecture.md's table of layers:");
  for (const std::string& m : missing) INFO(m);
  CHECK(missing.empty());
}

TEST_CASE("Layering: no folder of framework/ includes a folder above it", "[architecture]") {
  const Layers layers = read_layers();
  const std::vector<std::string> folders = framework_folders();
  std::vector<std::string> upward;
  for (const Include& inc : framework_includes()) {
    const std::string to = included_folder(inc, folders);
    if (to.empty() || to == inc.from_folder) continue;
    const int from_rank = layers.rank(inc.from_folder), to_rank = layers.rank(to);
    if (from_rank >= 0 && to_rank > from_rank)
      upward.push_back(where(inc) + " (" + to + "/ is layer " + std::to_string(to_rank + 1) + ", above " +
                       inc.from_folder + "/, layer " + std::to_string(from_rank + 1) + ")");
  }
  std::ostringstream out;
  for (const std::string& u : upward) out << u << "\n";
  INFO(out.str());
  CHECK(upward.size() == 0);
}

TEST_CASE("Layering: no two folders of framework/ include each other", "[architecture]") {
  const std::vector<std::string> folders = framework_folders();
  std::map<std::pair<std::string, std::string>, std::string> first;  // (from, to) -> where
  for (const Include& inc : framework_includes()) {
    const std::string to = included_folder(inc, folders);
    if (!to.empty() && to != inc.from_folder) first.emplace(std::make_pair(inc.from_folder, to), where(inc));
  }
  std::vector<std::string> cycles;
  for (const auto& [edge, place] : first) {
    const auto back = first.find({edge.second, edge.first});
    if (edge.first < edge.second && back != first.end())
      cycles.push_back(edge.first + "/ <-> " + edge.second + "/: " + place + "; " + back->second);
  }
  std::ostringstream out;
  for (const std::string& c : cycles) out << c << "\n";
  INFO(out.str());
  CHECK(cycles.size() == 0);
}

TEST_CASE("Layering: the simulation core includes the standard library and GLM only", "[architecture]") {
  const Layers layers = read_layers();
  // A standard header has no '/' and no '.' in its name (<vector>, <cstdint>); GLM's are glm/.
  std::vector<std::string> foreign;
  for (const Include& inc : framework_includes()) {
    if (!inc.angled || !layers.is_core(inc.from_folder)) continue;
    const bool standard = inc.text.find_first_of("/.") == std::string::npos;
    if (!standard && inc.text.rfind("glm/", 0) != 0) foreign.push_back(where(inc));
  }
  std::ostringstream out;
  for (const std::string& f : foreign) out << f << "\n";
  INFO(out.str());
  CHECK(foreign.size() == 0);
}

TEST_CASE("Layering: the simulation core's libraries link each other, GLM and threads only", "[architecture]") {
  const Layers layers = read_layers();
  // Written by framework/CMakeLists.txt at generate time: "fovea_world: fovea_core;..." for
  // each library of the core (FOVEA_SIMULATION_CORE there), what it links directly. Direct
  // links within the core, to GLM and to the platform's threads (core/thread_pool.hpp, the
  // standard library's std::thread) keep the whole closure there.
  const std::vector<std::string> lines = lines_of_file(FOVEA_ARCHITECTURE_LINKS);
  REQUIRE_FALSE(lines.empty());
  std::set<std::string> allowed = {"glm::glm", "Threads::Threads", "fovea_warnings"};
  for (std::size_t r = 0; r < layers.core_count; ++r) allowed.insert("fovea_" + layers.folders[r]);
  std::set<std::string> libraries;
  std::vector<std::string> foreign;
  for (const std::string& line : lines) {
    const std::size_t colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    const std::string library = line.substr(0, colon);
    libraries.insert(library);
    CHECK(allowed.count(library) == 1);  // the build's core is the docs' core
    std::stringstream links(line.substr(colon + 2));
    for (std::string link; std::getline(links, link, ';');)
      if (!link.empty() && allowed.count(link) == 0) foreign.push_back(library + " links " + link);
  }
  for (std::size_t r = 0; r < layers.core_count; ++r) CHECK(libraries.count("fovea_" + layers.folders[r]) == 1);
  std::ostringstream out;
  for (const std::string& f : foreign) out << f << "\n";
  INFO(out.str());
  CHECK(foreign.size() == 0);
}

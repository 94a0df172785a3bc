// The layers of docs/architecture.md hold in the code: the check of architecture/layering_check.hpp
// (every #include of every part resolved to the file it names, every target's links against the
// table) finds nothing on this tree.
//
// FOVEA_LAYERING_ROOT, when set, checks the tree at that path instead of this one (its
// docs/architecture.md, framework/, experiments/ and python/; the links are still this build's):
// how a change is checked before it lands, and how the tree before issue 21 was shown to fail.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "architecture/layering_check.hpp"

namespace fs = std::filesystem;
using namespace fovea::architecture;

namespace {

fs::path tree_root() {
  const char* root = std::getenv("FOVEA_LAYERING_ROOT");
  return root && *root ? fs::path(root) : fs::path(FOVEA_SOURCE_DIR);
}

std::string listed(const std::vector<Violation>& violations) {
  std::ostringstream out;
  for (const Violation& violation : violations) out << to_string(violation) << "\n";
  return out.str();
}

}  // namespace

TEST_CASE("Layering: the tree keeps every rule of docs/architecture.md's layers", "[architecture]") {
  const std::vector<BuildTarget> targets = read_build_targets(FOVEA_ARCHITECTURE_TARGETS);
  REQUIRE(targets.size() > 19);  // the build's file was written and read
  const std::vector<Violation> violations = check_layering(tree_root(), targets);
  INFO(listed(violations));
  CHECK(violations.empty());
}

TEST_CASE("Layering: the table and the build describe every part", "[architecture]") {
  // What the check above relies on, so that an empty list means the rules held and not that
  // nothing was looked at.
  const fs::path root = tree_root();
  const LayerTable table = read_layer_table(root / "docs/architecture.md", "docs/architecture.md");
  INFO(listed(table.problems));
  REQUIRE(table.problems.empty());
  CHECK(table.core_layers >= 1);
  const std::vector<BuildTarget> targets = read_build_targets(FOVEA_ARCHITECTURE_TARGETS);
  std::size_t framework_parts = 0;
  for (const Part& part : table.parts) {
    if (*part.folder.begin() != "framework") continue;
    ++framework_parts;
    // Each part of framework/ is its own static library, fovea_<folder>, compiling that folder.
    const std::string library = "fovea_" + part.name;
    const auto target =
        std::find_if(targets.begin(), targets.end(), [&](const BuildTarget& t) { return t.name == library; });
    INFO(library);
    REQUIRE(target != targets.end());
    CHECK(table.holding(target->sources.front()) == &part);
  }
  CHECK(framework_parts >= 19);
  // The include directories the check resolves with hold framework/, which fovea_core exports
  // to every part.
  const std::vector<fs::path> dirs = repository_include_dirs(targets);
  CHECK(std::find(dirs.begin(), dirs.end(), fs::path("framework")) != dirs.end());
}

TEST_CASE("Layering: the standard headers are the standard library's only", "[architecture]") {
  CHECK(is_standard_header("vector"));
  CHECK(is_standard_header("cstdint"));
  CHECK_FALSE(is_standard_header("stdint.h"));
  CHECK_FALSE(is_standard_header("unistd.h"));
  CHECK_FALSE(is_standard_header("nlohmann/json.hpp"));
  CHECK_FALSE(is_standard_header("SDL.h"));
  // Of the platform, the core may include only what one non-blocking open of a file needs.
  CHECK(is_core_platform_header("fcntl.h"));
  CHECK(is_core_platform_header("sys/stat.h"));
  CHECK(is_core_platform_header("unistd.h"));
  CHECK_FALSE(is_core_platform_header("sys/socket.h"));
  CHECK_FALSE(is_core_platform_header("pthread.h"));
  CHECK_FALSE(is_core_platform_header("signal.h"));
}

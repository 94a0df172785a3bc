// The layering check catches what it claims to: copies of this tree's parts and
// docs/architecture.md, each broken one way (the six trees of issue 39 that the check before it
// let through, and one per rule since), must each fail with the file, the line and the rule of
// what was broken, and nothing else; the unbroken copy passes.

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>

#include "architecture/layering_check.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace fovea::architecture;

namespace {

const fs::path kSource = FOVEA_SOURCE_DIR;

std::vector<BuildTarget> build_targets() { return read_build_targets(FOVEA_ARCHITECTURE_TARGETS); }

/// A copy of what the check reads: every part's folder and docs/architecture.md.
void copy_tree(const fs::path& to) {
  const LayerTable table = read_layer_table(kSource / "docs/architecture.md", "docs/architecture.md");
  fs::create_directories(to / "docs");
  fs::copy_file(kSource / "docs/architecture.md", to / "docs/architecture.md");
  for (const Part& part : table.parts) {
    fs::create_directories(to / part.folder);
    fs::copy(kSource / part.folder, to / part.folder, fs::copy_options::recursive | fs::copy_options::skip_existing);
  }
}

/// Puts `text` (one or more lines) before line `line` of `file`, creating the file if need be.
void insert_lines(const fs::path& file, int line, const std::string& text) {
  std::vector<std::string> lines;
  {
    std::ifstream in(file);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  lines.insert(lines.begin() + std::min<std::ptrdiff_t>(line - 1, static_cast<std::ptrdiff_t>(lines.size())), text);
  fs::create_directories(file.parent_path());
  std::ofstream out(file);
  for (const std::string& l : lines) out << l << "\n";
}

/// Replaces the one occurrence of `from` in `file` by `to`.
void replace_text(const fs::path& file, const std::string& from, const std::string& to) {
  std::ifstream in(file);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  text.replace(at, from.size(), to);
  std::ofstream(file) << text;
}

/// The line of docs/architecture.md's row of `part` in the tree at `root`.
int row_line(const fs::path& root, const std::string& part) {
  const LayerTable table = read_layer_table(root / "docs/architecture.md", "docs/architecture.md");
  const Part* found = table.find(part);
  REQUIRE(found);
  return found->doc_line;
}

struct Expected {
  std::string file;
  int line = 0;
  Rule rule = Rule::table;
};

std::string listed(const std::vector<Violation>& violations) {
  std::ostringstream out;
  for (const Violation& violation : violations) out << to_string(violation) << "\n";
  return out.str();
}

/// The check finds exactly `expected` (in any order), each message naming its file, line and rule.
void require_exactly(const std::vector<Violation>& found, const std::vector<Expected>& expected) {
  INFO(listed(found));
  REQUIRE(found.size() == expected.size());
  for (const Expected& e : expected) {
    INFO(e.file << ":" << e.line << ": " << rule_name(e.rule));
    const auto match = std::find_if(found.begin(), found.end(), [&](const Violation& v) {
      return v.file == e.file && v.line == e.line && v.rule == e.rule;
    });
    REQUIRE(match != found.end());
    const std::string where = e.line > 0 ? e.file + ":" + std::to_string(e.line) + ": " : e.file + ": ";
    CHECK(to_string(*match).rfind(where + rule_name(e.rule) + ": ", 0) == 0);
  }
}

/// One broken tree: a line put into a file of the copy, and what the check must say.
struct BrokenInclude {
  const char* name;
  const char* file;
  int line;
  const char* text;
  std::vector<Expected> expected;
};

}  // namespace

TEST_CASE("Broken trees: an unbroken copy of the tree passes", "[architecture]") {
  fovea::test::TempDir tree;
  copy_tree(tree.path());
  require_exactly(check_layering(tree.path(), build_targets()), {});
}

TEST_CASE("Broken trees: every include that breaks a rule is caught, with its file, line and rule", "[architecture]") {
  const std::vector<BrokenInclude> cases = {
      // The six of issue 39.
      {"angle brackets",
       "framework/record/csv_writer.cpp",
       1,
       "#include <run/run.hpp>",
       {{"framework/record/csv_writer.cpp", 1, Rule::upward_include}}},
      {"a relative path",
       "framework/record/manifest.cpp",
       1,
       "#include \"../study/study_plan.hpp\"",
       {{"framework/record/manifest.cpp", 1, Rule::upward_include}}},
      {"a relative path from the core",
       "framework/world/motion.cpp",
       1,
       "#include \"../frame/animation.hpp\"",
       {{"framework/world/motion.cpp", 1, Rule::upward_include}}},
      {"libraries in quotes in the core",
       "framework/world/motion.cpp",
       1,
       "#include \"nlohmann/json.hpp\"\n#include \"yaml-cpp/yaml.h\"",
       {{"framework/world/motion.cpp", 1, Rule::core_external_include},
        {"framework/world/motion.cpp", 2, Rule::core_external_include}}},
      {"a part in angle brackets from the core",
       "framework/world/motion.cpp",
       1,
       "#include <frame/animation.hpp>",
       {{"framework/world/motion.cpp", 1, Rule::upward_include}}},
      {"an .inl file",
       "framework/spheretree/tree_walk.inl",
       1,
       "// Included by a header of spheretree/.\n#include \"schedule/scheduler.hpp\"",
       {{"framework/spheretree/tree_walk.inl", 2, Rule::upward_include}}},
      // The programs above the framework.
      {"the framework includes a program",
       "framework/run/run.cpp",
       1,
       "#include \"fovea/run_command.hpp\"",
       {{"framework/run/run.cpp", 1, Rule::upward_include}}},
      {"python/ includes experiments/ beside the commands",
       "python/bindings/module.cpp",
       1,
       "#include \"benchmarks/bench_stats.hpp\"",
       {{"python/bindings/module.cpp", 1, Rule::sideways_include}}},
      {"the command includes python/",
       "experiments/fovea/main.cpp",
       1,
       "#include \"../../python/bindings/bindings.hpp\"",
       {{"experiments/fovea/main.cpp", 1, Rule::upward_include}}},
      // The other ways round the rules.
      {"a file no part holds",
       "framework/world/motion.cpp",
       1,
       "#include \"../../docs/architecture.md\"",
       {{"framework/world/motion.cpp", 1, Rule::include_outside_parts}}},
      {"a library through glm/..",
       "framework/world/motion.cpp",
       1,
       "#include <glm/../nlohmann/json.hpp>",
       {{"framework/world/motion.cpp", 1, Rule::core_external_include}}},
      {"a macro",
       "framework/world/motion.cpp",
       1,
       "#include WORLD_HEADER",
       {{"framework/world/motion.cpp", 1, Rule::unreadable_include}}},
      {"a header written by CMake",
       "framework/core/build_info.cmake",
       1,
       "#include \\\"run/run.hpp\\\"",
       {{"framework/core/build_info.cmake", 1, Rule::upward_include}}},
  };
  const std::vector<BuildTarget> targets = build_targets();
  for (const BrokenInclude& broken : cases) {
    SECTION(broken.name) {
      fovea::test::TempDir tree;
      copy_tree(tree.path());
      insert_lines(tree.path() / broken.file, broken.line, broken.text);
      require_exactly(check_layering(tree.path(), targets), broken.expected);
    }
  }
}

TEST_CASE("Broken trees: a folder of framework/ outside the table is caught", "[architecture]") {
  fovea::test::TempDir tree;
  copy_tree(tree.path());
  insert_lines(tree.path() / "framework/physics/solver.hpp", 1, "#pragma once");
  require_exactly(check_layering(tree.path(), build_targets()), {{"framework/physics/", 0, Rule::outside_parts}});
}

TEST_CASE("Broken trees: a table that says what the build does not is caught", "[architecture]") {
  fovea::test::TempDir tree;
  copy_tree(tree.path());
  const fs::path doc = tree.path() / "docs/architecture.md";
  const int world = row_line(tree.path(), "world");

  SECTION("the core names a library beyond GLM and threads") {
    replace_text(doc, "steering | core |", "steering | core, nlohmann-json |");
    require_exactly(check_layering(tree.path(), build_targets()),
                    {{"docs/architecture.md", world, Rule::core_links_beyond},
                     {"docs/architecture.md", world, Rule::row_link_unused}});
  }
  SECTION("a part names a part above it") {
    replace_text(doc, "steering | core |", "steering | core, frame |");
    require_exactly(check_layering(tree.path(), build_targets()),
                    {{"docs/architecture.md", world, Rule::row_links_upward},
                     {"docs/architecture.md", world, Rule::row_link_unused}});
  }
  SECTION("a part names a word the table does not define") {
    replace_text(doc, "steering | core |", "steering | core, Boost |");
    require_exactly(
        check_layering(tree.path(), build_targets()),
        {{"docs/architecture.md", world, Rule::table}, {"docs/architecture.md", world, Rule::row_link_unused}});
  }
  SECTION("a part misses what it links") {
    replace_text(doc, "steering | core |", "steering | |");
    require_exactly(check_layering(tree.path(), build_targets()),
                    {{"docs/architecture.md", world, Rule::link_not_in_row}});
  }
  SECTION("a row names a folder that does not exist") {
    fs::remove_all(tree.path() / "framework/demos");
    // demos/ gone: frame/'s... nothing includes it from below; run/ and render/ do from above.
    const std::vector<Violation> found = check_layering(tree.path(), build_targets());
    INFO(listed(found));
    CHECK(std::any_of(found.begin(), found.end(), [&](const Violation& v) {
      return v.rule == Rule::table && v.file == "docs/architecture.md" && v.line == row_line(tree.path(), "demos");
    }));
  }
}

TEST_CASE("Broken trees: a build that links what the table does not say is caught", "[architecture]") {
  fovea::test::TempDir tree;
  copy_tree(tree.path());
  const int world = row_line(tree.path(), "world");
  std::vector<BuildTarget> targets = build_targets();
  auto target = [&](const std::string& name) -> BuildTarget& {
    const auto found =
        std::find_if(targets.begin(), targets.end(), [&](const BuildTarget& t) { return t.name == name; });
    REQUIRE(found != targets.end());
    return *found;
  };

  SECTION("the core links YAML") {
    target("fovea_world").links.push_back("yaml-cpp");
    require_exactly(check_layering(tree.path(), targets), {{"docs/architecture.md", world, Rule::link_not_in_row}});
  }
  SECTION("a part links a target the table does not know") {
    target("fovea_world").links.push_back("Boost::boost");
    require_exactly(check_layering(tree.path(), targets), {{"docs/architecture.md", world, Rule::link_not_in_row}});
  }
  SECTION("a part stops linking what its row names") {
    target("fovea_world").links.clear();
    require_exactly(check_layering(tree.path(), targets), {{"docs/architecture.md", world, Rule::row_link_unused}});
  }
  SECTION("one target compiles two parts") {
    target("fovea_world").sources.push_back("framework/frame/animation.cpp");
    require_exactly(check_layering(tree.path(), targets), {{"framework/CMakeLists.txt", 0, Rule::target_spans_parts}});
  }
  SECTION("a part of framework/ has no library") {
    targets.erase(
        std::find_if(targets.begin(), targets.end(), [](const BuildTarget& t) { return t.name == "fovea_world"; }));
    // Those linking fovea_world now link a target of no part.
    const std::vector<Violation> found = check_layering(tree.path(), targets);
    INFO(listed(found));
    CHECK(std::any_of(found.begin(), found.end(),
                      [&](const Violation& v) { return v.rule == Rule::part_without_library && v.line == world; }));
  }
}

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "config/config.hpp"
#include "support/process.hpp"

using namespace fovea;

TEST_CASE("docs/config.md documents exactly the keys the code reads", "[config][docs]") {
  // Every table row of docs/config.md that starts with a backticked cell names one key.
  const std::string doc = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/config.md");
  REQUIRE_FALSE(doc.empty());
  std::set<std::string> documented;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::size_t end = line.find('`', 3);
    if (end != std::string::npos) documented.insert(line.substr(3, end - 3));
  }
  std::set<std::string> in_code;
  for (const auto& key : config::config_keys()) in_code.insert(key.path);
  for (const auto& key : in_code) {
    INFO("key in the code but not in docs/config.md: " << key);
    CHECK(documented.count(key) == 1);
  }
  for (const auto& key : documented) {
    INFO("key in docs/config.md that the code does not read: " << key);
    CHECK(in_code.count(key) == 1);
  }
}

TEST_CASE("docs/config.md lists the names each choice key takes as the kind tables do", "[config][docs]") {
  // A key whose value is one of a kind table's names (or a list of them) shows the names in
  // its type cell, in the table's order: a kind added to a table is a kind to document.
  const std::string doc = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/config.md");
  std::map<std::string, std::string> documented_type;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::size_t key_end = line.find('`', 3);
    const std::size_t type_begin = line.find("| ", key_end);
    const std::size_t type_end = line.find(" |", type_begin + 2);
    if (key_end == std::string::npos || type_begin == std::string::npos || type_end == std::string::npos) continue;
    documented_type[line.substr(3, key_end - 3)] = line.substr(type_begin + 2, type_end - type_begin - 2);
  }
  int choice_keys = 0;
  for (const auto& key : config::config_keys()) {
    const bool one_of = key.type.rfind("one of ", 0) == 0;
    const bool list_of_names = key.type.rfind("list of ", 0) == 0 && key.type.find(", ") != std::string::npos &&
                               key.type.find("number") == std::string::npos;
    if (!one_of && !list_of_names) continue;
    INFO(key.path);
    CHECK(documented_type[key.path] == key.type);
    ++choice_keys;
  }
  CHECK(choice_keys > 20);
}

TEST_CASE("docs/config.md gives each key the default the code has", "[config][docs]") {
  // The third cell of a key's row is its default in backticks: a default changed in a settings
  // header (as issue 40 changed the scheduler's) is a row to change.
  const std::string doc = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/config.md");
  std::map<std::string, std::string> documented_default;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (std::size_t from = 2, to; (to = line.find(" | ", from)) != std::string::npos; from = to + 3)
      cells.push_back(line.substr(from, to - from));
    if (cells.size() < 3 || cells[0].size() < 2 || cells[2].size() < 2) continue;
    documented_default[cells[0].substr(1, cells[0].size() - 2)] = cells[2].substr(1, cells[2].size() - 2);
  }
  int compared = 0;
  for (const auto& key : config::config_keys()) {
    if (key.default_text.empty() || documented_default.count(key.path) == 0) continue;
    INFO(key.path);
    CHECK(documented_default.at(key.path) == key.default_text);
    ++compared;
  }
  CHECK(compared > 100);
}

TEST_CASE("docs/config.md's complete example is configs/default.yaml", "[config][docs]") {
  const std::string doc = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/config.md");
  const std::string scene = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml");
  const std::string opening = "This is `configs/default.yaml`, the built-in default scene:\n\n```yaml\n";
  const std::size_t start = doc.find(opening);
  REQUIRE(start != std::string::npos);
  const std::size_t from = start + opening.size();
  const std::size_t end = doc.find("```", from);
  REQUIRE(end != std::string::npos);
  CHECK(doc.substr(from, end - from) == scene);
}

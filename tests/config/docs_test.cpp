#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "config/config.hpp"
#include "support/process.hpp"

using namespace fovea;

namespace {

/// docs/config.md's key rows: every table row that starts with a backticked cell names one
/// key; its cells, split at " | " (the key's cell without its backticks), by key.
std::map<std::string, std::vector<std::string>> key_rows() {
  const std::string doc = test::read_file(std::string(FOVEA_SOURCE_DIR) + "/docs/config.md");
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::size_t key_end = line.find('`', 3);
    if (key_end == std::string::npos) continue;
    std::vector<std::string> cells;
    for (std::size_t from = 2, to; (to = line.find(" | ", from)) != std::string::npos; from = to + 3)
      cells.push_back(line.substr(from, to - from));
    if (!cells.empty()) cells[0] = line.substr(3, key_end - 3);
    rows[line.substr(3, key_end - 3)] = cells;
  }
  return rows;
}

/// The cell `column` of a key's row, or "" where the row has none.
std::string cell(const std::map<std::string, std::vector<std::string>>& rows, const std::string& key,
                 std::size_t column) {
  const auto row = rows.find(key);
  return row == rows.end() || row->second.size() <= column ? std::string() : row->second[column];
}

}  // namespace

TEST_CASE("docs/config.md documents exactly the keys the code reads", "[config][docs]") {
  const auto rows = key_rows();
  REQUIRE_FALSE(rows.empty());
  std::set<std::string> in_code;
  for (const auto& key : config::config_keys()) in_code.insert(key.path);
  for (const auto& key : in_code) {
    INFO("key in the code but not in docs/config.md: " << key);
    CHECK(rows.count(key) == 1);
  }
  for (const auto& [key, cells] : rows) {
    INFO("key in docs/config.md that the code does not read: " << key);
    CHECK(in_code.count(key) == 1);
  }
}

TEST_CASE("docs/config.md lists the names each choice key takes as the kind tables do", "[config][docs]") {
  // A key whose value is one of a kind table's names (or a list of them) shows the names in
  // its type cell, in the table's order: a kind added to a table is a kind to document.
  const auto rows = key_rows();
  int choice_keys = 0;
  for (const auto& key : config::config_keys()) {
    const bool one_of = key.type.rfind("one of ", 0) == 0;
    const bool list_of_names = key.type.rfind("list of ", 0) == 0 && key.type.find(", ") != std::string::npos &&
                               key.type.find("number") == std::string::npos;
    if (!one_of && !list_of_names) continue;
    INFO(key.path);
    CHECK(cell(rows, key.path, 1) == key.type);
    ++choice_keys;
  }
  CHECK(choice_keys > 20);
}

TEST_CASE("docs/config.md gives each key the default the code has", "[config][docs]") {
  // The third cell of a key's row is its default in backticks: a default changed in a settings
  // header (as issue 40 changed the scheduler's) is a row to change.
  const auto rows = key_rows();
  int compared = 0;
  for (const auto& key : config::config_keys()) {
    const std::string documented = cell(rows, key.path, 2);
    if (key.default_text.empty() || documented.size() < 2) continue;
    INFO(key.path);
    CHECK(documented.substr(1, documented.size() - 2) == key.default_text);
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

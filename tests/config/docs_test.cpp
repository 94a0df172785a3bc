#include <catch2/catch.hpp>

#include <set>
#include <sstream>

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

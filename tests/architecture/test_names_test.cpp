// The names of the test cases themselves: each becomes a ctest entry through Catch2's test
// discovery (catch_discover_tests), which passes the name back to the test program as a
// filter. Catch reads ',' in a filter as "or" and '[' as the start of a tag, and CMake's
// list syntax splits a name at ';': such a name gives entries that run no test or another
// one. `--warn NoTests` makes the first kind fail, but only once the suite runs; this says
// which name, and why, before.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("Test names: no test case name holds a semicolon or an opening bracket", "[architecture]") {
  const std::filesystem::path tests = std::filesystem::path(FOVEA_SOURCE_DIR) / "tests";
  // The first argument of TEST_CASE: a string literal, possibly split over adjacent literals.
  const std::regex test_case(R"re(TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+))re");
  int names = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tests)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = read_file(entry.path());
    for (auto it = std::sregex_iterator(text.begin(), text.end(), test_case); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1].str();
      INFO(entry.path().lexically_relative(tests).string() << ": " << name);
      CHECK(name.find(';') == std::string::npos);
      CHECK(name.find('[') == std::string::npos);
      ++names;
    }
  }
  CHECK(names > 400);  // the suite's own test cases were found
}

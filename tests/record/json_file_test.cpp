// The one bounded JSON reader (record/json_file.hpp): every JSON file fovea reads (manifest.json,
// sweep.json) goes through it. A value nested 100,000 deep made `fovea sweep` die by a stack
// overflow with nothing said (issue 42); the reader now refuses past 64 levels, before parsing.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "record/json_file.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

/// `levels` arrays one in another around 1, and a key: {"a": [[...[1]...]]} counts the object.
std::string nested(int levels) {
  return "{\"a\": " + std::string(static_cast<std::size_t>(levels - 1), '[') + "1" +
         std::string(static_cast<std::size_t>(levels - 1), ']') + "}";
}

}  // namespace

TEST_CASE("read_json_file: 64 levels of arrays and objects are read, 65 refused before parsing", "[record][json]") {
  test::TempDir dir;
  const std::string path = (dir / "manifest.json").string();
  test::write_file(path, nested(64));
  const JsonFile at_limit = read_json_file(path, "manifest");
  CHECK(at_limit.state == JsonFile::State::read);
  CHECK(at_limit.problem.empty());
  test::write_file(path, nested(65));
  const JsonFile past = read_json_file(path, "manifest");
  CHECK(past.state == JsonFile::State::malformed);
  // The 65th level is the 64th '[' after the object's '{': bytes 0 (the '{') to 6 + 63.
  CHECK(past.problem == path + ": byte 69: arrays and objects nested deeper than 64 levels; no JSON file fovea reads "
                               "needs as many");
  CHECK(past.json.is_null());
  CHECK(kMaxJsonDepth == 64);
}

TEST_CASE("read_json_file: a value nested 100,000 deep is refused at once, with the file named", "[record][json]") {
  test::TempDir dir;
  const std::string path = (dir / "summary.json").string();
  for (const std::string open : {"[", "{\"a\":"}) {
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += open;
    test::write_file(path, deep);  // cut short too: refused for its depth first
    const auto start = std::chrono::steady_clock::now();
    const JsonFile j = read_json_file(path, "summary");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    CHECK(j.state == JsonFile::State::malformed);
    CHECK_THAT(j.problem, Catch::StartsWith(path + ": byte "));
    CHECK_THAT(j.problem, Catch::Contains("nested deeper than 64 levels"));
  }
}

TEST_CASE("json_too_deep_at: brackets inside strings, escaped quotes included, do not count", "[record][json]") {
  CHECK_FALSE(json_too_deep_at("{\"a\": \"" + std::string(100, '[') + "\"}").has_value());
  CHECK_FALSE(json_too_deep_at("[\"\\\"[[[[\", [1]]", 2).has_value());
  CHECK(json_too_deep_at("[\"\\\\\", [[1]]]", 2) == std::size_t{8});
  CHECK(json_too_deep_at("[[]]", 1) == std::size_t{1});
  CHECK_FALSE(json_too_deep_at("[][][]", 1).has_value());
}

TEST_CASE("parse_json_text: text that is not JSON names the place, never the whole of what it last read",
          "[record][json]") {
  const JsonFile cut = parse_json_text("{\"status\": \"compl", "out/manifest.json");
  CHECK(cut.state == JsonFile::State::malformed);
  CHECK_THAT(cut.problem, Catch::StartsWith("out/manifest.json: not JSON: [json.exception.parse_error.101] parse error at "
                                            "line 1, column "));
  // A string of a megabyte never closed: the message is short all the same.
  const JsonFile long_string = parse_json_text("{\"status\": \"" + std::string(1 << 20, 'x'), "m.json");
  CHECK(long_string.state == JsonFile::State::malformed);
  CHECK(long_string.problem.size() < 300);
  // A number past the largest double: nlohmann quotes the whole of it (found by the fuzz target).
  const JsonFile overflow = parse_json_text("{\"status\": " + std::string(100000, '5') + "}", "m.json");
  CHECK(overflow.state == JsonFile::State::malformed);
  CHECK_THAT(overflow.problem, Catch::StartsWith("m.json: not JSON: [json.exception.out_of_range.406] number overflow"));
  CHECK(overflow.problem.size() < 300);
  const JsonFile fine = parse_json_text("{\"status\": \"completed\"}", "m.json");
  CHECK(fine.state == JsonFile::State::read);
  CHECK(fine.json.at("status") == "completed");
}

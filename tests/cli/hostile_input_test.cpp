// Hostile input against the fovea binary (issue 22): each refusal is one line and exit
// status 2, never "terminate called ..." and an abort, and names the file at fault.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <string>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kFovea = FOVEA_BINARY;

std::size_t line_count(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

}  // namespace

TEST_CASE("hostile input: fovea validate refuses a device in one line, exit status 2", "[cli][hostile]") {
  TempDir dir;
  for (const std::string device : {"/dev/zero", "/dev/urandom"}) {
    INFO(device);
    // Before: std::bad_alloc escaped main, "terminate called ...", exit 134.
    const auto result = run_process({kFovea, "validate", device}, dir.path());
    CHECK(result.status == 2);
    CHECK(result.err == device + ": cannot read the config: not a regular file (a device, a pipe or a socket)\n");
  }
}

TEST_CASE("hostile input: fovea validate refuses a 50 MB config by its size", "[cli][hostile]") {
  TempDir dir;
  {
    std::ofstream out(dir / "flows.yaml");
    out << "frames: 5\nflows:\n";
    const std::string line = "  - {from: [0, 0, 0], to: [1, 1, 1], rate: 1}\n";
    for (std::size_t written = 0; written < 50'000'000; written += line.size()) out << line;
  }
  const auto result = run_process({kFovea, "validate", "flows.yaml"}, dir.path());
  CHECK(result.status == 2);
  CHECK(line_count(result.err) == 1);
  CHECK_THAT(result.err, StartsWith("flows.yaml: cannot read the config: it is "));
}

TEST_CASE("hostile input: a top-level list is blamed on the file, not on --frames", "[cli][hostile]") {
  TempDir dir;
  std::ofstream(dir / "list.yaml") << "- frames: 5\n- seed: 2\n";
  const auto result = run_process({kFovea, "run", "list.yaml", "--frames", "5", "--headless", "--out", "out"}, dir.path());
  CHECK(result.status == 2);
  CHECK(result.err == "list.yaml:1:1: expected a map of keys at the top level, found a list\n");
}

TEST_CASE("hostile input: fovea validate refuses an alias bomb at its line", "[cli][hostile]") {
  TempDir dir;
  {
    std::ofstream out(dir / "bomb.yaml");
    out << "frames: 5\nbomb:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (int level = 1; level < 9; ++level) {
      out << "  l" << level << ": &l" << level << " [";
      for (int i = 0; i < 10; ++i) out << (i ? ", " : "") << "*l" << level - 1;
      out << "]\n";
    }
  }
  // Before: 35 s for eight levels, past 120 s for nine, to say "unknown key".
  const auto result = run_process({kFovea, "validate", "bomb.yaml"}, dir.path());
  CHECK(result.status == 2);
  CHECK_THAT(result.err, StartsWith("bomb.yaml:7:"));
  CHECK_THAT(result.err, Contains("YAML aliases (*name) expand the document"));
}

TEST_CASE("hostile input: a .sph whose spheres reach past the largest world is refused at its line", "[cli][hostile]") {
  TempDir dir;
  std::ofstream(dir / "huge.sph") << "2 2\n0 0 0 0.5\n0 0 0 1e308\n0 0 0 0.25\n";
  std::ofstream(dir / "huge.yaml") << "world:\n  entities:\n    - count: 2\n      model: {shape: ball}\n"
                                      "      sphere_tree: {file: huge.sph, inflate: true}\n";
  // Before (issue 42): accepted, and `fovea run` failed at frame 2 in the broad phase, "box
  // from nan to nan".
  const auto result = run_process({kFovea, "validate", "huge.yaml"}, dir.path());
  CHECK(result.status == 2);
  CHECK(result.err == "huge.yaml:5:21: world.entities[0].sphere_tree.file: " + (dir / "huge.sph").string() +
                          ": line 3: a sphere may reach at most 1000000000 m from the model's centre (|centre| + "
                          "radius; the largest world), found \"0 0 0 1e308\"\n");
}

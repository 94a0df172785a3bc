// Hostile input against the fovea binary (issue 22): each refusal is one line and exit
// status 2, never "terminate called ..." and an abort, and names the file at fault.

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "config/settings_schema.hpp"
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

TEST_CASE("hostile input: a config with every list at its cap runs, and its config.yaml passes fovea validate",
          "[cli][hostile][caps]") {
  // Issue 42: 20,000 evaluate.budgets were accepted, and the config.yaml the run wrote back
  // (1.46 MB) was refused by fovea validate as over 1 MiB. Now each list has a cap
  // (tests/config/list_caps_test.cpp takes each to its edge); all of them at once, run and
  // written back, must load again.
  using namespace fovea::config;
  const auto list = [](std::size_t n, const std::function<std::string(std::size_t)>& element) {
    std::string text = "[";
    for (std::size_t i = 0; i < n; ++i) text += (i ? ", " : "") + element(i);
    return text + "]";
  };
  const auto number = [](std::size_t i) { return std::to_string(i + 1); };
  std::string config = "ground_truth: true\nschedule:\n  kind: priority_queues\n  queues: " +
                       std::to_string(kMaxBandEdges + 1) + "\n  band_edges: " +
                       list(kMaxBandEdges, [](std::size_t i) { return "0." + std::to_string(99 - i); }) + "\n";
  config += "world:\n  entities: " + list(kMaxEntityGroups, [](std::size_t i) {
              return "{name: g" + std::to_string(i) + ", count: 0}";
            }) + "\n";
  config += "evaluate:\n  schedulers: [round_robin, sequential, sorted_sequential, priority_queues, adaptive_queues, "
            "hybrid, oracle, eccentricity, random]\n  gaze: [tracked, landing, blind]\n  budgets: " +
            list(kMaxEvaluatedBudgets, [](std::size_t i) { return "{mode: work, tests: " + std::to_string(1000 + i) + "}"; }) +
            "\n  trees: [{builder: octree, fit: cell}, {builder: octree, fit: voxels}, {builder: tightest, fit: cell}, "
            "{builder: tightest, fit: voxels}, {builder: medial}]\n";
  static_assert(kMaxEvaluatedTreeSets == 5);
  config += "render:\n  overlays:\n    rings_deg: " + list(kMaxOverlayRings, number) + "\n";
  config += "demo:\n  rockfall:\n    player:\n      path: " +
            list(kMaxWaypoints, [](std::size_t i) { return "{x_m: " + std::to_string(i) + ", z_m: 0}"; }) + "\n";
  TempDir dir;
  std::ofstream(dir / "caps.yaml") << config;
  const auto run = run_process({kFovea, "run", "caps.yaml", "--frames", "2", "--headless", "--quiet", "--out", "out"},
                               dir.path());
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto size = std::filesystem::file_size(dir / "out" / "config.yaml");
  INFO(size << " bytes written back");
  CHECK(size < 512 * 1024);
  const auto validate = run_process({kFovea, "validate", "out/config.yaml"}, dir.path());
  CHECK(validate.err == "");
  CHECK(validate.status == 0);
  // One past one cap: refused at its key.
  const auto past = run_process(
      {kFovea, "validate", "caps.yaml", "--set",
       "evaluate.budgets=" + list(kMaxEvaluatedBudgets + 1, [](std::size_t) { return std::string("{}"); })},
      dir.path());
  CHECK(past.status == 2);
  CHECK_THAT(past.err, Contains("evaluate.budgets: expected at most 64 budgets, found 65"));
}

TEST_CASE("hostile input: a config whose config.yaml would pass 1 MiB is refused by fovea validate and fovea run",
          "[cli][hostile][caps]") {
  TempDir dir;
  {
    std::ofstream out(dir / "long.yaml");
    out << "world:\n  entities:\n";
    for (int g = 0; g < 256; ++g) out << "    - {count: 0, name: " << std::string(3500, 'a') << g << "}\n";
  }
  const std::string said = "long.yaml: the config a run writes back (config.yaml: every key, paths made absolute) would be ";
  const auto validate = run_process({kFovea, "validate", "long.yaml"}, dir.path());
  CHECK(validate.status == 2);
  CHECK_THAT(validate.err, StartsWith(said));
  CHECK(line_count(validate.err) == 1);
  const auto run = run_process({kFovea, "run", "long.yaml", "--frames", "1", "--headless", "--out", "out"}, dir.path());
  CHECK(run.status == 2);
  CHECK_THAT(run.err, StartsWith(said));
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "config.yaml"));
}

TEST_CASE("hostile input: a megabyte-long key or value is quoted as an excerpt, in one short line", "[cli][hostile]") {
  // Before: the whole key was quoted, a line of 1,000,220 bytes; the Python module, which
  // read the message with std::regex, died of it (issue 42).
  TempDir dir;
  const std::string key(1'000'000, 'k');
  std::ofstream(dir / "big_key.yaml") << "? " << key << "\n: 1\n";
  auto result = run_process({kFovea, "validate", "big_key.yaml"}, dir.path());
  CHECK(result.status == 2);
  CHECK(line_count(result.err) == 1);
  CHECK(result.err.size() < 400);  // the file, the excerpt, and the keys a config may have
  CHECK_THAT(result.err, StartsWith("big_key.yaml:1:3: " + std::string(60, 'k') + "... (1000000 bytes): unknown key; "));

  const std::string value(1'000'000, 'v');
  std::ofstream(dir / "big_value.yaml") << "schedule:\n  kind: " << value << "\n";
  result = run_process({kFovea, "validate", "big_value.yaml"}, dir.path());
  CHECK(result.status == 2);
  CHECK(line_count(result.err) == 1);
  CHECK(result.err.size() < 400);
  CHECK_THAT(result.err, StartsWith("big_value.yaml:2:9: schedule.kind: expected one of "));
  CHECK_THAT(result.err, Contains("found \"" + std::string(60, 'v') + "... (1000000 bytes)\""));

  // A --set argument may be at most 128 KiB (Linux's MAX_ARG_STRLEN): 100,000 bytes of it.
  std::ofstream(dir / "small.yaml") << "frames: 5\n";
  const std::string set_value(100'000, 's');
  result = run_process({kFovea, "validate", "small.yaml", "--set", "schedule.kind=" + set_value}, dir.path());
  CHECK(result.status == 2);
  CHECK(line_count(result.err) == 1);
  CHECK(result.err.size() < 400);
  CHECK_THAT(result.err, StartsWith("--set schedule.kind=" + std::string(46, 's') + "... (100014 bytes): schedule.kind: "));
  result = run_process({kFovea, "validate", "small.yaml", "--set", set_value + "=1"}, dir.path());
  CHECK(result.status == 2);
  CHECK(result.err.size() < 400);
  CHECK_THAT(result.err, StartsWith("--set " + std::string(60, 's') + "... (100002 bytes): " + std::string(60, 's') +
                                    "... (100000 bytes): unknown key; "));
}

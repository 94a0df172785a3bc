// Hostile input against the readers (issue 22): what each refuses, with what message, and
// that the refusal comes before any work a bad file could make endless. Each case here once
// cost minutes, aborted the program, or blamed the wrong place.

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "core/file_read.hpp"
#include "gaze/replay_gaze.hpp"
#include "psychophysics/clip_records.hpp"
#include "psychophysics/display_calibration.hpp"
#include "psychophysics/trial_records.hpp"
#include "record/csv_reader.hpp"
#include "record/csv_writer.hpp"
#include "record/json_file.hpp"
#include "spheretree/sph_file.hpp"
#include "spheretree/vox_file.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"
#include "support/fifo.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using fovea::config::ConfigError;
using fovea::config::load_config_text;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

/// "billion laughs": `levels` anchors, each a list of ten aliases of the one before, under an
/// unknown key (the key check walked every expanded node and built a path for each).
std::string alias_bomb(int levels) {
  std::string text = "frames: 5\nbomb:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level < levels; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    text += "  l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", " : "") + previous;
    text += "]\n";
  }
  return text;
}

std::string error_of(const std::string& yaml, const std::vector<config::Override>& overrides = {}) {
  try {
    load_config_text(yaml, "hostile.yaml", overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("hostile input: an alias bomb is refused at the alias that passes the limit, without expanding it",
          "[config][hostile]") {
  // Twelve levels expand to 10^12 values: before the limit, refusing it walked them all.
  const std::string bomb = alias_bomb(12);
  CHECK(bomb.size() < 1000);
  const std::string message = error_of(bomb);
  // The fifth anchor, l4 on line 7, is the first to pass 100,000 values: its aliases of l3
  // add 11,111 each, after l1 to l3 added 12,330.
  CHECK_THAT(message, StartsWith("hostile.yaml:7:"));
  CHECK_THAT(message, Contains("YAML aliases (*name) expand the document by more than 100000 nodes"));
}

TEST_CASE("hostile input: a --set value that is an alias bomb is refused too", "[config][hostile]") {
  std::string value = "{a: &a [x, x, x, x, x, x, x, x, x, x]";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = std::string(1, static_cast<char>('a' + level - 1));
    const std::string name = std::string(1, static_cast<char>('a' + level));
    value += ", " + name + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) value += (i ? ", *" : "*") + previous;
    value += "]";
  }
  value += "}";
  const std::string message = error_of("frames: 5\n", {config::set_override("bomb=" + value)});
  // The argument is named, without a line and column counted inside the value, and quoted as
  // every input is, an excerpt: its first 60 bytes and its length.
  CHECK_THAT(message, StartsWith("--set bomb=" + value.substr(0, 55) + "... (" + std::to_string(5 + value.size()) +
                                 " bytes): YAML aliases (*name) expand the document by more than"));
}

TEST_CASE("hostile input: aliases within the limit still share values as YAML means", "[config][hostile]") {
  const auto loaded = load_config_text("world:\n  entities:\n    - &rocks {count: 3, model: {shape: rock}}\n    - *rocks\n",
                                       "shared.yaml");
  REQUIRE(loaded.settings.world.entities.size() == 2);
  CHECK(loaded.settings.world.entities[1].count == 3);
}

TEST_CASE("hostile input: an alias inside its own anchor is refused, not walked without end", "[config][hostile]") {
  // Two aliases of the list inside itself: every walk of it doubled at each level.
  CHECK(error_of("bomb: &a [*a, *a]\n") ==
        "hostile.yaml:1:11: an alias (*name) inside the node its anchor (&name) marks would make an endless document");
}

TEST_CASE("hostile input: nesting deeper than 64 levels is refused at its line, naming the limit", "[config][hostile]") {
  // Thousands deep, yaml-cpp itself gave up with "bad file" and no place.
  const std::string deep = "frames: 5\nx: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  // The top-level map is the first level, so the 64th '[' opens the 65th.
  CHECK(error_of(deep) == "hostile.yaml:2:67: nested deeper than 64 levels of lists and maps; no config needs as many");
  // 64 levels are fine as YAML (the key is then unknown, which is another message).
  CHECK_THAT(error_of("x: " + std::string(63, '[') + std::string(63, ']') + "\n"), Contains("x: unknown key"));
}

TEST_CASE("hostile input: a stray ',' is refused, where yaml-cpp's reader of documents looped without end",
          "[config][hostile]") {
  // Found by the config fuzz target: yaml-cpp 0.7 starts the same empty document forever.
  CHECK(error_of(",") == "hostile.yaml:1:1: YAML syntax error: the YAML reader cannot go past this point (a ',' outside [ ] or { }?)");
  CHECK(error_of("frames: 5\n,\n") != "");
  CHECK(error_of("frames: 5\n---\nseed: 2\n") == "hostile.yaml:3:1: a config is one YAML document; this is a second one (after ---)");
}

TEST_CASE("hostile input: text that is not UTF-8 is refused at its place, since config.yaml could not hold it",
          "[config][hostile]") {
  // Found by the config fuzz target: the resolved config.yaml wrote the bytes back as U+FFFD.
  CHECK(error_of("gaze: {surface: scr\xff\xfe""een}\n") ==
        "hostile.yaml:1:17: not UTF-8 text; a YAML file is UTF-8 (save it as UTF-8)");
  CHECK(error_of("gaze: {surface: \xc0\xaf}\n") != "");  // an overlong '/'
  CHECK(error_of("gaze: {surface: \xed\xa0\x80}\n") != "");  // a surrogate
  // UTF-8 text is text, counted in characters: 200 characters of three bytes each are fine.
  std::string long_text;
  for (int i = 0; i < 200; ++i) long_text += "\xe6\xbc\xa2";
  const auto loaded = load_config_text("gaze: {surface: " + long_text + "}\n", "utf8.yaml");
  CHECK(loaded.settings.gaze.surface == long_text);
}

TEST_CASE("hostile input: a top level that is not a map is the file's error, whatever the overrides", "[config][hostile]") {
  const std::vector<config::Override> frames = {{"frames=5", "--frames 5"}};
  CHECK(error_of("- a\n- b\n", frames) == "hostile.yaml:1:1: expected a map of keys at the top level, found a list");
  CHECK(error_of("- a\n- b\n") == "hostile.yaml:1:1: expected a map of keys at the top level, found a list");
  CHECK_THAT(error_of("just text\n", {config::set_override("seed=3")}),
             StartsWith("hostile.yaml:1:1: expected a map of keys at the top level, found"));
}

TEST_CASE("hostile input: every reader refuses a device, a folder and a missing file in one line", "[hostile]") {
  test::TempDir dir;
  const auto refused = [](const std::function<void()>& read) -> std::string {
    try {
      read();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "accepted";
  };
  for (const std::string path : {"/dev/zero", "/dev/urandom"}) {
    INFO(path);
    const std::string device = path + ": cannot read the ";
    const std::string why = ": not a regular file (a device, a pipe or a socket)";
    CHECK(refused([&] { (void)config::load_config_file(path); }) == device + "config" + why);
    CHECK(refused([&] { (void)config::load_experiment_file(path); }) == device + "experiment" + why);
    CHECK(refused([&] { (void)load_study_file(path); }) == device + "study file" + why);
    CHECK(refused([&] { (void)read_vox_file(path); }) == device + ".vox file" + why);
    CHECK(refused([&] { (void)read_sph_file(path, Vec3(0.0)); }) == device + ".sph file" + why);
    CHECK(refused([&] { (void)read_gaze_csv(path); }) == device + "gaze recording" + why);
    CHECK(refused([&] { (void)read_display_lut(path); }) == device + "display lookup table" + why);
    CHECK(refused([&] { (void)read_csv(path); }) == path + ": cannot read" + why);
    CHECK(refused([&] { (void)read_trial_records(path); }) == path + ": cannot read" + why);
  }
  const std::string folder = dir.path().string();
  CHECK(refused([&] { (void)config::load_config_file(folder); }) == folder + ": cannot read the config: it is a folder, not a file");
  CHECK(refused([&] { (void)read_vox_file(folder); }) == folder + ": cannot read the .vox file: it is a folder, not a file");
  const std::string missing = (dir / "missing.yaml").string();
  CHECK(refused([&] { (void)config::load_config_file(missing); }) == missing + ": cannot read the config: no such file");
}

TEST_CASE("hostile input: every reader refuses a FIFO at once, with no writer, and never waits on it",
          "[hostile][fifo]") {
  // Each reader opens its file once, without blocking, and checks the open descriptor (issue
  // 42); a reader that opened a FIFO plainly waited for a writer for ever (CsvWriter's append
  // did, resuming a session's trials.csv). Each call runs under a guard that releases it and
  // fails the test after 10 s instead.
  test::TempDir dir;
  const std::string path = (dir / "fifo").string();
  test::make_fifo(path);
  const std::string why = ": not a regular file (a device, a pipe or a socket)";
  const std::string kind = path + ": cannot read the ";
  const auto refused = [&](const std::function<void()>& read) {
    return test::returns_within(read, path).value_or("waited on the FIFO");
  };
  CHECK(refused([&] { (void)config::load_config_file(path); }) == kind + "config" + why);
  CHECK(refused([&] { (void)config::load_experiment_file(path); }) == kind + "experiment" + why);
  CHECK(refused([&] { (void)load_study_file(path); }) == kind + "study file" + why);
  CHECK(refused([&] { (void)read_vox_file(path); }) == kind + ".vox file" + why);
  CHECK(refused([&] { (void)read_sph_file(path, Vec3(0.0)); }) == kind + ".sph file" + why);
  CHECK(refused([&] { (void)read_gaze_csv(path); }) == kind + "gaze recording" + why);
  CHECK(refused([&] { (void)read_display_lut(path); }) == kind + "display lookup table" + why);
  CHECK(refused([&] { (void)read_csv(path); }) == path + ": cannot read" + why);
  CHECK(refused([&] { (void)read_trial_records(path); }) == path + ": cannot read" + why);
  CHECK(refused([&] { (void)read_clip_records(path); }) == path + ": cannot read" + why);
  CHECK(refused([&] {
          const JsonFile j = read_json_file(path, "manifest");
          throw std::runtime_error(j.problem);
        }) == kind + "manifest" + why);
  CHECK(refused([&] { CsvWriter append(path, {"trial"}, CsvWriter::Open::append); }) ==
        path + ": cannot append" + why);
}

TEST_CASE("hostile input: a config larger than 1 MiB is refused before it is read", "[config][hostile]") {
  test::TempDir dir;
  const auto path = dir / "flows.yaml";
  {
    // A valid-looking list of 50 MB: reading and parsing it all ran out of memory.
    std::ofstream out(path);
    out << "frames: 5\nflows:\n";
    const std::string line = "  - {from: [0, 0, 0], to: [1, 1, 1], rate: 1}\n";
    for (std::size_t written = 0; written < 50'000'000; written += line.size()) out << line;
  }
  std::string message;
  try {
    (void)config::load_config_file(path.string());
  } catch (const ConfigError& e) {
    message = e.what();
  }
  CHECK_THAT(message, StartsWith(path.string() + ": cannot read the config: it is "));
  CHECK_THAT(message, Contains("bytes, more than the 1 MiB a config may be"));
}

TEST_CASE("hostile input: a study crossing to more runs than kMaxStudyRuns is refused before it is planned",
          "[study][hostile]") {
  test::TempDir dir;
  test::write_file(dir / "base.yaml", "frames: 5\n");
  // Seven factors of ten levels: 10^7 runs from a few lines.
  std::string study = "name: huge\nbase: base.yaml\nfactors:\n";
  for (int f = 0; f < 7; ++f) {
    study += "  f" + std::to_string(f) + ":\n    key: seed\n    values: [";
    for (int v = 0; v < 10; ++v) study += (v ? ", " : "") + std::to_string(f * 10 + v);
    study += "]\n";
  }
  study += "metrics:\n  columns: {p_est: [mean]}\n";
  test::write_file(dir / "huge.yaml", study);
  std::string message;
  try {
    (void)plan_runs(load_study_file((dir / "huge.yaml").string()));
  } catch (const ConfigError& e) {
    message = e.what();
  }
  CHECK_THAT(message, Contains("factors: the crossing has more than " + std::to_string(kMaxStudyRuns) + " runs"));
}

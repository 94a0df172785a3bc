#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "core/format.hpp"
#include "record/run_folder.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

/// A run's folder as fovea run leaves it: a manifest with `status` counting `counted` frames,
/// and a frames.csv of `rows` rows.
std::filesystem::path run_folder(const test::TempDir& dir, const std::string& status, int counted, int rows) {
  const std::filesystem::path folder = dir / "run";
  std::filesystem::create_directories(folder);
  test::write_file(folder / "manifest.json",
        R"({"seed": 1, "status": ")" + status + R"(", "frames_completed": )" + std::to_string(counted) + "}\n");
  std::string frames = "frame,sim_time_s\n";
  for (int f = 0; f < rows; ++f) frames += std::to_string(f) + ",0.0" + std::to_string(f) + "\n";
  test::write_file(folder / "frames.csv", frames);
  return folder;
}

}  // namespace

TEST_CASE("run folder: a completed run whose frames.csv holds every frame is whole", "[record][run_folder]") {
  const test::TempDir dir;
  const RunFolderCheck check = check_run_folder(run_folder(dir, "completed", 3, 3));
  CHECK(check.verdict == RunFolderCheck::Verdict::whole);
  CHECK(check.problem.empty());
  CHECK(check.manifest.at("seed") == 1);
  CHECK(check.frames.rows.size() == 3);
}

TEST_CASE("run folder: a run that did not end well, or a file cut short, is incomplete", "[record][run_folder]") {
  const test::TempDir dir;
  SECTION("killed") {
    const RunFolderCheck check = check_run_folder(run_folder(dir, "running", 0, 2));
    CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
    CHECK(check.problem == "its manifest says running");
    CHECK(check.manifest.at("status") == "running");  // read, for a reader that takes what there is
  }
  SECTION("frames.csv short of the manifest's count") {
    const RunFolderCheck check = check_run_folder(run_folder(dir, "completed", 5, 4));
    CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
    CHECK(check.problem == "its frames.csv holds 4 of the 5 frames its manifest.json counts");
  }
  SECTION("frames.csv past it") {
    CHECK(check_run_folder(run_folder(dir, "completed", 2, 3)).problem ==
          "its frames.csv holds 3 frames, its manifest.json counts 2");
  }
  SECTION("a last row cut mid-write") {
    const std::filesystem::path folder = run_folder(dir, "completed", 2, 2);
    test::write_file(folder / "frames.csv", "frame,sim_time_s\n0,0.00\n1");
    const RunFolderCheck check = check_run_folder(folder);
    CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
    CHECK(check.problem.rfind("its frames.csv is cut short or damaged (", 0) == 0);
  }
  SECTION("a last row cut where what is left still parses") {
    // Cut inside its last number, after its last comma (an empty cell), or just its newline:
    // each leaves a row of as many cells as the header, and none finished.
    const std::filesystem::path folder = run_folder(dir, "completed", 2, 2);
    for (const char* cut : {"frame,sim_time_s\n0,0.00\n1,0.0", "frame,sim_time_s\n0,0.00\n1,", "frame,sim_time_s\n0,0.00\n1,0.01"}) {
      INFO(cut);
      test::write_file(folder / "frames.csv", cut);
      const RunFolderCheck check = check_run_folder(folder);
      CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
      CHECK(check.problem == "its frames.csv is cut short or damaged (" + (folder / "frames.csv").string() +
                                 ":3: its last row has no line end; it was never finished)");
    }
  }
  SECTION("no manifest, a damaged one, no frames.csv") {
    const std::filesystem::path folder = run_folder(dir, "completed", 2, 2);
    test::write_file(folder / "manifest.json", R"({"status": "compl)");
    // The reader's words follow, naming the file and the place.
    CHECK_THAT(check_run_folder(folder).problem,
               Catch::StartsWith("its manifest.json is cut short or damaged (" + (folder / "manifest.json").string() +
                                 ": not JSON: [json.exception.parse_error.101] parse error at line 1, column "));
    CHECK(check_run_folder(folder).manifest.is_null());
    test::write_file(folder / "manifest.json", "[1, 2]");
    CHECK(check_run_folder(folder).problem ==
          "its manifest.json is cut short or damaged (" + (folder / "manifest.json").string() + ": not a JSON object)");
    std::filesystem::remove(folder / "manifest.json");
    CHECK(check_run_folder(folder).problem == "it has no manifest.json");
    run_folder(dir, "completed", 2, 2);
    std::filesystem::remove(folder / "frames.csv");
    CHECK(check_run_folder(folder).problem == "it has no frames.csv");
  }
}

TEST_CASE("run folder: a file the OS does not give is unreadable, not damaged", "[record][run_folder]") {
  const test::TempDir dir;
  const std::filesystem::path folder = run_folder(dir, "completed", 2, 2);
  std::filesystem::remove(folder / "manifest.json");
  std::filesystem::create_directory(folder / "manifest.json");
  const RunFolderCheck check = check_run_folder(folder);
  CHECK(check.verdict == RunFolderCheck::Verdict::unreadable);
  CHECK(check.problem.rfind("its manifest.json cannot be read (", 0) == 0);
}

TEST_CASE("run folder: a manifest nested 100,000 deep is damaged, named, and read in no time (issue 42)",
          "[record][run_folder]") {
  const test::TempDir dir;
  const std::filesystem::path folder = run_folder(dir, "completed", 2, 2);
  // A manifest whose status is a list in a list ... 100,000 deep: copying it to read the
  // status, and printing it to say what it was, recursed once per level, and `fovea sweep`
  // died by a stack overflow, nothing said.
  test::write_file(folder / "manifest.json", R"({"frames_completed": 2, "status": )" + std::string(100000, '[') +
                                                 std::string(100000, ']') + "}\n");
  const RunFolderCheck check = check_run_folder(folder);
  CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
  CHECK(check.problem == "its manifest.json is cut short or damaged (" + (folder / "manifest.json").string() +
                             ": byte 97: arrays and objects nested deeper than 64 levels; no JSON file fovea reads needs "
                             "as many)");
  CHECK(check.manifest.is_null());
}

TEST_CASE("run folder: a status of megabytes is quoted in part, with its length", "[record][run_folder]") {
  const test::TempDir dir;
  const std::filesystem::path folder = run_folder(dir, std::string(1 << 20, 'x'), 2, 2);
  const RunFolderCheck check = check_run_folder(folder);
  CHECK(check.verdict == RunFolderCheck::Verdict::incomplete);
  CHECK(check.problem == "its manifest says " + std::string(kMaxQuotedBytes - 20, 'x') + "... (1048576 bytes)");
}

#include <catch2/catch.hpp>

#include <fstream>

#include "record/results_folder.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

TEST_CASE("results folder: <name>-<UTC time>, suffixed when two runs share a second", "[record][folder]") {
  test::TempDir dir;
  const WallTime t = std::chrono::system_clock::from_time_t(1795232736);  // 2026-11-21T03:45:36Z
  CHECK(utc_compact(t) == "20261121T034536Z");
  CHECK(utc_iso8601(t) == "2026-11-21T03:45:36.000Z");
  const auto first = create_run_folder(dir / "results", "demo", t);
  const auto second = create_run_folder(dir / "results", "demo", t);
  CHECK(first.filename() == "demo-20261121T034536Z");
  CHECK(second.filename() == "demo-20261121T034536Z-2");
}

TEST_CASE("results folder: --out must be new or empty", "[record][folder]") {
  test::TempDir dir;
  CHECK(create_named_run_folder(dir / "a" / "b") == dir / "a" / "b");
  CHECK(create_named_run_folder(dir / "a" / "b") == dir / "a" / "b");  // still empty: fine
  std::ofstream(dir / "a" / "b" / "frames.csv") << "x\n";
  CHECK_THROWS_WITH(create_named_run_folder(dir / "a" / "b"),
                    (dir / "a" / "b").string() +
                        ": --out folder is not empty; choose a new folder so no results are overwritten");
}

TEST_CASE("write_file_atomically: replaces the whole file", "[record][folder]") {
  test::TempDir dir;
  write_file_atomically(dir / "m.json", "first");
  write_file_atomically(dir / "m.json", "second");
  CHECK(test::read_file(dir / "m.json") == "second");
  CHECK_FALSE(std::filesystem::exists(dir / "m.json.tmp"));
}

#include <catch2/catch.hpp>

#include <fstream>
#include <stdexcept>

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

TEST_CASE("write_csv_atomically: the whole table or the one before, never a partial file", "[record][folder]") {
  test::TempDir dir;
  const auto path = dir / "table.csv";
  write_csv_atomically(path, {"run", "x"}, [](CsvWriter& csv) {
    csv.cell(std::int64_t{0}).cell(0.5).end_row(CsvWriter::Flush::later);
    csv.cell(std::int64_t{1}).cell(2.0).end_row(CsvWriter::Flush::later);
  });
  CHECK(test::read_file(path) == "run,x\n0,0.5\n1,2\n");
  CHECK_FALSE(std::filesystem::exists(dir / "table.csv.partial"));
  // A write that fails part way leaves the table before it, and no partial file.
  CHECK_THROWS_WITH(write_csv_atomically(path, {"run", "x"},
                                         [](CsvWriter& csv) {
                                           csv.cell(std::int64_t{2}).cell(1.0).end_row();
                                           throw std::runtime_error("stopped");
                                         }),
                    "stopped");
  CHECK(test::read_file(path) == "run,x\n0,0.5\n1,2\n");
  CHECK_FALSE(std::filesystem::exists(dir / "table.csv.partial"));
}

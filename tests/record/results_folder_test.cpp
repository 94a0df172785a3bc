#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

#include "record/results_folder.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

/// While it lives, no file this process writes can grow past `bytes`: writes past it fail
/// with EFBIG (SIGXFSZ ignored), as they fail with ENOSPC on a full disk.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &before_);
    previous_handler_ = signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, before_.rlim_max};
    REQUIRE(setrlimit(RLIMIT_FSIZE, &limit) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &before_);
    signal(SIGXFSZ, previous_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit before_{};
  sighandler_t previous_handler_ = SIG_DFL;
};

}  // namespace

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

TEST_CASE("write_file_atomically and write_csv_atomically on a full disk: the file before, no temporary, and why",
          "[record][folder]") {
  test::TempDir dir;
  write_file_atomically(dir / "m.json", "first");
  write_csv_atomically(dir / "table.csv", {"run"}, [](CsvWriter& csv) { csv.cell(std::int64_t{0}).end_row(); });
  {
    const FileSizeLimit full(4);
    CHECK_THROWS_WITH(write_file_atomically(dir / "m.json", "second, too long for the disk"),
                      (dir / "m.json").string() + ": cannot write: File too large");
    CHECK_THROWS_WITH(write_csv_atomically(dir / "table.csv", {"run"},
                                           [](CsvWriter& csv) { csv.cell(std::int64_t{1}).end_row(); }),
                      Catch::Contains("File too large"));
  }
  CHECK(test::read_file(dir / "m.json") == "first");
  CHECK(test::read_file(dir / "table.csv") == "run\n0\n");
  CHECK_FALSE(std::filesystem::exists(dir / "m.json.tmp"));
  CHECK_FALSE(std::filesystem::exists(dir / "table.csv.partial"));
  // A temporary of the same name that is not the writer's (a folder, here) is left alone.
  std::filesystem::create_directories(dir / "n.json.tmp" / "x");
  CHECK_THROWS_WITH(write_file_atomically(dir / "n.json", "text"),
                    (dir / "n.json").string() + ": cannot write: Is a directory");
  CHECK(std::filesystem::exists(dir / "n.json.tmp" / "x"));
}

TEST_CASE("file_write_problem and folder_write_problem: the OS's reason, and nothing left changed", "[record][folder]") {
  test::TempDir dir;
  std::ofstream(dir / "afile") << "kept";
  std::filesystem::create_directories(dir / "folder");
  CHECK(file_write_problem(dir / "new.txt") == "");
  CHECK_FALSE(std::filesystem::exists(dir / "new.txt"));
  CHECK(file_write_problem(dir / "afile") == "");
  CHECK(test::read_file(dir / "afile") == "kept");
  CHECK(file_write_problem(dir / "folder") == "Is a directory");
  CHECK(file_write_problem(dir / "afile" / "x") == "Not a directory");
  CHECK(file_write_problem(dir / "missing" / "x") == "No such file or directory");

  CHECK(folder_write_problem(dir / "folder") == "");
  CHECK(folder_write_problem(dir / "missing" / "deeper") == "");
  CHECK_FALSE(std::filesystem::exists(dir / "missing"));
  CHECK(folder_write_problem(dir / "afile") == "Not a directory");
  CHECK(folder_write_problem(dir / "afile" / "sub") == "Not a directory");
  CHECK(std::distance(std::filesystem::directory_iterator(dir / "folder"), std::filesystem::directory_iterator()) == 0);

  CHECK_THROWS_WITH(create_folders(dir / "afile" / "sub"), (dir / "afile" / "sub").string() + ": cannot create the folder: Not a directory");
}

TEST_CASE("file_write_problem: asks what the write needs, a folder that takes a new file and a name that is no folder",
          "[record][folder]") {
  test::TempDir dir;
  // A pipe where the file goes cannot be opened for writing without a reader, yet the write
  // (a temporary renamed over it) replaces it.
  REQUIRE(mkfifo((dir / "pipe").c_str(), 0644) == 0);
  CHECK(file_write_problem(dir / "pipe") == "");
  write_file_atomically(dir / "pipe", "text");
  CHECK(test::read_file(dir / "pipe") == "text");
  // A file that can be opened for writing, in a folder where no file can be created: the
  // temporary could not be made, so the write would fail after the work.
  const std::filesystem::path writable_in_fixed_folder = "/proc/self/comm";
  REQUIRE(::access(writable_in_fixed_folder.c_str(), W_OK) == 0);
  CHECK(file_write_problem(writable_in_fixed_folder) != "");
  CHECK_THROWS(write_file_atomically(writable_in_fixed_folder, "x"));
  // Nothing left behind by the probes.
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()) == 1);
  // Permissions hold back all but root.
  if (::geteuid() != 0) {
    std::ofstream(dir / "read-only") << "kept";
    std::filesystem::permissions(dir / "read-only", std::filesystem::perms::owner_read);
    CHECK(file_write_problem(dir / "read-only") == "");
    std::filesystem::create_directories(dir / "fixed");
    std::ofstream(dir / "fixed" / "writable") << "kept";
    std::filesystem::permissions(dir / "fixed", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    CHECK(file_write_problem(dir / "fixed" / "writable") == "Permission denied");
    std::filesystem::permissions(dir / "fixed", std::filesystem::perms::owner_all);
  }
}

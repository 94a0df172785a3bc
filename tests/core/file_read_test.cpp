// The one bounded, non-blocking open every reader goes through (core/file_read.hpp): what it
// reads, what it refuses, and that a path swapped between a file and a FIFO never makes it
// wait (issue 42: `fovea validate` hung 3 times in 232 while cfg.yaml was swapped so).

#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/file_read.hpp"
#include "support/fifo.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
namespace fs = std::filesystem;

TEST_CASE("RegularFile: reads a file whole, by chunks and as a stream, within its limit", "[core][file_read]") {
  test::TempDir dir;
  const fs::path path = dir / "text.txt";
  const std::string text = "one\ntwo\nthree\n";
  test::write_file(path, text);
  CHECK(read_regular_file(path.string(), text.size(), "text") == text);
  RegularFile file(path.string(), 100, "text");
  CHECK(file.size() == text.size());
  char chunk[5];
  std::string read;
  for (std::size_t got; (got = file.read(chunk, sizeof chunk)) > 0;) read.append(chunk, got);
  CHECK(read == text);
  RegularFileStream stream(path.string(), 100, "text");
  std::string line, lines;
  while (std::getline(stream, line)) lines += line + "|";
  CHECK(lines == "one|two|three|");
  CHECK_NOTHROW(stream.throw_if_failed());
  // One byte past the limit: refused before anything is read, naming the kind and the limit.
  CHECK_THROWS_WITH(read_regular_file(path.string(), text.size() - 1, "text"),
                    path.string() + ": cannot read the text: it is 14 bytes, more than the 13 bytes a text may be");
  CHECK_THROWS_WITH(RegularFileStream(path.string(), 13, ""),
                    path.string() + ": cannot read: it is 14 bytes, more than the 13 bytes fovea reads");
  CHECK_THROWS_WITH(read_regular_file((dir / "missing").string(), 100, "config"),
                    (dir / "missing").string() + ": cannot read the config: no such file");
  CHECK_THROWS_WITH(read_regular_file((dir / "missing" / "x").string(), 100, "config"),
                    (dir / "missing" / "x").string() + ": cannot read the config: no such file");
  CHECK_THROWS_WITH(read_regular_file(dir.path().string(), 100, "config"),
                    dir.path().string() + ": cannot read the config: it is a folder, not a file");
}

TEST_CASE("RegularFile: a FIFO without a writer is refused at once, never waited on", "[core][file_read][fifo]") {
  test::TempDir dir;
  const fs::path fifo = dir / "cfg.yaml";
  test::make_fifo(fifo);
  const std::string refused = fifo.string() + ": cannot read the config: not a regular file (a device, a pipe or a socket)";
  CHECK(test::returns_within([&] { (void)read_regular_file(fifo.string(), kMaxConfigFileBytes, "config"); }, fifo) ==
        refused);
  CHECK(test::returns_within([&] { RegularFileStream in(fifo.string(), kMaxConfigFileBytes, "config"); }, fifo) == refused);
  // A symbolic link to it is followed to it, and refused the same.
  fs::create_symlink(fifo, dir / "link.yaml");
  CHECK(test::returns_within([&] { (void)read_regular_file((dir / "link.yaml").string(), 100, ""); }, fifo) ==
        (dir / "link.yaml").string() + ": cannot read: not a regular file (a device, a pipe or a socket)");
}

TEST_CASE("read_regular_file: a path swapped between a file and a FIFO is read or refused, never waited on",
          "[core][file_read][fifo]") {
  // Another thread swaps cfg.yaml between a regular file and a FIFO with rename(2), as fast
  // as it can, while this one reads it. A reader that checks the path and then opens it
  // (the reader before issue 42) is caught between the two, now and then, with the FIFO
  // opened for reading and no writer: it waits for ever. A hard link keeps the FIFO at a
  // name that never moves, which the guard opens to release a reader caught so.
  test::TempDir dir;
  const fs::path path = dir / "cfg.yaml";
  const fs::path file = dir / "file.yaml", fifo = dir / "fifo.yaml", keep = dir / "fifo.keep";
  const std::string text = "frames: 5\n";
  test::write_file(file, text);
  test::make_fifo(fifo);
  REQUIRE(::link(fifo.c_str(), keep.c_str()) == 0);
  REQUIRE(::link(file.c_str(), path.c_str()) == 0);
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    // cfg.yaml becomes the FIFO, then the file again, each by one atomic rename from a link.
    const fs::path staged = dir / "staged";
    for (bool to_fifo = true; !stop; to_fifo = !to_fifo) {
      if (::link((to_fifo ? keep : file).c_str(), staged.c_str()) != 0) continue;
      std::rename(staged.c_str(), path.c_str());
    }
  });
  int read = 0, refused = 0;
  const auto reads = [&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (int i = 0; i < 20000 && std::chrono::steady_clock::now() < until; ++i) {
      try {
        const std::string got = read_regular_file(path.string(), kMaxConfigFileBytes, "config");
        if (got != text) throw std::logic_error("read '" + got + "'");
        ++read;
      } catch (const FileReadError& e) {
        if (std::string(e.what()).find("not a regular file (a device, a pipe or a socket)") == std::string::npos) throw;
        ++refused;
      }
    }
  };
  const std::optional<std::string> outcome = test::returns_within(reads, keep, std::chrono::seconds(30));
  stop = true;
  swapper.join();
  INFO(read << " reads of the file, " << refused << " refusals of the FIFO");
  REQUIRE(outcome.has_value());  // nullopt: a read waited on the FIFO
  CHECK(*outcome == "accepted");
  CHECK(read > 0);
  CHECK(refused > 0);
}

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "record/csv_writer.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

TEST_CASE("CsvWriter: header, exact numbers, RFC 4180 quoting", "[record][csv]") {
  test::TempDir dir;
  const std::string path = (dir / "t.csv").string();
  {
    CsvWriter csv(path, {"a", "b", "c"});
    csv.cell(std::int64_t{3}).cell(0.1 + 0.2).cell(std::string_view("plain"));
    csv.end_row();
    csv.cell(std::int64_t{-1}).cell(1e-9).cell(std::string_view("has, comma and \"quotes\""));
    csv.end_row();
  }
  CHECK(test::read_file(path) == "a,b,c\n3,0.30000000000000004,plain\n-1,1e-09,\"has, comma and \"\"quotes\"\"\"\n");
}

TEST_CASE("CsvWriter: each finished row is on disk before the next starts", "[record][csv]") {
  test::TempDir dir;
  const std::string path = (dir / "t.csv").string();
  CsvWriter csv(path, {"x"});
  csv.cell(std::int64_t{1});
  csv.end_row();
  csv.cell(std::int64_t{2});  // an unfinished row is not visible
  CHECK(test::read_file(path) == "x\n1\n");
  csv.end_row();
  CHECK(test::read_file(path) == "x\n1\n2\n");
}

TEST_CASE("CsvWriter: rows held with Flush later reach the file together, whole", "[record][csv]") {
  test::TempDir dir;
  const std::string path = (dir / "t.csv").string();
  CsvWriter csv(path, {"x", "y"});
  csv.cell(std::int64_t{1}).cell_or_missing(2.5).end_row(CsvWriter::Flush::later);
  csv.cell(std::int64_t{2}).cell_or_missing(std::nan("")).end_row(CsvWriter::Flush::later);
  CHECK(test::read_file(path) == "x,y\n");  // a frame's rows: none on disk yet
  csv.cell(std::int64_t{3});
  CHECK_THROWS_AS(csv.flush(), std::logic_error);  // never half a row
  csv.cell(std::int64_t{4}).end_row(CsvWriter::Flush::later);
  csv.flush();
  CHECK(test::read_file(path) == "x,y\n1,2.5\n2,\n3,4\n");
}

TEST_CASE("CsvWriter: a row with the wrong number of cells is refused", "[record][csv]") {
  test::TempDir dir;
  CsvWriter csv((dir / "t.csv").string(), {"a", "b"});
  csv.cell(1.0);
  CHECK_THROWS_AS(csv.end_row(), std::logic_error);
}

TEST_CASE("CsvWriter: an unwritable path is a clear error", "[record][csv]") {
  CHECK_THROWS_WITH(CsvWriter("/nonexistent/dir/t.csv", {"a"}),
                    "/nonexistent/dir/t.csv: cannot create: No such file or directory");
}

TEST_CASE("CsvWriter: appending keeps the rows there, drops a cut-off last line, refuses other columns",
          "[record][csv][append]") {
  test::TempDir dir;
  const std::string path = (dir / "t.csv").string();
  {
    CsvWriter csv(path, {"trial", "response"}, CsvWriter::Open::append);  // no file yet: created
    csv.cell(std::int64_t{1}).cell(std::string_view("yes"));
    csv.end_row(CsvWriter::Flush::durable);
  }
  CHECK(test::read_file(path) == "trial,response\n1,yes\n");
  // A power cut mid-row leaves a tail without its newline: appending drops it.
  {
    std::FILE* f = std::fopen(path.c_str(), "ab");
    std::fputs("2,y", f);
    std::fclose(f);
  }
  {
    CsvWriter csv(path, {"trial", "response"}, CsvWriter::Open::append);
    csv.cell(std::int64_t{2}).cell(std::string_view("no"));
    csv.end_row(CsvWriter::Flush::durable);
  }
  CHECK(test::read_file(path) == "trial,response\n1,yes\n2,no\n");
  CHECK_THROWS_WITH(CsvWriter(path, {"trial", "answer"}, CsvWriter::Open::append),
                    Catch::Contains("t.csv: its header is not this file's columns (trial,answer)"));
  CHECK(test::read_file(path) == "trial,response\n1,yes\n2,no\n");  // refused, untouched
  // Create truncates, as before.
  { CsvWriter csv(path, {"trial", "response"}); }
  CHECK(test::read_file(path) == "trial,response\n");
  CHECK(CsvWriter::header_line({"a", "b,c"}) == "a,\"b,c\"");
}

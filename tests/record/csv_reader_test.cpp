// The CSV reader's one rule for a file cut short (issue 42): a last record without its line
// end never finished. It is left out and said, never read as a row: a value cut from 2228 to
// 22 reads as well as a whole one.

#include <catch2/catch.hpp>

#include <string>

#include "record/csv_reader.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

TEST_CASE("parse_csv: a last line without its line end is left out and named, whatever it holds", "[record][csv]") {
  // The cut leaves a row of as many cells as the header: a number cut after a digit, after
  // its comma, inside or after a quoted cell, before a CR.
  for (const char* cut : {"run,collisions_mean\n0,11\n1,22", "run,collisions_mean\n0,11\n1,", "run,collisions_mean\n0,11\n1",
                          "run,collisions_mean\n0,11\n1,\"2", "run,collisions_mean\n0,11\n1,\"22\"",
                          "run,collisions_mean\n0,11\n1,\"22\nand more", "run,collisions_mean\r\n0,11\r\n1,22\r"}) {
    INFO(cut);
    const CsvTable table = parse_csv(cut, "table.csv");
    REQUIRE(table.rows.size() == 1);
    CHECK(table.rows[0].cells == std::vector<std::string>{"0", "11"});
    CHECK(table.unfinished_line == 3);
    CHECK(table.unfinished_note("table.csv") == "table.csv:3: its last row has no line end; it was never finished");
  }
  // Whole: nothing left out, nothing said.
  for (const char* whole : {"run,collisions_mean\n0,11\n1,2228\n", "run,collisions_mean\r\n0,11\r\n1,2228\r\n",
                            "run,collisions_mean\n0,11\n1,2228\n\n", "run,collisions_mean\n"}) {
    INFO(whole);
    const CsvTable table = parse_csv(whole, "table.csv");
    CHECK(table.unfinished_line == 0);
    CHECK(table.unfinished_note("table.csv").empty());
  }
  CHECK(parse_csv("run,x\n0,1\n1,2228\n", "t.csv").rows.back().cells[1] == "2228");
  // A header cut off has no table to give.
  CHECK_THROWS_WITH(parse_csv("run,colli", "table.csv"), "table.csv:1: the header row has no line end; the file was never finished");
  CHECK_THROWS_WITH(parse_csv("\n\nrun", "table.csv"), "table.csv:3: the header row has no line end; the file was never finished");
  // A file that ends with its line end and a quote never closed is damaged, not cut.
  CHECK_THROWS_WITH(parse_csv("run,x\n0,\"1\n", "table.csv"), "table.csv:2: a quoted cell is never closed (a \" is missing)");
  // The problems of the rows before the cut are still found.
  CHECK_THROWS_WITH(parse_csv("run,x\n0\n1,2", "table.csv"), "table.csv:2: this row has 1 cells, the header 2");
}

TEST_CASE("read_csv: a file cut short is read to its last whole row and says which line it left out", "[record][csv]") {
  test::TempDir dir;
  const std::string path = (dir / "table.csv").string();
  test::write_file(path, "run,collisions_mean\n0,11\n1,2228\n");
  const std::string whole = test::read_file(path);
  test::write_file(path, whole.substr(0, whole.size() - 3));  // the last 3 bytes lost: "1,22"
  const CsvTable table = read_csv(path);
  CHECK(table.rows.size() == 1);
  CHECK(table.unfinished_note(path) == path + ":3: its last row has no line end; it was never finished");
}

TEST_CASE("drop_unfinished_last_line: the text form of the rule, and the line it dropped", "[record][csv]") {
  std::string text = "a,b\n1,2\n3,";
  CHECK(drop_unfinished_last_line(text) == 3);
  CHECK(text == "a,b\n1,2\n");
  CHECK(drop_unfinished_last_line(text) == 0);
  CHECK(text == "a,b\n1,2\n");
  std::string header = "a,b";
  CHECK(drop_unfinished_last_line(header) == 1);
  CHECK(header.empty());
}

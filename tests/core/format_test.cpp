#include <catch2/catch.hpp>

#include <charconv>
#include <cmath>

#include "core/format.hpp"
#include "core/rng.hpp"

using namespace fovea;

TEST_CASE("format_number: shortest text that reads back exactly", "[core][format]") {
  CHECK(format_number(0.01) == "0.01");
  CHECK(format_number(1.0) == "1");
  CHECK(format_number(10000000.0) == "10000000");
  CHECK(format_number(-0.0) == "0");
  CHECK(format_number(1e-7) == "1e-07");
  CHECK(format_number(std::int64_t{-42}) == "-42");
  CHECK(format_number(0.1 + 0.2) == "0.30000000000000004");

  Rng rng(11);
  for (int i = 0; i < 10000; ++i) {
    const double v = std::ldexp(rng.uniform(-1, 1), static_cast<int>(rng.below(80)) - 40);
    const std::string text = format_number(v);
    double back = 0;
    std::from_chars(text.data(), text.data() + text.size(), back);
    REQUIRE(back == v);
  }
}

TEST_CASE("edit_distance: insertions, deletions, substitutions", "[core][format]") {
  CHECK(edit_distance("entites", "entities") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("same", "same") == 0);
}

TEST_CASE("aligned_table pads each column to its widest cell, two spaces apart", "[format]") {
  CHECK(fovea::aligned_table({{"a", "bb", "c"}, {"ccc", "d", "e"}}) == "a    bb  c\nccc  d   e\n");
  CHECK(fovea::aligned_table({}).empty());
}

TEST_CASE("excerpt quotes short text whole and long text cut, with its length, on one line", "[core][format]") {
  CHECK(fovea::excerpt("schedule.kind") == "schedule.kind");
  CHECK(fovea::excerpt("a\nb\tc\x01") == "a\\nb\\tc\\x01");
  const std::string key(1000000, 'k');
  const std::string quoted = fovea::excerpt(key);
  CHECK(quoted == std::string(fovea::kMaxQuotedBytes - 20, 'k') + "... (1000000 bytes)");
  CHECK(quoted.size() <= fovea::kMaxQuotedBytes);
  // Exactly at the limit is whole; one past is cut.
  CHECK(fovea::excerpt(std::string(fovea::kMaxQuotedBytes, 'x')) == std::string(fovea::kMaxQuotedBytes, 'x'));
  CHECK(fovea::excerpt(std::string(fovea::kMaxQuotedBytes + 1, 'x')).find("... (81 bytes)") != std::string::npos);
  // A two-byte character straddling the cut is left out whole, never halved.
  std::string accented(fovea::kMaxQuotedBytes - 21, 'a');
  for (int i = 0; i < 40; ++i) accented += "\xc3\xa9";
  const std::string cut = fovea::excerpt(accented);
  CHECK(cut.substr(0, cut.find("...")).size() == fovea::kMaxQuotedBytes - 21);
}

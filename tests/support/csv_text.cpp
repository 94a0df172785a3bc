#include "support/csv_text.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

namespace fovea::test {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells(1);
  for (const char c : line) {
    if (c == ',') cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

std::string without_wall_clock(const std::string& csv) {
  const auto lines = lines_of(csv);
  REQUIRE_FALSE(lines.empty());
  const auto header = split(lines[0]);
  std::string out;
  for (const auto& line : lines) {
    const auto cells = split(line);
    REQUIRE(cells.size() == header.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
      if (header[c].size() < 3 || header[c].compare(header[c].size() - 3, 3, "_ms") != 0) out += cells[c] + ",";
    out += "\n";
  }
  return out;
}

std::string without_columns(const std::string& csv, const std::vector<std::string>& names) {
  const auto lines = lines_of(csv);
  REQUIRE_FALSE(lines.empty());
  const auto header = split(lines[0]);
  std::vector<bool> keep(header.size());
  for (std::size_t c = 0; c < header.size(); ++c)
    keep[c] = std::find(names.begin(), names.end(), header[c]) == names.end();
  std::string out;
  for (const auto& line : lines) {
    const auto cells = split(line);
    REQUIRE(cells.size() == header.size());
    bool first = true;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (!keep[c]) continue;
      out += (first ? "" : ",") + cells[c];
      first = false;
    }
    out += "\n";
  }
  return out;
}

void check_resumed_trials(const std::vector<std::string>& whole, const std::vector<std::string>& after,
                          std::size_t before) {
  REQUIRE(after.size() == whole.size());
  const auto columns = split(whole[0]);
  const auto session = std::find(columns.begin(), columns.end(), "session");
  REQUIRE(session != columns.end());
  const auto session_column = static_cast<std::size_t>(session - columns.begin());
  for (std::size_t i = 1; i < whole.size(); ++i) {
    const auto a = split(whole[i]), b = split(after[i]);
    REQUIRE(a.size() == columns.size());
    REQUIRE(b.size() == columns.size());
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (columns[c] == "session" || columns[c] == "started_utc" || columns[c] == "ended_utc") continue;
      INFO("row " << i << ", " << columns[c]);
      CHECK(a[c] == b[c]);
    }
    CHECK(b[session_column] == (i < before ? "1" : "2"));
  }
}

}  // namespace fovea::test

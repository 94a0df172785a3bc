#include "gaze/replay_gaze.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "core/file_read.hpp"
#include "core/format.hpp"

namespace fovea {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  for (;;) {
    const std::size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) return fields;
    line.remove_prefix(comma + 1);
  }
}

/// A whole field as a number; nullopt when it is not one (empty counts as not one).
std::optional<bool> parse_valid(std::string_view field) {
  if (field == "1" || field == "true" || field == "True" || field == "TRUE") return true;
  if (field == "0" || field == "false" || field == "False" || field == "FALSE") return false;
  return std::nullopt;
}

/// Where each column is: positional without a header, by name with one.
struct Columns {
  std::size_t t = 0, x = 1, y = 2;
  std::optional<std::size_t> valid, age_ms;
  std::size_t needed = 3;  ///< fields a row must have at least
  bool positional = true;  ///< no header: a fourth field, where a row has one, is `valid`
};

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(path_ + ":" + std::to_string(line_number_) + ": " + what);
  }

  Columns header(const std::vector<std::string_view>& fields) const {
    Columns c;
    c.positional = false;
    std::optional<std::size_t> t, x, y;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == "t_s") t = i;
      if (fields[i] == "x_px") x = i;
      if (fields[i] == "y_px") y = i;
      if (fields[i] == "valid") c.valid = i;
      if (fields[i] == "age_ms") c.age_ms = i;
    }
    if (!t || !x || !y) fail("the header needs columns t_s, x_px and y_px (valid, age_ms optional)");
    c.t = *t;
    c.x = *x;
    c.y = *y;
    c.needed = 1 + std::max({c.t, c.x, c.y, c.valid.value_or(0), c.age_ms.value_or(0)});
    return c;
  }

  GazeRecordRow row(const std::vector<std::string_view>& fields, Columns c) const {
    if (c.positional && fields.size() >= 4) c.valid = 3;
    if (fields.size() < c.needed)
      fail("expected at least " + std::to_string(c.needed) + " fields, found " + std::to_string(fields.size()));
    GazeRecordRow r;
    const std::optional<double> t = parse_finite_number(fields[c.t]);
    if (!t) fail("t_s: expected a finite number, found \"" + excerpt(fields[c.t]) + "\"");
    r.t_s = *t;
    if (c.valid) {
      const std::optional<bool> v = parse_valid(fields[*c.valid]);
      if (!v) fail("valid: expected 1, 0, true or false, found \"" + excerpt(fields[*c.valid]) + "\"");
      r.valid = *v;
    }
    const std::optional<double> x = parse_number(fields[c.x]), y = parse_number(fields[c.y]);
    if (r.valid) {
      if (!x || !std::isfinite(*x)) fail("x_px: expected a finite number, found \"" + excerpt(fields[c.x]) + "\"");
      if (!y || !std::isfinite(*y)) fail("y_px: expected a finite number, found \"" + excerpt(fields[c.y]) + "\"");
    }
    r.x_px = x.value_or(0);
    r.y_px = y.value_or(0);
    if (c.age_ms && r.valid) {
      const std::optional<double> age = parse_finite_number(fields[*c.age_ms]);
      if (!age)
        fail("age_ms: expected a finite number on a valid row, found \"" + excerpt(fields[*c.age_ms]) + "\"");
      r.age_s = *age / 1000.0;
    }
    return r;
  }

  std::vector<GazeRecordRow> read(std::istream& in) {
    std::vector<GazeRecordRow> rows;
    std::optional<Columns> columns;
    std::string line;
    while (std::getline(in, line)) {
      ++line_number_;
      const std::string_view text = trim(line);
      if (text.empty() || text.front() == '#') continue;
      // A row without its line end is where a writer stopped (a killed run's gaze.csv, a
      // half-copied file): its last number may be cut (a 1.25 read as 1.2), so it is refused
      // rather than replayed as a sample the tracker never gave (docs/formats.md, the CSV rule).
      if (in.eof())
        fail("the last row has no line end, so it may have been cut (a run killed while writing, or a "
             "half-copied file): remove it, or end it with a line end if it is whole");
      const std::vector<std::string_view> fields = split_fields(text);
      if (!columns) {
        // A header names its columns; a first row of numbers means there is none.
        if (!parse_number(fields[0])) {
          columns = header(fields);
          continue;
        }
        columns = Columns{};
      }
      GazeRecordRow r = row(fields, *columns);
      if (!rows.empty() && !(r.t_s > rows.back().t_s))
        fail("t_s " + format_number(r.t_s) + " does not come after the previous row's " + format_number(rows.back().t_s));
      rows.push_back(r);
    }
    if (rows.empty()) throw std::runtime_error(path_ + ": the gaze recording has no rows");
    return rows;
  }

 private:
  std::string path_;
  std::size_t line_number_ = 0;
};

}  // namespace

std::vector<GazeRecordRow> parse_gaze_csv(std::istream& in, const std::string& name) { return Reader(name).read(in); }

std::vector<GazeRecordRow> read_gaze_csv(const std::string& path) {
  // Checked and read through one open descriptor: a FIFO swapped in after a check of the path
  // would otherwise be opened by the read, and wait for a writer for ever.
  RegularFileStream in(path, kMaxTableFileBytes, "gaze recording");
  try {
    std::vector<GazeRecordRow> rows = parse_gaze_csv(in, path);
    in.throw_if_failed();
    return rows;
  } catch (const std::runtime_error&) {
    in.throw_if_failed();  // a read that failed part way is the cause, not what the parser made of it
    throw;
  }
}

ReplayGaze::ReplayGaze(std::vector<GazeRecordRow> rows, double max_gap_s) : rows_(std::move(rows)), max_gap_s_(max_gap_s) {
  if (rows_.empty()) throw std::invalid_argument("a gaze replay needs at least one row");
  if (!(max_gap_s >= 0)) throw std::invalid_argument("a gaze replay's largest gap must be >= 0, not " + format_number(max_gap_s));
  for (std::size_t i = 1; i < rows_.size(); ++i)
    if (!(rows_[i].t_s > rows_[i - 1].t_s))
      throw std::invalid_argument("gaze replay rows must have increasing times: row " + std::to_string(i) + " has t_s " +
                                  format_number(rows_[i].t_s) + " after " + format_number(rows_[i - 1].t_s));
}

GazeSample ReplayGaze::sample(double now_s) {
  GazeSample s;
  s.time_s = now_s;
  if (!(now_s >= rows_.front().t_s)) return s;  // before the recording (or NaN): no fixation

  // The last row at or before now: forward from the previous call's row, as calls come in
  // time order; a call back in time starts the search over.
  if (rows_[cursor_].t_s > now_s) cursor_ = 0;
  while (cursor_ + 1 < rows_.size() && rows_[cursor_ + 1].t_s <= now_s) ++cursor_;
  const GazeRecordRow& row = rows_[cursor_];
  if (!row.valid) return s;

  s.valid = true;
  const bool between_valid_rows = cursor_ + 1 < rows_.size() && rows_[cursor_ + 1].valid && now_s > row.t_s &&
                                  rows_[cursor_ + 1].t_s - row.t_s <= max_gap_s_;
  if (!between_valid_rows) {
    // Exactly at the row, or the newest sample before a gap or the end: the row as recorded.
    s.x_px = row.x_px;
    s.y_px = row.y_px;
    s.time_s = row.t_s - row.age_s;
    return s;
  }
  const GazeRecordRow& next = rows_[cursor_ + 1];
  const double w = (now_s - row.t_s) / (next.t_s - row.t_s);
  s.x_px = row.x_px + w * (next.x_px - row.x_px);
  s.y_px = row.y_px + w * (next.y_px - row.y_px);
  s.time_s = now_s - (row.age_s + w * (next.age_s - row.age_s));
  return s;
}

}  // namespace fovea

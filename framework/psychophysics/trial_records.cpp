#include "psychophysics/trial_records.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "core/format.hpp"
#include "record/csv_reader.hpp"

namespace fovea {
namespace {

constexpr std::array<std::string_view, 21> kColumns = {
    "participant",    "session",         "block",         "trial",         "trial_in_block",
    "condition",      "staircase",       "catch_trial",   "gap_deg",       "eccentricity_deg",
    "direction_deg",  "gap_px",          "eccentricity_px", "response",    "reaction_time_ms",
    "fixation_kept",  "gaze_samples",    "gaze_max_deviation_deg", "observer", "started_utc",
    "ended_utc"};

constexpr std::array<std::string_view, 6> kFitColumns = {"participant",      "catch_trial", "gap_deg",
                                                         "eccentricity_deg", "response",    "fixation_kept"};

/// How a column's cells read, and where they go.
struct ColumnRule {
  enum class Kind { text, integer, number, length, flag, response };
  ColumnRule(std::string_view name_, Kind kind_) : name(name_), kind(kind_) {}
  std::string_view name;
  Kind kind;
  std::string TrialRecord::*text = nullptr;
  std::int64_t TrialRecord::*integer = nullptr;
  double TrialRecord::*number = nullptr;  ///< also `length`: a number >= 0
  bool TrialRecord::*flag = nullptr;
};

using Kind = ColumnRule::Kind;

ColumnRule text_column(std::string_view name, std::string TrialRecord::*member) {
  ColumnRule r{name, Kind::text};
  r.text = member;
  return r;
}
ColumnRule integer_column(std::string_view name, std::int64_t TrialRecord::*member) {
  ColumnRule r{name, Kind::integer};
  r.integer = member;
  return r;
}
ColumnRule number_column(std::string_view name, double TrialRecord::*member, Kind kind = Kind::number) {
  ColumnRule r{name, kind};
  r.number = member;
  return r;
}
ColumnRule flag_column(std::string_view name, bool TrialRecord::*member) {
  ColumnRule r{name, Kind::flag};
  r.flag = member;
  return r;
}

/// Every known column, in kColumns' order.
const std::array<ColumnRule, 21>& column_rules() {
  static const std::array<ColumnRule, 21> rules = {
      text_column("participant", &TrialRecord::participant),
      text_column("session", &TrialRecord::session),
      integer_column("block", &TrialRecord::block),
      integer_column("trial", &TrialRecord::trial),
      integer_column("trial_in_block", &TrialRecord::trial_in_block),
      integer_column("condition", &TrialRecord::condition),
      integer_column("staircase", &TrialRecord::staircase),
      flag_column("catch_trial", &TrialRecord::catch_trial),
      number_column("gap_deg", &TrialRecord::gap_deg, Kind::length),
      number_column("eccentricity_deg", &TrialRecord::eccentricity_deg, Kind::length),
      number_column("direction_deg", &TrialRecord::direction_deg),
      number_column("gap_px", &TrialRecord::gap_px),
      number_column("eccentricity_px", &TrialRecord::eccentricity_px),
      ColumnRule{"response", Kind::response},
      number_column("reaction_time_ms", &TrialRecord::reaction_time_ms),
      flag_column("fixation_kept", &TrialRecord::fixation_kept),
      integer_column("gaze_samples", &TrialRecord::gaze_samples),
      number_column("gaze_max_deviation_deg", &TrialRecord::gaze_max_deviation_deg),
      text_column("observer", &TrialRecord::observer),
      text_column("started_utc", &TrialRecord::started_utc),
      text_column("ended_utc", &TrialRecord::ended_utc),
  };
  return rules;
}

/// `text` in quotes for a message, as the user would see it in the file.
std::string quoted(const std::string& text) { return "\"" + text + "\""; }

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::int64_t value = 0;
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

/// Reads one cell into `record`; returns "" or what is wrong, as "expected ..., found ...".
std::string read_cell(const ColumnRule& rule, const std::string& cell, bool required, TrialRecord& record) {
  if (cell.empty() && rule.kind != Kind::text) {
    if (!required) return "";
    switch (rule.kind) {
      case Kind::flag: return "expected 0 or 1, found an empty cell";
      case Kind::response: return "expected yes, no or aborted, found an empty cell";
      default: return "expected a number, found an empty cell";
    }
  }
  switch (rule.kind) {
    case Kind::text:
      if (cell.empty() && required) return "expected a name, found an empty cell";
      record.*rule.text = cell;
      return "";
    case Kind::integer: {
      const std::optional<std::int64_t> value = parse_integer(cell);
      if (!value) return "expected an integer, found " + quoted(cell);
      record.*rule.integer = *value;
      return "";
    }
    case Kind::number:
    case Kind::length: {
      const std::optional<double> value = parse_finite_number(cell);
      if (!value) return "expected a number, found " + quoted(cell);
      if (rule.kind == Kind::length && *value < 0) return "expected a number >= 0, found " + quoted(cell);
      record.*rule.number = *value;
      return "";
    }
    case Kind::flag:
      if (cell != "0" && cell != "1") return "expected 0 or 1, found " + quoted(cell);
      record.*rule.flag = cell == "1";
      return "";
    case Kind::response:
      if (cell == "yes") record.response = TrialResponse::yes;
      else if (cell == "no") record.response = TrialResponse::no;
      else if (cell == "aborted") record.response = TrialResponse::aborted;
      else return "expected yes, no or aborted, found " + quoted(cell);
      return "";
  }
  return "";
}

/// Columns whose empty cell is a value: not measured (a simulated observer's reaction time,
/// the gaze without a tracker). Required or not, an empty cell there reads as NaN.
bool may_be_empty(std::string_view column) {
  return column == "reaction_time_ms" || column == "gaze_max_deviation_deg";
}

}  // namespace

std::span<const std::string_view> trial_record_columns() { return kColumns; }

std::span<const std::string_view> trial_record_fit_columns() { return kFitColumns; }

std::string_view response_name(TrialResponse response) {
  switch (response) {
    case TrialResponse::yes: return "yes";
    case TrialResponse::no: return "no";
    case TrialResponse::aborted: return "aborted";
  }
  return "aborted";
}

std::vector<std::string> trial_record_header() { return {kColumns.begin(), kColumns.end()}; }

std::vector<std::string> trial_record_cells(const TrialRecord& r) {
  const auto number = [](double v) {
    std::string out;
    if (!std::isnan(v)) append_number(out, v);  // shortest exact form; NaN an empty cell
    return out;
  };
  const auto integer = [](std::int64_t v) { return std::to_string(v); };
  return {r.participant,
          r.session,
          integer(r.block),
          integer(r.trial),
          integer(r.trial_in_block),
          integer(r.condition),
          integer(r.staircase),
          integer(r.catch_trial ? 1 : 0),
          number(r.gap_deg),
          number(r.eccentricity_deg),
          number(r.direction_deg),
          number(r.gap_px),
          number(r.eccentricity_px),
          std::string(response_name(r.response)),
          number(r.reaction_time_ms),
          integer(r.fixation_kept ? 1 : 0),
          integer(r.gaze_samples),
          number(r.gaze_max_deviation_deg),
          r.observer,
          r.started_utc,
          r.ended_utc};
}

std::vector<TrialRecord> read_trial_records(const std::string& path, std::span<const std::string_view> required) {
  // A session writes whole rows and fsyncs each; a power cut between the two can leave a
  // last line without its newline, a row that never finished: it is not a trial.
  std::string text = read_file_text(path);
  if (!text.empty() && text.back() != '\n') text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  // Nothing whole, not even the header (a power cut as the file was created): no trials.
  if (text.empty()) return {};
  const CsvTable table = parse_csv(text, path);
  const auto at = [&](std::size_t line) { return path + ":" + std::to_string(line) + ": "; };

  // Where each known column is, and whether its cells must be filled.
  struct Found {
    const ColumnRule* rule;
    std::size_t index;
    bool required;
  };
  std::vector<Found> found;
  for (const ColumnRule& rule : column_rules()) {
    const bool needed = std::find(required.begin(), required.end(), rule.name) != required.end();
    const auto count = std::count(table.header.begin(), table.header.end(), rule.name);
    if (count > 1) throw std::runtime_error(at(table.header_line) + std::string(rule.name) + ": two columns of this name in the header");
    if (const std::optional<std::size_t> index = table.column(rule.name)) {
      found.push_back({&rule, *index, needed});
      continue;
    }
    if (needed) {
      std::string list;
      for (const std::string_view name : required) list += (list.empty() ? "" : ", ") + std::string(name);
      throw std::runtime_error(at(table.header_line) + std::string(rule.name) +
                               ": no such column in the header (needed: " + list + ")");
    }
  }

  std::vector<TrialRecord> records;
  records.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    TrialRecord record;
    record.line = row.line;
    for (const Found& f : found) {
      const std::string problem = read_cell(*f.rule, row.cells[f.index], f.required && !may_be_empty(f.rule->name), record);
      if (!problem.empty()) throw std::runtime_error(at(row.line) + std::string(f.rule->name) + ": " + problem);
    }
    // The fit counts gap 0 as a catch trial; a catch trial with a gap says the file is wrong.
    if (record.catch_trial && record.gap_deg != 0)
      throw std::runtime_error(at(row.line) + "gap_deg: a catch trial (catch_trial 1) shows no gap, found " +
                               quoted(row.cells[table.column("gap_deg").value_or(0)]));
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace fovea

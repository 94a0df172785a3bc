#include "psychophysics/trial_records.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "core/format.hpp"
#include "record/csv_reader.hpp"
#include "record/data_dictionary.hpp"

namespace fovea {
namespace {

/// One column of trials.csv: its name and the member it holds, whose type says how a cell
/// is written and read (text as it is; an integer; a number in its shortest exact form, NaN
/// as an empty cell; a flag as 0 or 1; a response as its word; a flag that may be none as
/// 0, 1 or an empty cell).
struct Column {
  using Member = std::variant<std::string TrialRecord::*, std::int64_t TrialRecord::*, double TrialRecord::*,
                              bool TrialRecord::*, TrialResponse TrialRecord::*, std::optional<bool> TrialRecord::*>;
  std::string_view name;
  Member member;
  bool non_negative = false;  ///< a number that must be >= 0: a length or an angle from fixation
  /// An empty cell is a value, not measured (a simulated observer's reaction time, the gaze
  /// without a tracker): it reads as NaN even where the column is required.
  bool may_be_empty = false;
  bool fit = false;  ///< `fovea fit` needs it (trial_record_fit_columns())
  /// Added after sessions were recorded without it (trial_record_added_columns()): never
  /// required, so an older file is still read.
  bool added = false;
  /// The data dictionary's entry (trials.json, trial_records_sidecar_json()): what the
  /// column holds, its unit ("" for none) and, for a column of words or flags, each level.
  std::string_view description = {};
  std::string_view units = {};
  std::string_view levels = {};  ///< "word=meaning|word=meaning", "" for a number or free text
};

/// trials.csv's columns, in the order `fovea experiment` writes them: the one list the
/// header, the cells and the reader all come from.
constexpr auto kColumns = std::to_array<Column>({
    {.name = "participant", .member = &TrialRecord::participant, .fit = true,
     .description = "The participant's id, as given to --participant"},
    {.name = "session", .member = &TrialRecord::session,
     .description = "1 for the participant's first session, one more for each --resume"},
    {.name = "block", .member = &TrialRecord::block,
     .description = "The block (constant stimuli) or the pass over the adaptive procedures, from 0"},
    {.name = "trial", .member = &TrialRecord::trial,
     .description = "The planned trial's index, from 0; an aborted trial shown again keeps it"},
    {.name = "trial_in_block", .member = &TrialRecord::trial_in_block,
     .description = "The trial's place in its block or pass, from 0"},
    {.name = "condition", .member = &TrialRecord::condition,
     .description = "The gap x eccentricity condition (constant stimuli), or the adaptive procedure (a psi's catch "
                    "trials: the number of procedures plus the procedure)"},
    {.name = "staircase", .member = &TrialRecord::staircase,
     .description = "The adaptive procedure (one per eccentricity) that chose the gap; -1 for constant stimuli and "
                    "a psi's catch trials"},
    {.name = "catch_trial", .member = &TrialRecord::catch_trial, .fit = true,
     .description = "Whether the trial showed no gap (the pair touched)",
     .levels = "0=a gap was shown|1=a catch trial: no gap"},
    {.name = "gap_deg", .member = &TrialRecord::gap_deg, .non_negative = true, .fit = true,
     .description = "The gap left between the target pair when they bounce, along the radius from fixation",
     .units = "degrees of visual angle"},
    {.name = "eccentricity_deg", .member = &TrialRecord::eccentricity_deg, .non_negative = true, .fit = true,
     .description = "The collision's distance from the fixation cross", .units = "degrees of visual angle"},
    {.name = "direction_deg", .member = &TrialRecord::direction_deg,
     .description = "The collision's direction from fixation, counter-clockwise from the right", .units = "degrees"},
    {.name = "gap_px", .member = &TrialRecord::gap_px,
     .description = "gap_deg on this screen, along the radius", .units = "pixels"},
    {.name = "eccentricity_px", .member = &TrialRecord::eccentricity_px,
     .description = "eccentricity_deg on this screen", .units = "pixels"},
    {.name = "response", .member = &TrialRecord::response, .fit = true,
     .description = "The answer",
     .levels = "yes=saw a gap|no=did not|first=the first animation had the gap (2ifc)|second=the second had it (2ifc)|"
               "aborted=no answer counts: the fixation left its radius or the tracker lost the eye; the trial comes "
               "again at the end of its block"},
    {.name = "reaction_time_ms", .member = &TrialRecord::reaction_time_ms, .may_be_empty = true,
     .description = "From the first frame without the stimulus to the key's event time; empty for a simulated observer "
                    "or an aborted trial",
     .units = "milliseconds"},
    {.name = "fixation_kept", .member = &TrialRecord::fixation_kept, .fit = true,
     .description = "Whether the fixation stayed within fixation_radius_deg of the cross (always 1 without a tracker)",
     .levels = "0=the fixation strayed or was lost|1=kept"},
    {.name = "gaze_samples", .member = &TrialRecord::gaze_samples,
     .description = "Frames of the stimulus with a valid tracker sample; 0 without a tracker"},
    {.name = "gaze_max_deviation_deg", .member = &TrialRecord::gaze_max_deviation_deg, .may_be_empty = true,
     .description = "How far the fixation strayed from the cross during the stimulus; empty without samples",
     .units = "degrees of visual angle"},
    {.name = "stimulus_duration_s", .member = &TrialRecord::stimulus_duration_s, .may_be_empty = true,
     .description = "The stimulus as shown: from its first frame's swap to the swap of the first frame after it (the "
                    "spec asks for stimulus.duration_s); empty for a simulated observer",
     .units = "seconds"},
    {.name = "stimulus_frames", .member = &TrialRecord::stimulus_frames,
     .description = "Frames drawn during the stimulus; 0 for a simulated observer"},
    {.name = "dropped_frames", .member = &TrialRecord::dropped_frames,
     .description = "Refreshes missed during the stimulus: over each interval between swaps longer than 1.5 refresh "
                    "periods, its length in periods rounded, less one; 0 for a simulated observer"},
    {.name = "observer", .member = &TrialRecord::observer,
     .description = "Who answered", .levels = "human=a person at the window|simulated=a simulated observer (--observer)"},
    {.name = "started_utc", .member = &TrialRecord::started_utc,
     .description = "When the stimulus started, UTC, ISO 8601"},
    {.name = "ended_utc", .member = &TrialRecord::ended_utc,
     .description = "When the answer came, UTC, ISO 8601"},
    // The two-interval task's columns (issue 45), added at the end of the row.
    {.name = "gap_interval", .member = &TrialRecord::gap_interval, .added = true,
     .description = "Two-interval task (task.kind 2ifc): the animation, 1 or 2, that showed the gap; the other showed the "
                    "pair touching. 0 on a yes/no trial"},
    {.name = "other_direction_deg", .member = &TrialRecord::other_direction_deg, .may_be_empty = true, .added = true,
     .description = "Two-interval task: the direction from fixation of the other animation's touching pair; empty on a "
                    "yes/no trial",
     .units = "degrees"},
    {.name = "correct", .member = &TrialRecord::correct, .added = true,
     .description = "Two-interval task: 1 when the answer named the animation with the gap, 0 when not; -1 on a yes/no "
                    "or an aborted trial"},
    // The adaptive procedure's state after the answer (issue 45), at the end of the row.
    {.name = "psi_threshold_deg", .member = &TrialRecord::psi_threshold_deg, .non_negative = true,
     .may_be_empty = true, .added = true,
     .description = "Psi: the procedure's threshold estimate after this trial's answer, exp of the posterior mean of ln "
                    "T; empty on a trial no psi procedure took an answer from (other designs, catch trials, aborted "
                    "trials)",
     .units = "degrees of visual angle"},
    {.name = "psi_threshold_sd_log10", .member = &TrialRecord::psi_threshold_sd_log10, .non_negative = true,
     .may_be_empty = true, .added = true,
     .description = "Psi: the posterior SD of log10 T after this trial's answer; empty as psi_threshold_deg",
     .units = "log10 units"},
    {.name = "psi_width", .member = &TrialRecord::psi_width, .non_negative = true, .may_be_empty = true,
     .added = true,
     .description = "Psi: the width estimate (5 %-to-95 % rise) after this trial's answer, exp of the posterior mean "
                    "of its log; empty as psi_threshold_deg",
     .units = "thresholds"},
    {.name = "psi_width_sd_log10", .member = &TrialRecord::psi_width_sd_log10, .non_negative = true,
     .may_be_empty = true, .added = true,
     .description = "Psi: the posterior SD of log10 width after this trial's answer; empty as psi_threshold_deg",
     .units = "log10 units"},
    {.name = "psi_lapse_rate", .member = &TrialRecord::psi_lapse_rate, .non_negative = true, .may_be_empty = true,
     .added = true,
     .description = "Psi: the posterior mean of the lapse rate after this trial's answer; empty as psi_threshold_deg"},
    {.name = "psi_lapse_rate_sd", .member = &TrialRecord::psi_lapse_rate_sd, .non_negative = true,
     .may_be_empty = true, .added = true,
     .description = "Psi: the posterior SD of the lapse rate after this trial's answer; empty as psi_threshold_deg"},
    {.name = "psi_entropy_nats", .member = &TrialRecord::psi_entropy_nats, .non_negative = true,
     .may_be_empty = true, .added = true,
     .description = "Psi: the entropy of the posterior the procedure minimises (the threshold x width marginal under "
                    "psi.marginal, else all of it) after this trial's answer; empty as psi_threshold_deg",
     .units = "nats"},
    {.name = "reversal", .member = &TrialRecord::reversal, .may_be_empty = true, .added = true,
     .description = "Staircases: whether this trial's answer reversed its staircase's direction (the gap of this trial "
                    "is then one of the reversal intensities); empty on a trial no staircase took an answer from",
     .levels = "0=no reversal|1=a reversal"},
});

/// The names of the columns that `keep` picks, in kColumns' order.
template <std::size_t N>
constexpr std::array<std::string_view, N> column_names(bool (*keep)(const Column&)) {
  std::array<std::string_view, N> names{};
  std::size_t n = 0;
  for (const Column& column : kColumns)
    if (keep(column)) names[n++] = column.name;
  return names;
}

constexpr bool any_column(const Column&) { return true; }
constexpr bool fit_column(const Column& column) { return column.fit; }
constexpr bool added_column(const Column& column) { return column.added; }

constexpr auto kColumnNames = column_names<kColumns.size()>(any_column);
constexpr auto kFitColumnNames =
    column_names<static_cast<std::size_t>(std::ranges::count_if(kColumns, fit_column))>(fit_column);
constexpr auto kAddedColumnNames =
    column_names<static_cast<std::size_t>(std::ranges::count_if(kColumns, added_column))>(added_column);

/// `text` in quotes for a message, as the user would see it in the file.
std::string quoted(const std::string& text) { return "\"" + text + "\""; }

std::optional<std::int64_t> parse_integer(const std::string& text) {
  std::int64_t value = 0;
  const char* const end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

/// One cell of `column` as trials.csv writes it.
std::string write_cell(const Column& column, const TrialRecord& record) {
  return std::visit(
      [&](auto member) -> std::string {
        const auto& value = record.*member;
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return value;
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return std::to_string(value);
        } else if constexpr (std::is_same_v<T, double>) {
          std::string out;
          if (!std::isnan(value)) append_number(out, value);  // shortest exact form; NaN an empty cell
          return out;
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "1" : "0";
        } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
          return value ? (*value ? "1" : "0") : "";
        } else {
          return std::string(response_name(value));
        }
      },
      column.member);
}

/// Reads one cell of `column` into `record`; returns "" or what is wrong, as "expected ...,
/// found ...". An empty cell of a column that is not `required` leaves the record's value.
std::string read_cell(const Column& column, const std::string& cell, bool required, TrialRecord& record) {
  return std::visit(
      [&](auto member) -> std::string {
        auto& value = record.*member;
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) {
          if (cell.empty() && required) return "expected a name, found an empty cell";
          value = cell;
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          if (cell.empty()) return required ? "expected a number, found an empty cell" : "";
          const std::optional<std::int64_t> parsed = parse_integer(cell);
          if (!parsed) return "expected an integer, found " + quoted(cell);
          value = *parsed;
        } else if constexpr (std::is_same_v<T, double>) {
          if (cell.empty()) return required ? "expected a number, found an empty cell" : "";
          const std::optional<double> parsed = parse_finite_number(cell);
          if (!parsed) return "expected a number, found " + quoted(cell);
          if (column.non_negative && *parsed < 0) return "expected a number >= 0, found " + quoted(cell);
          value = *parsed;
        } else if constexpr (std::is_same_v<T, bool>) {
          if (cell.empty()) return required ? "expected 0 or 1, found an empty cell" : "";
          if (cell != "0" && cell != "1") return "expected 0 or 1, found " + quoted(cell);
          value = cell == "1";
        } else if constexpr (std::is_same_v<T, std::optional<bool>>) {
          if (cell.empty()) return required ? "expected 0 or 1, found an empty cell" : "";
          if (cell != "0" && cell != "1") return "expected 0 or 1, found " + quoted(cell);
          value = cell == "1";
        } else {
          if (cell.empty()) return required ? "expected yes, no, first, second or aborted, found an empty cell" : "";
          if (cell == "yes") value = TrialResponse::yes;
          else if (cell == "no") value = TrialResponse::no;
          else if (cell == "aborted") value = TrialResponse::aborted;
          else if (cell == "first") value = TrialResponse::first;
          else if (cell == "second") value = TrialResponse::second;
          else return "expected yes, no, first, second or aborted, found " + quoted(cell);
        }
        return "";
      },
      column.member);
}

/// What is wrong with `record`'s task columns, "" when nothing: gap_interval is 0, 1 or 2 (or
/// absent: -1), an answer first or second names a two-interval trial and yes or no a yes/no one,
/// and correct is -1, 0 or 1. The fit counts a row by these, so a file that mixes them is wrong.
std::string task_problem(const TrialRecord& record) {
  if (record.gap_interval < -1 || record.gap_interval > 2)
    return "gap_interval: expected 0 (a yes/no trial), 1 or 2, found " + std::to_string(record.gap_interval);
  const bool interval_answer = record.response == TrialResponse::first || record.response == TrialResponse::second;
  const bool yes_no_answer = record.response == TrialResponse::yes || record.response == TrialResponse::no;
  if (interval_answer && record.gap_interval <= 0)
    return "response: " + std::string(response_name(record.response)) +
           " answers a two-interval trial, but gap_interval is not 1 or 2";
  if (yes_no_answer && record.gap_interval > 0)
    return "response: " + std::string(response_name(record.response)) + " answers a yes/no trial, but gap_interval is " +
           std::to_string(record.gap_interval);
  if (record.correct < -1 || record.correct > 1)
    return "correct: expected -1, 0 or 1, found " + std::to_string(record.correct);
  return "";
}

}  // namespace

std::span<const std::string_view> trial_record_columns() { return kColumnNames; }

std::span<const std::string_view> trial_record_fit_columns() { return kFitColumnNames; }

std::span<const std::string_view> trial_record_added_columns() { return kAddedColumnNames; }

std::string_view response_name(TrialResponse response) {
  switch (response) {
    case TrialResponse::yes: return "yes";
    case TrialResponse::no: return "no";
    case TrialResponse::aborted: return "aborted";
    case TrialResponse::first: return "first";
    case TrialResponse::second: return "second";
  }
  return "aborted";
}

std::vector<std::string> trial_record_header() { return {kColumnNames.begin(), kColumnNames.end()}; }

std::string trial_records_sidecar_json() {
  std::vector<ColumnDictionaryEntry> entries;
  for (const Column& column : kColumns) entries.push_back({column.name, column.description, column.units, column.levels});
  return data_dictionary_json(entries);
}

std::vector<std::string> trial_record_cells(const TrialRecord& record) {
  std::vector<std::string> cells;
  cells.reserve(kColumns.size());
  for (const Column& column : kColumns) cells.push_back(write_cell(column, record));
  return cells;
}

std::vector<std::string> trial_record_layout(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return trial_record_header();
  std::string text = read_file_text(path);
  // Only the header matters: the first line, as CsvWriter compares it before appending.
  const std::size_t end = text.find('\n');
  if (end == std::string::npos) return trial_record_header();
  text.resize(end + 1);
  const CsvTable table = parse_csv(text, path);
  // The file's layout: every column but the added ones it lacks, in kColumns' order.
  std::vector<std::string> layout;
  for (const Column& column : kColumns)
    if (!column.added || std::find(table.header.begin(), table.header.end(), column.name) != table.header.end())
      layout.emplace_back(column.name);
  return layout == table.header ? layout : trial_record_header();
}

std::vector<std::string> trial_record_cells(const TrialRecord& record, std::span<const std::string> columns) {
  std::vector<std::string> cells;
  cells.reserve(columns.size());
  for (const std::string& name : columns) {
    const auto column = std::find_if(kColumns.begin(), kColumns.end(), [&](const Column& c) { return c.name == name; });
    if (column == kColumns.end()) throw std::invalid_argument("trial_record_cells: trials.csv has no column " + quoted(name));
    cells.push_back(write_cell(*column, record));
  }
  return cells;
}

std::vector<TrialRecord> read_trial_records(const std::string& path, std::span<const std::string_view> required) {
  return parse_trial_records(read_file_text(path), path, required);
}

std::vector<TrialRecord> parse_trial_records(std::string text, const std::string& path,
                                             std::span<const std::string_view> required) {
  // A session writes whole rows and fsyncs each; a power cut between the two can leave a
  // last line without its newline, a row that never finished: it is not a trial.
  drop_unfinished_last_line(text);
  // Nothing whole, not even the header (a power cut as the file was created): no trials.
  if (text.empty()) return {};
  const CsvTable table = parse_csv(text, path);
  const auto at = [&](std::size_t line) { return path + ":" + std::to_string(line) + ": "; };

  // Where each known column is, and whether its cells must be filled.
  struct Found {
    const Column* column;
    std::size_t index;
    bool required;
  };
  std::vector<Found> found;
  for (const Column& column : kColumns) {
    // An added column is never needed: files from before it are read, its cells empty.
    const bool needed = !column.added && std::find(required.begin(), required.end(), column.name) != required.end();
    const auto count = std::count(table.header.begin(), table.header.end(), column.name);
    if (count > 1) throw std::runtime_error(at(table.header_line) + std::string(column.name) + ": two columns of this name in the header");
    if (const std::optional<std::size_t> index = table.column(column.name)) {
      found.push_back({&column, *index, needed && !column.may_be_empty});
      continue;
    }
    if (needed) {
      std::string list;
      for (const std::string_view name : required) list += (list.empty() ? "" : ", ") + std::string(name);
      throw std::runtime_error(at(table.header_line) + std::string(column.name) +
                               ": no such column in the header (needed: " + list + ")");
    }
  }

  std::vector<TrialRecord> records;
  records.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    TrialRecord record;
    record.line = row.line;
    for (const Found& f : found) {
      const std::string problem = read_cell(*f.column, row.cells[f.index], f.required, record);
      if (!problem.empty()) throw std::runtime_error(at(row.line) + std::string(f.column->name) + ": " + problem);
    }
    // The fit counts gap 0 as a catch trial; a catch trial with a gap says the file is wrong.
    if (record.catch_trial && record.gap_deg != 0)
      throw std::runtime_error(at(row.line) + "gap_deg: a catch trial (catch_trial 1) shows no gap, found " +
                               quoted(row.cells[table.column("gap_deg").value_or(0)]));
    if (const std::string problem = task_problem(record); !problem.empty()) throw std::runtime_error(at(row.line) + problem);
    records.push_back(std::move(record));
  }
  return records;
}

}  // namespace fovea

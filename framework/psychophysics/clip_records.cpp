#include "psychophysics/clip_records.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>

#include "core/format.hpp"
#include "record/csv_reader.hpp"

namespace fovea {
namespace {

std::string number_or_empty(double v) { return std::isnan(v) ? std::string() : format_number(v); }
std::string count_or_empty(std::int64_t v) { return v < 0 ? std::string() : format_number(v); }

/// Each column, its name beside its value.
struct Column {
  const char* name;
  std::function<std::string(const ClipTrialRecord&)> cell;
};

const std::vector<Column>& columns() {
  using R = ClipTrialRecord;
  static const std::vector<Column> all = {
      {"participant", [](const R& r) { return r.participant; }},
      {"session", [](const R& r) { return format_number(r.session); }},
      {"block", [](const R& r) { return format_number(r.block); }},
      {"trial", [](const R& r) { return format_number(r.trial); }},
      {"trial_in_block", [](const R& r) { return format_number(r.trial_in_block); }},
      {"condition", [](const R& r) { return format_number(r.condition); }},
      {"scene", [](const R& r) { return r.scene; }},
      {"scheduler", [](const R& r) { return r.scheduler; }},
      {"budget_tests", [](const R& r) { return format_number(r.budget_tests); }},
      {"reference", [](const R& r) { return r.reference; }},
      {"repetition", [](const R& r) { return format_number(r.repetition); }},
      {"task", [](const R& r) { return r.task; }},
      {"order", [](const R& r) { return r.order; }},
      {"response", [](const R& r) { return r.response; }},
      {"noticed", [](const R& r) { return std::to_string(r.noticed); }},
      {"p_test", [](const R& r) { return number_or_empty(r.p_test); }},
      {"p_reference", [](const R& r) { return number_or_empty(r.p_reference); }},
      {"episodes_test", [](const R& r) { return count_or_empty(r.episodes_test); }},
      {"episodes_reference", [](const R& r) { return count_or_empty(r.episodes_reference); }},
      {"duration_test_s", [](const R& r) { return number_or_empty(r.duration_test_s); }},
      {"duration_reference_s", [](const R& r) { return number_or_empty(r.duration_reference_s); }},
      {"dropped_test", [](const R& r) { return count_or_empty(r.dropped_test); }},
      {"dropped_reference", [](const R& r) { return count_or_empty(r.dropped_reference); }},
      {"reaction_time_ms", [](const R& r) { return number_or_empty(r.reaction_time_ms); }},
      {"observer", [](const R& r) { return r.observer; }},
      {"started_utc", [](const R& r) { return r.started_utc; }},
      {"ended_utc", [](const R& r) { return r.ended_utc; }},
  };
  return all;
}

}  // namespace

std::vector<std::string> clip_record_header() {
  std::vector<std::string> names;
  for (const Column& c : columns()) names.emplace_back(c.name);
  return names;
}

std::vector<std::string> clip_record_cells(const ClipTrialRecord& record) {
  std::vector<std::string> cells;
  for (const Column& c : columns()) cells.push_back(c.cell(record));
  return cells;
}

std::vector<ClipTrialRecord> read_clip_records(const std::string& path) { return parse_clip_records(read_file_text(path), path); }

std::vector<ClipTrialRecord> parse_clip_records(std::string text, const std::string& path) {
  // A session writes whole rows and fsyncs each: a last line without its newline never finished.
  if (!text.empty() && text.back() != '\n') text.resize(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  if (text.empty()) return {};
  const CsvTable table = parse_csv(text, path);
  const auto index_of = [&](const char* name) {
    const std::optional<std::size_t> i = table.column(name);
    if (!i) throw std::runtime_error(path + ":" + std::to_string(table.header_line) + ": " + name +
                                     ": no such column in the header (not a clip comparison's trials.csv?)");
    return *i;
  };
  const std::size_t participant = index_of("participant"), session = index_of("session"), trial = index_of("trial"),
                    condition = index_of("condition"), repetition = index_of("repetition"), order = index_of("order");
  std::vector<ClipTrialRecord> records;
  for (const CsvRow& row : table.rows) {
    const auto integer = [&](std::size_t column, const char* name, double lowest) {
      const std::optional<double> v = parse_finite_number(row.cells[column]);
      if (!v || *v != std::floor(*v) || *v < lowest || *v >= 2147483648.0)
        throw std::runtime_error(path + ":" + std::to_string(row.line) + ": " + name + ": expected a whole number from " +
                                 format_number(lowest) + " below 2^31, found \"" + row.cells[column] + "\"");
      return static_cast<std::int64_t>(*v);
    };
    ClipTrialRecord r;
    r.participant = row.cells[participant];
    r.session = integer(session, "session", 1);
    r.trial = integer(trial, "trial", 0);
    r.condition = integer(condition, "condition", 0);
    r.repetition = integer(repetition, "repetition", 0);
    r.order = row.cells[order];
    records.push_back(r);
  }
  return records;
}

}  // namespace fovea

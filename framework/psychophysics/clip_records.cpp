#include "psychophysics/clip_records.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "core/format.hpp"
#include "record/csv_reader.hpp"
#include "record/data_dictionary.hpp"

namespace fovea {
namespace {

std::string number_or_empty(double v) { return std::isnan(v) ? std::string() : format_number(v); }
std::string count_or_empty(std::int64_t v) { return v < 0 ? std::string() : format_number(v); }

/// Each column, its name beside its value and its data dictionary's entry (trials.json,
/// clip_records_sidecar_json()): what it holds, its unit ("" for none), and for a column of
/// words or flags each level ("word=meaning|word=meaning").
struct Column {
  const char* name;
  std::function<std::string(const ClipTrialRecord&)> cell;
  const char* description = "";
  const char* units = "";
  const char* levels = "";
};

const std::vector<Column>& columns() {
  using R = ClipTrialRecord;
  static const std::vector<Column> all = {
      {"participant", [](const R& r) { return r.participant; },
       "The participant's id, as given to --participant"},
      {"session", [](const R& r) { return format_number(r.session); },
       "1 for the participant's first session, one more for each --resume"},
      {"block", [](const R& r) { return format_number(r.block); },
       "The block, from 0; repetition r of each cell is in block r mod blocks"},
      {"trial", [](const R& r) { return format_number(r.trial); },
       "The planned trial's index, from 0"},
      {"trial_in_block", [](const R& r) { return format_number(r.trial_in_block); },
       "The trial's place in its block, from 0"},
      {"condition", [](const R& r) { return format_number(r.condition); },
       "The cell: scene, then scheduler, then budget, in the crossing's order; yes/no's reference cells after"},
      {"scene", [](const R& r) { return r.scene; },
       "The scene's name (clip_comparison.scenes)"},
      {"scheduler", [](const R& r) { return r.scheduler; },
       "The test clip's scheduler (a yes/no reference trial: the reference's)"},
      {"budget_tests", [](const R& r) { return format_number(r.budget_tests); },
       "The clip's budget; 0 for full resolution (no budget)", "sphere-sphere tests per frame"},
      {"reference", [](const R& r) { return r.reference; },
       "What the test clip is compared with: full (every collision resolved), or the reference scheduler at the same budget"},
      {"repetition", [](const R& r) { return format_number(r.repetition); },
       "Which of the cell's repetitions, from 0: it picks the world seed both clips start from"},
      {"task", [](const R& r) { return r.task; },
       "The task", "", "2ifc=two clips, which looked wrong?|yes_no=one clip, did you see an error?"},
      {"order", [](const R& r) { return r.order; },
       "Which clip came when", "", "test_first=2IFC, the test clip first|reference_first=2IFC, the reference first|test=yes/no, the test clip shown|reference=yes/no, the reference shown"},
      {"response", [](const R& r) { return r.response; },
       "The answer", "", "first=the first clip looked wrong|second=the second|yes=an error was seen|no=none was"},
      {"noticed", [](const R& r) { return std::to_string(r.noticed); },
       "Whether the answer named the test clip (2IFC) or was yes (yes/no)", "", "0=no|1=yes"},
      {"p_test", [](const R& r) { return number_or_empty(r.p_test); },
       "The episode model's chance that the test clip's errors are seen: 1 - prod(1 - p) over its unresolved episodes", "probability"},
      {"p_reference", [](const R& r) { return number_or_empty(r.p_reference); },
       "The same for the reference clip", "probability"},
      {"episodes_test", [](const R& r) { return count_or_empty(r.episodes_test); },
       "Unresolved episodes in the test clip, those open at its end included"},
      {"episodes_reference", [](const R& r) { return count_or_empty(r.episodes_reference); },
       "The same in the reference clip"},
      {"duration_test_s", [](const R& r) { return number_or_empty(r.duration_test_s); },
       "A person's test clip on the screen: its first frame's swap to the swap after its last; empty for a simulated observer", "seconds"},
      {"duration_reference_s", [](const R& r) { return number_or_empty(r.duration_reference_s); },
       "The same for the reference clip", "seconds"},
      {"dropped_test", [](const R& r) { return count_or_empty(r.dropped_test); },
       "Refreshes the test clip missed on the screen; empty for a simulated observer", "frames"},
      {"dropped_reference", [](const R& r) { return count_or_empty(r.dropped_reference); },
       "The same for the reference clip", "frames"},
      {"reaction_time_ms", [](const R& r) { return number_or_empty(r.reaction_time_ms); },
       "From the question's first frame to the key's event time; empty for a simulated observer", "milliseconds"},
      {"observer", [](const R& r) { return r.observer; },
       "Who answered", "", "human=a person|simulated=the simulated observer (--observer)"},
      {"started_utc", [](const R& r) { return r.started_utc; },
       "When the trial started, ISO 8601 UTC"},
      {"ended_utc", [](const R& r) { return r.ended_utc; },
       "When it was answered, ISO 8601 UTC"},
  };
  return all;
}

}  // namespace

std::string clip_records_sidecar_json() {
  std::vector<ColumnDictionaryEntry> entries;
  for (const Column& column : columns()) entries.push_back({column.name, column.description, column.units, column.levels});
  return data_dictionary_json(entries);
}

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
  drop_unfinished_last_line(text);
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

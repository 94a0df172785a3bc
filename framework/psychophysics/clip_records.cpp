#include "psychophysics/clip_records.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/format.hpp"
#include "record/csv_reader.hpp"
#include "record/data_dictionary.hpp"
#include "schedule/scheduler_kinds.hpp"

namespace fovea {
namespace {

std::string number_or_empty(double v) { return std::isnan(v) ? std::string() : format_number(v); }
std::string count_or_empty(std::int64_t v) { return v < 0 ? std::string() : format_number(v); }

/// A cell quoted for a message: an excerpt of it (core/format.hpp), in quotes.
std::string quoted(std::string_view cell) { return "\"" + excerpt(cell) + "\""; }

/// Which clips a row shows, by its task and order: 2IFC both, yes/no the one its order names.
bool shows_test(const ClipTrialRecord& r) { return r.task == "2ifc" || r.order == "test"; }
bool shows_reference(const ClipTrialRecord& r) { return r.task == "2ifc" || r.order == "reference"; }

/// Reads one cell into the record, or says what is wrong with it ("expected ..., found ...").
/// The record's columns read before this one (Column::stage) are already in it.
using ReadCell = std::function<std::string(const std::string& cell, ClipTrialRecord& r)>;

/// An integer column: a whole number in [lowest, 2^31), as the design's indices are.
ReadCell index_cell(std::int64_t ClipTrialRecord::*member, double lowest) {
  return [member, lowest](const std::string& cell, ClipTrialRecord& r) -> std::string {
    const std::optional<double> v = parse_finite_number(cell);
    if (!v || *v != std::floor(*v) || *v < lowest || *v >= 2147483648.0)
      return "expected a whole number from " + format_number(lowest) + " below 2^31, found " + quoted(cell);
    r.*member = static_cast<std::int64_t>(*v);
    return "";
  };
}

/// One of `words`; `why`, if any, says what chose them ("task 2ifc").
std::string one_of(const std::string& cell, const std::vector<std::string>& words, const std::string& why = "") {
  if (std::find(words.begin(), words.end(), cell) != words.end()) return "";
  std::string list;
  for (std::size_t i = 0; i < words.size(); ++i)
    list += (i == 0 ? "" : i + 1 == words.size() ? " or " : ", ") + words[i];
  return "expected " + list + (why.empty() ? "" : " (" + why + ")") + ", found " + quoted(cell);
}

/// A text column that must not be empty.
ReadCell text_cell(std::string ClipTrialRecord::*member, const char* what) {
  return [member, what](const std::string& cell, ClipTrialRecord& r) -> std::string {
    if (cell.empty()) return std::string("expected ") + what + ", found an empty cell";
    r.*member = cell;
    return "";
  };
}

/// A number a row has only when `present` says so (a clip shown, a person's): then within
/// [low, high] (`domain` says so in words), else an empty cell (NaN).
ReadCell measured_number(double ClipTrialRecord::*member, double low, double high, const char* domain,
                         std::function<std::string(const ClipTrialRecord&)> absent_because) {
  return [=](const std::string& cell, ClipTrialRecord& r) -> std::string {
    if (const std::string why = absent_because(r); !why.empty()) {
      if (!cell.empty()) return "expected an empty cell (" + why + "), found " + quoted(cell);
      r.*member = ClipTrialRecord::kNone;
      return "";
    }
    const std::optional<double> v = parse_finite_number(cell);
    if (!v || *v < low || *v > high) return std::string("expected ") + domain + ", found " + quoted(cell);
    r.*member = *v;
    return "";
  };
}

/// A count a row has only when `absent_because` says nothing: a whole number from 0, else -1.
ReadCell measured_count(std::int64_t ClipTrialRecord::*member, std::function<std::string(const ClipTrialRecord&)> absent_because) {
  return [=](const std::string& cell, ClipTrialRecord& r) -> std::string {
    if (const std::string why = absent_because(r); !why.empty()) {
      if (!cell.empty()) return "expected an empty cell (" + why + "), found " + quoted(cell);
      r.*member = -1;
      return "";
    }
    const std::optional<double> v = parse_finite_number(cell);
    if (!v || *v != std::floor(*v) || *v < 0 || *v > 9007199254740992.0)
      return "expected a whole number from 0, found " + quoted(cell);
    r.*member = static_cast<std::int64_t>(*v);
    return "";
  };
}

/// Why a row has no value for a clip's own column: "" when the clip was shown.
std::function<std::string(const ClipTrialRecord&)> clip_not_shown(bool test) {
  return [test](const ClipTrialRecord& r) -> std::string {
    if (test ? shows_test(r) : shows_reference(r)) return "";
    return std::string("yes/no showed only the ") + (test ? "reference" : "test") + " clip";
  };
}

/// Why a row has no value for a person's measurement of a clip: "" for a person's shown clip.
std::function<std::string(const ClipTrialRecord&)> not_measured(bool test) {
  return [test](const ClipTrialRecord& r) -> std::string {
    if (r.observer != "human") return "a simulated observer's trial is not shown";
    return clip_not_shown(test)(r);
  };
}

/// A time as fovea writes it (utc_iso8601): 2026-01-31T12:00:00.000Z.
ReadCell utc_cell(std::string ClipTrialRecord::*member) {
  return [member](const std::string& cell, ClipTrialRecord& r) -> std::string {
    static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd.dddZ";
    bool ok = cell.size() == kShape.size();
    for (std::size_t i = 0; ok && i < cell.size(); ++i)
      ok = kShape[i] == 'd' ? std::isdigit(static_cast<unsigned char>(cell[i])) != 0 : cell[i] == kShape[i];
    if (!ok) return "expected a UTC time as 2026-01-31T12:00:00.000Z, found " + quoted(cell);
    r.*member = cell;
    return "";
  };
}

/// budget_tests: a whole number of sphere tests, 0 for full resolution.
std::string read_budget(const std::string& cell, ClipTrialRecord& r) {
  const std::optional<double> v = parse_finite_number(cell);
  if (!v || *v != std::floor(*v) || *v < 0 || *v > 1e15)
    return "expected a whole number of sphere tests in [0, 1e15], found " + quoted(cell);
  r.budget_tests = static_cast<std::int64_t>(*v);
  return "";
}

/// order: the task's words for which clip came when.
std::string read_order(const std::string& cell, ClipTrialRecord& r) {
  std::string problem = r.task == "2ifc" ? one_of(cell, {"test_first", "reference_first"}, "task 2ifc")
                                         : one_of(cell, {"test", "reference"}, "task yes_no");
  if (problem.empty()) r.order = cell;
  return problem;
}

/// response: the task's words for the answer.
std::string read_response(const std::string& cell, ClipTrialRecord& r) {
  std::string problem = r.task == "2ifc" ? one_of(cell, {"first", "second"}, "task 2ifc")
                                         : one_of(cell, {"yes", "no"}, "task yes_no");
  if (problem.empty()) r.response = cell;
  return problem;
}

/// noticed: 0 or 1, and what the answer makes it: 2IFC, whether the place it names is the
/// test clip's; yes/no, whether it is yes.
std::string read_noticed(const std::string& cell, ClipTrialRecord& r) {
  const bool two_interval = r.task == "2ifc";
  const int made = two_interval ? ((r.response == "first") == (r.order == "test_first") ? 1 : 0) : (r.response == "yes" ? 1 : 0);
  const std::string why = two_interval ? "response " + r.response + " with order " + r.order : "response " + r.response;
  if (cell != "0" && cell != "1") return "expected 0 or 1, found " + quoted(cell);
  if (cell != std::to_string(made)) return "expected " + std::to_string(made) + " (" + why + "), found " + quoted(cell);
  r.noticed = made;
  return "";
}

/// Each column, its name beside its value and its data dictionary's entry (trials.json,
/// clip_records_sidecar_json()): what it holds, its unit ("" for none), and for a column of
/// words or flags each level ("word=meaning|word=meaning").
struct Column {
  const char* name;
  std::function<std::string(const ClipTrialRecord&)> cell;
  const char* description = "";
  const char* units = "";
  const char* levels = "";
  ReadCell read = {};  ///< reads the cell back (parse_clip_records)
  /// When read: 0 first; 1 after the task (its words depend on it); 2 after the task, order,
  /// response and observer (which cells a row has depends on them).
  int stage = 0;
};

std::vector<Column> make_columns() {
  using R = ClipTrialRecord;
  const auto word = [](std::string R::*member, std::vector<std::string> words) -> ReadCell {
    return [member, words](const std::string& cell, R& r) {
      std::string problem = one_of(cell, words);
      if (problem.empty()) r.*member = cell;
      return problem;
    };
  };
  std::vector<std::string> schedulers;
  for (const auto& row : kSchedulerKinds) schedulers.emplace_back(row.name);
  std::vector<std::string> references = {"full"};
  references.insert(references.end(), schedulers.begin(), schedulers.end());
  return {
      {"participant", [](const R& r) { return r.participant; },
       "The participant's id, as given to --participant", "", "", text_cell(&R::participant, "the participant's id")},
      {"session", [](const R& r) { return format_number(r.session); },
       "1 for the participant's first session, one more for each --resume", "", "", index_cell(&R::session, 1)},
      {"block", [](const R& r) { return format_number(r.block); },
       "The block, from 0; repetition r of each cell is in block r mod blocks", "", "", index_cell(&R::block, 0)},
      {"trial", [](const R& r) { return format_number(r.trial); },
       "The planned trial's index, from 0", "", "", index_cell(&R::trial, 0)},
      {"trial_in_block", [](const R& r) { return format_number(r.trial_in_block); },
       "The trial's place in its block, from 0", "", "", index_cell(&R::trial_in_block, 0)},
      {"condition", [](const R& r) { return format_number(r.condition); },
       "The cell: scene, then scheduler, then budget, in the crossing's order; yes/no's reference cells after", "", "",
       index_cell(&R::condition, 0)},
      {"scene", [](const R& r) { return r.scene; },
       "The scene's name (clip_comparison.scenes)", "", "", text_cell(&R::scene, "the scene's name")},
      {"scheduler", [](const R& r) { return r.scheduler; },
       "The test clip's scheduler (a yes/no reference trial: the reference's)", "", "", word(&R::scheduler, schedulers)},
      {"budget_tests", [](const R& r) { return format_number(r.budget_tests); },
       "The clip's budget; 0 for full resolution (no budget)", "sphere-sphere tests per frame", "",
       read_budget},
      {"reference", [](const R& r) { return r.reference; },
       "What the test clip is compared with: full (every collision resolved), or the reference scheduler at the same budget",
       "", "", word(&R::reference, references)},
      {"repetition", [](const R& r) { return format_number(r.repetition); },
       "Which of the cell's repetitions, from 0: it picks the world seed both clips start from", "", "",
       index_cell(&R::repetition, 0)},
      {"task", [](const R& r) { return r.task; },
       "The task", "", "2ifc=two clips, which looked wrong?|yes_no=one clip, did you see an error?",
       word(&R::task, {"2ifc", "yes_no"})},
      {"order", [](const R& r) { return r.order; },
       "Which clip came when", "", "test_first=2IFC, the test clip first|reference_first=2IFC, the reference first|test=yes/no, the test clip shown|reference=yes/no, the reference shown",
       read_order, 1},
      {"response", [](const R& r) { return r.response; },
       "The answer", "", "first=the first clip looked wrong|second=the second|yes=an error was seen|no=none was",
       read_response, 1},
      {"noticed", [](const R& r) { return std::to_string(r.noticed); },
       "Whether the answer named the test clip (2IFC) or was yes (yes/no)", "", "0=no|1=yes",
       read_noticed, 2},
      {"p_test", [](const R& r) { return number_or_empty(r.p_test); },
       "The episode model's chance that the test clip's errors are seen: 1 - prod(1 - p) over its unresolved episodes", "probability", "",
       measured_number(&R::p_test, 0, 1, "a probability in [0, 1]", clip_not_shown(true)), 2},
      {"p_reference", [](const R& r) { return number_or_empty(r.p_reference); },
       "The same for the reference clip", "probability", "",
       measured_number(&R::p_reference, 0, 1, "a probability in [0, 1]", clip_not_shown(false)), 2},
      {"episodes_test", [](const R& r) { return count_or_empty(r.episodes_test); },
       "Unresolved episodes in the test clip, those open at its end included", "", "",
       measured_count(&R::episodes_test, clip_not_shown(true)), 2},
      {"episodes_reference", [](const R& r) { return count_or_empty(r.episodes_reference); },
       "The same in the reference clip", "", "", measured_count(&R::episodes_reference, clip_not_shown(false)), 2},
      {"duration_test_s", [](const R& r) { return number_or_empty(r.duration_test_s); },
       "A person's test clip on the screen: its first frame's swap to the swap after its last; empty for a simulated observer", "seconds", "",
       measured_number(&R::duration_test_s, 0, std::numeric_limits<double>::max(), "a number of seconds >= 0",
                       not_measured(true)),
       2},
      {"duration_reference_s", [](const R& r) { return number_or_empty(r.duration_reference_s); },
       "The same for the reference clip", "seconds", "",
       measured_number(&R::duration_reference_s, 0, std::numeric_limits<double>::max(), "a number of seconds >= 0",
                       not_measured(false)),
       2},
      {"dropped_test", [](const R& r) { return count_or_empty(r.dropped_test); },
       "Refreshes the test clip missed on the screen; empty for a simulated observer", "frames", "",
       measured_count(&R::dropped_test, not_measured(true)), 2},
      {"dropped_reference", [](const R& r) { return count_or_empty(r.dropped_reference); },
       "The same for the reference clip", "frames", "", measured_count(&R::dropped_reference, not_measured(false)), 2},
      {"reaction_time_ms", [](const R& r) { return number_or_empty(r.reaction_time_ms); },
       "From the question's first frame to the key's event time; empty for a simulated observer", "milliseconds", "",
       measured_number(&R::reaction_time_ms, 0, std::numeric_limits<double>::max(), "a number of milliseconds >= 0",
                       [](const R& r) -> std::string {
                         return r.observer == "human" ? "" : "a simulated observer answers at once";
                       }),
       2},
      {"observer", [](const R& r) { return r.observer; },
       "Who answered", "", "human=a person|simulated=the simulated observer (--observer)",
       word(&R::observer, {"human", "simulated"})},
      {"started_utc", [](const R& r) { return r.started_utc; },
       "When the trial started, ISO 8601 UTC", "", "", utc_cell(&R::started_utc)},
      {"ended_utc", [](const R& r) { return r.ended_utc; },
       "When it was answered, ISO 8601 UTC", "", "", utc_cell(&R::ended_utc)},
  };
}

const std::vector<Column>& columns() {
  static const std::vector<Column> all = make_columns();
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
  // Every column, found by name: a session reads back the file it writes.
  std::vector<std::size_t> index;
  for (const Column& column : columns()) {
    const std::optional<std::size_t> i = table.column(column.name);
    if (!i) throw std::runtime_error(path + ":" + std::to_string(table.header_line) + ": " + column.name +
                                     ": no such column in the header (not a clip comparison's trials.csv?)");
    index.push_back(*i);
  }
  std::vector<ClipTrialRecord> records;
  records.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    ClipTrialRecord r;
    r.line = row.line;
    // In stages: the words of order and response depend on the task, and which cells a row
    // has on its task, order and observer.
    for (const int stage : {0, 1, 2})
      for (std::size_t c = 0; c < columns().size(); ++c) {
        const Column& column = columns()[c];
        if (column.stage != stage) continue;
        if (const std::string problem = column.read(row.cells[index[c]], r); !problem.empty())
          throw std::runtime_error(path + ":" + std::to_string(row.line) + ": " + column.name + ": " + problem);
      }
    records.push_back(std::move(r));
  }
  return records;
}

ClipTrialRecord planned_clip_record(const ClipComparisonSettings& design, const ClipTrial& trial,
                                    SchedulerKind scene_scheduler) {
  const ClipCondition& c = trial.condition;
  const bool full = design.reference == ClipReference::full;
  ClipTrialRecord r;
  r.block = trial.block;
  r.trial = trial.trial;
  r.trial_in_block = trial.trial_in_block;
  r.condition = c.index;
  r.scene = design.scenes.at(static_cast<std::size_t>(c.scene)).name;
  // The clip shown first: the test clip's scheduler and budget, or on a yes/no reference
  // trial the reference's (full resolution runs the scene's own scheduler).
  r.scheduler = kind_name(kSchedulerKinds, c.reference_clip && full ? scene_scheduler : c.scheduler);
  r.budget_tests = c.budget_tests;
  r.reference = full ? "full" : kind_name(kSchedulerKinds, design.reference_scheduler);
  r.repetition = trial.repetition;
  r.task = clip_task_name(design.task);
  if (design.task == ClipTask::two_interval)
    r.order = trial.test_first ? "test_first" : "reference_first";
  else
    r.order = c.reference_clip ? "reference" : "test";
  return r;
}

std::int64_t check_resumed_clip_records(const std::vector<ClipTrialRecord>& done, const ClipComparisonSettings& design,
                                        const std::vector<ClipTrial>& plan,
                                        std::span<const SchedulerKind> scene_schedulers,
                                        const std::string& participant, const std::string& path) {
  if (scene_schedulers.size() != design.scenes.size())
    throw std::invalid_argument("check_resumed_clip_records: a scheduler for each of the design's scenes, not " +
                                std::to_string(scene_schedulers.size()));
  std::int64_t session = 0;  // the row before's
  for (std::size_t i = 0; i < done.size(); ++i) {
    const ClipTrialRecord& r = done[i];
    const std::string at = path + ":" + std::to_string(r.line) + ": ";
    if (r.participant != participant)
      throw std::runtime_error(at + "participant is " + quoted(r.participant) + " in the file, " + quoted(participant) +
                               " given to --participant");
    // Sessions go 1, 2, ...: each row's is the row before's, or one more after a --resume.
    if (r.session != session && r.session != session + 1)
      throw std::runtime_error(at + "session is " + format_number(r.session) + " in the file after " +
                               (i == 0 ? std::string("no row before it") : "session " + format_number(session) + " on the row before") +
                               ": sessions go 1, 2, ..., one more for each --resume");
    session = r.session;
    if (i >= plan.size())
      throw std::runtime_error(at + "trial " + format_number(r.trial) + ", but this spec's design has no trial left: it ends after " +
                               std::to_string(plan.size()) + " trials (the trials were not run with this spec and seed)");
    const ClipTrial& t = plan[i];
    const ClipTrialRecord want =
        planned_clip_record(design, t, scene_schedulers[static_cast<std::size_t>(t.condition.scene)]);
    const auto differs = [&](const char* field, const std::string& in_file, const std::string& in_design) {
      throw std::runtime_error(at + field + " is " + in_file + " in the file, " + in_design +
                               " in this spec's design for trial " + std::to_string(t.trial) + " (condition " +
                               std::to_string(t.condition.index) + ")");
    };
    const auto integer = [&](const char* field, std::int64_t in_file, std::int64_t in_design) {
      if (in_file != in_design) differs(field, format_number(in_file), format_number(in_design));
    };
    const auto text = [&](const char* field, const std::string& in_file, const std::string& in_design) {
      if (in_file != in_design) differs(field, quoted(in_file), quoted(in_design));
    };
    integer("trial", r.trial, want.trial);
    integer("block", r.block, want.block);
    integer("trial_in_block", r.trial_in_block, want.trial_in_block);
    integer("condition", r.condition, want.condition);
    text("scene", r.scene, want.scene);
    text("scheduler", r.scheduler, want.scheduler);
    integer("budget_tests", r.budget_tests, want.budget_tests);
    text("reference", r.reference, want.reference);
    integer("repetition", r.repetition, want.repetition);
    text("task", r.task, want.task);
    text("order", r.order, want.order);
  }
  return session + 1;
}

}  // namespace fovea

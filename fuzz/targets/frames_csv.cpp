// Fuzz target: a run's frames.csv as a resumed sweep reads it back (`fovea sweep`,
// docs/studies.md): parse_csv (record/csv_reader.hpp), then summarise_run
// (study/study_table.hpp) into the run's table row, for a small fixed study whose metrics
// take every statistic and one difference of columns. Refusals are std::runtime_error: a
// malformed CSV, or a frames.csv without a column a metric reads.
//
// Beyond "no crash": the round trip of every CSV parse_csv accepts, written back as
// CsvWriter writes its rows and parsed again, gives the same header and cells. And the row
// of every frames.csv summarise_run accepts has the table's columns: the run's index and
// factor cells, the frames summarised (the rows after skip_frames), each statistic empty or
// a number, counts whole numbers within the frames, and min <= median, percentiles <= max.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/format.hpp"
#include "fuzz_check.hpp"
#include "record/csv_reader.hpp"
#include "record/csv_writer.hpp"
#include "study/study_plan.hpp"
#include "study/study_settings.hpp"
#include "study/study_table.hpp"

namespace {

using fovea::fuzz::check;

/// Every statistic, of one column and of a difference of two, as configs/studies/ use them.
constexpr const char* kStudy = R"(name: fuzz
base: base.yaml
factors:
  scheduler:
    key: schedule.kind
    values: [round_robin, priority_queues]
metrics:
  skip_frames: 2
  columns:
    frame_ms: [mean, sd, min, max, sum, median, count, p5, p50, p99.9, p100]
    step_ms: {column: frame_ms, minus: metrics_ms, stats: [min, median, max, count]}
    sphere_tests: [mean, max]
)";

struct Fixture {
  fovea::StudySettings study;
  fovea::PlannedRun run;
};

/// The study, loaded once. Its base config needs only to be a file: written to a folder of
/// its own in the temporary directory, removed once the study is loaded.
const Fixture& fixture() {
  static const Fixture f = [] {
    namespace fs = std::filesystem;
    std::string folder = (fs::temp_directory_path() / "fovea_fuzz_frames_csv_XXXXXX").string();
    if (::mkdtemp(folder.data()) == nullptr) fovea::fuzz::fail("cannot make a temporary folder for the study's base");
    std::ofstream(fs::path(folder) / "base.yaml") << "name: base\nframes: 5\n";
    Fixture loaded;
    loaded.study = fovea::load_study_text(kStudy, "fuzz_study.yaml", folder);
    loaded.run = fovea::plan_runs(loaded.study).front();
    std::error_code ignored;
    fs::remove_all(folder, ignored);
    return loaded;
  }();
  return f;
}

/// `table` as CsvWriter writes it: the header, then each row, each line ended by '\n'.
std::string write_table(const fovea::CsvTable& table) {
  std::string text = fovea::CsvWriter::header_line(table.header) + "\n";
  for (const fovea::CsvRow& row : table.rows) text += fovea::CsvWriter::header_line(row.cells) + "\n";
  return text;
}

void check_round_trip(const fovea::CsvTable& table) {
  const std::string written = write_table(table);
  fovea::CsvTable again;
  try {
    again = fovea::parse_csv(written, "written.csv");
  } catch (const std::runtime_error& e) {
    fovea::fuzz::fail(std::string("parse_csv refuses what CsvWriter wrote: ") + e.what());
  }
  check(again.header == table.header, "the header differs after writing and parsing again");
  check(again.rows.size() == table.rows.size(), "a different number of rows after writing and parsing again");
  for (std::size_t r = 0; r < table.rows.size(); ++r)
    check(again.rows[r].cells == table.rows[r].cells, "row " + std::to_string(r) + " differs after writing and parsing again");
}

void check_row(const std::vector<std::string>& row, const fovea::CsvTable& frames) {
  const Fixture& f = fixture();
  const std::vector<std::string> columns = f.study.table_columns();
  check(row.size() == columns.size(), "a row of " + std::to_string(row.size()) + " cells for " +
                                          std::to_string(columns.size()) + " columns");
  check(row[0] == fovea::format_number(f.run.index), "the run cell is not the run's index");
  std::size_t c = 1;
  for (const std::string& cell : f.run.cells) check(row[c++] == cell, "a factor cell differs from the run's");
  const std::size_t skip = static_cast<std::size_t>(f.study.skip_frames);
  const std::size_t summarised = frames.rows.size() > skip ? frames.rows.size() - skip : 0;
  check(row[c++] == std::to_string(summarised), "the frames cell is not the number of rows after skip_frames");
  for (const fovea::MetricSpec& metric : f.study.metrics) {
    std::optional<double> min, max, median;
    std::vector<double> percentiles;
    for (const fovea::MetricStat& stat : metric.stats) {
      const std::string& cell = row[c++];
      const std::string what = metric.name + "_" + stat.name + " '" + cell + "': ";
      if (cell.empty()) {
        check(stat.kind != fovea::MetricStat::Kind::count, what + "an empty count");
        continue;
      }
      const std::optional<double> value = fovea::parse_number(cell);
      check(value.has_value(), what + "not a number");
      switch (stat.kind) {
        case fovea::MetricStat::Kind::count:
          check(cell == std::to_string(static_cast<std::int64_t>(*value)) && *value <= static_cast<double>(summarised),
                what + "not a whole number within the frames summarised");
          break;
        case fovea::MetricStat::Kind::min: min = value; break;
        case fovea::MetricStat::Kind::max: max = value; break;
        case fovea::MetricStat::Kind::median: median = value; break;
        case fovea::MetricStat::Kind::percentile: percentiles.push_back(*value); break;
        default: break;
      }
    }
    if (min && median) check(*min <= *median, metric.name + ": the median is below the minimum");
    if (max && median) check(*median <= *max, metric.name + ": the median is above the maximum");
    for (const double p : percentiles) {
      if (min) check(*min <= p, metric.name + ": a percentile is below the minimum");
      if (max) check(p <= *max, metric.name + ": a percentile is above the maximum");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Fixture& f = fixture();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fovea::CsvTable frames;
  try {
    frames = fovea::parse_csv(text, "frames.csv");
  } catch (const std::runtime_error&) {
    return 0;  // refused, naming the line: what the reader is for
  }
  check_round_trip(frames);
  std::vector<std::string> row;
  try {
    row = fovea::summarise_run(f.study, f.run, frames, "frames.csv");
  } catch (const std::runtime_error&) {
    return 0;  // a column a metric reads is missing: the sweep says which
  }
  check_row(row, frames);
  return 0;
}

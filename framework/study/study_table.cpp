#include "study/study_table.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/format.hpp"
#include "record/column_stats.hpp"
#include "record/csv_writer.hpp"
#include "record/results_folder.hpp"

namespace fovea {

namespace {

/// One statistic of a metric's values in frame order (missing cells already left out) and
/// the same values sorted; "" when there are none, or for sd with fewer than two.
std::string statistic(const MetricStat& stat, const std::vector<double>& values, const std::vector<double>& sorted) {
  const std::size_t n = values.size();
  if (stat.kind == MetricStat::Kind::count) return format_number(static_cast<std::int64_t>(n));
  if (n == 0) return "";
  switch (stat.kind) {
    // mean_of and sample_sd_of (record/column_stats.hpp) scale the sum, so values near the
    // largest double give their mean, not infinity; for any other values, the plain sum's bits.
    case MetricStat::Kind::mean:
      return format_number(mean_of(values));
    case MetricStat::Kind::sum: {
      double sum = 0;
      for (const double v : values) sum += v;
      return format_number(sum);
    }
    case MetricStat::Kind::sd:
      return n < 2 ? "" : format_number(sample_sd_of(values));
    default:
      break;
  }
  switch (stat.kind) {
    case MetricStat::Kind::min:
      return format_number(sorted.front());
    case MetricStat::Kind::max:
      return format_number(sorted.back());
    case MetricStat::Kind::median:
      return format_number(median_of_sorted(sorted));
    default:
      return format_number(nearest_rank(sorted, stat.percent));
  }
}

}  // namespace

std::vector<std::string> summarise_run(const StudySettings& study, const PlannedRun& run, const CsvTable& frames,
                                       const std::string& frames_path, std::int64_t warmup_frames) {
  std::vector<std::string> row = {format_number(run.index)};
  row.insert(row.end(), run.cells.begin(), run.cells.end());
  const std::int64_t skipped = std::max(study.skip_frames, warmup_frames);
  const std::size_t first = static_cast<std::size_t>(std::min<std::int64_t>(skipped, static_cast<std::int64_t>(frames.rows.size())));
  row.push_back(format_number(static_cast<std::int64_t>(frames.rows.size() - first)));
  const auto column_of = [&](const MetricSpec& metric, const std::string& name) {
    const std::optional<std::size_t> c = frames.column(name);
    if (!c)
      throw std::runtime_error(metric.where + ": metrics.columns." + metric.name + ": " + frames_path + " has no column '" +
                               name + "' (docs/results.md lists them; ground-truth columns need ground_truth: true)");
    return *c;
  };
  std::vector<double> values;
  std::vector<double> sorted;
  for (const MetricSpec& metric : study.metrics) {
    const std::size_t column = column_of(metric, metric.column);
    const bool has_minus = !metric.minus_column.empty();
    const std::size_t minus = has_minus ? column_of(metric, metric.minus_column) : column;
    values.clear();
    for (std::size_t r = first; r < frames.rows.size(); ++r) {
      const std::optional<double> a = parse_finite_number(frames.rows[r].cells[column]);
      if (!a) continue;  // an empty cell: the value does not apply to this frame
      if (!has_minus) {
        values.push_back(*a);
        continue;
      }
      const std::optional<double> b = parse_finite_number(frames.rows[r].cells[minus]);
      if (b) values.push_back(*a - *b);
    }
    sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (const MetricStat& stat : metric.stats) row.push_back(statistic(stat, values, sorted));
  }
  return row;
}

void write_study_table(const std::string& path, const std::vector<std::string>& columns, const StudyRows& rows) {
  write_csv_atomically(path, columns, [&](CsvWriter& csv) {
    for (const auto& [index, row] : rows) {
      if (row.size() != columns.size())
        throw std::runtime_error(path + ": run " + std::to_string(index) + " has " + std::to_string(row.size()) +
                                 " cells for " + std::to_string(columns.size()) + " columns");
      for (const std::string& cell : row) csv.cell(std::string_view(cell));
      csv.end_row(CsvWriter::Flush::later);
    }
  });
}

StudyRows read_study_table(const std::string& path, const std::vector<std::string>& columns) {
  const CsvTable table = read_csv(path);
  // A table whose last row lost its line end was cut (copied in part): that row's last value
  // may be cut too (2228 read as 22), so the table is refused, never read without that row.
  if (const std::string cut = table.unfinished_note(path); !cut.empty())
    throw std::runtime_error(cut + " (the table was cut short; copy the shard's table.csv whole, or run its sweep "
                                   "again, which writes it anew)");
  if (table.header != columns)
    throw std::runtime_error(path + ":" + std::to_string(table.header_line) +
                             ": its columns are not this study's (another study, or another version of it)");
  StudyRows rows;
  for (const CsvRow& row : table.rows) {
    const std::optional<double> index = parse_finite_number(row.cells[0]);
    if (!index || *index < 0 || *index != std::floor(*index))
      throw std::runtime_error(path + ":" + std::to_string(row.line) + ": run: expected a run index, found '" +
                               row.cells[0] + "'");
    if (!rows.emplace(static_cast<std::int64_t>(*index), row.cells).second)
      throw std::runtime_error(path + ":" + std::to_string(row.line) + ": run " + row.cells[0] + " appears twice");
  }
  return rows;
}

}  // namespace fovea

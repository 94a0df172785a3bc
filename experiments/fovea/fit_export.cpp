#include "fovea/fit_export.hpp"

#include <cstdint>
#include <map>
#include <string_view>
#include <utility>

#include "record/csv_writer.hpp"
#include "record/results_folder.hpp"

namespace fovea {

const char* counted_response_name(ResponseKind kind) { return kind == ResponseKind::forced_choice ? "correct" : "yes"; }

std::vector<LevelCount> count_levels(std::span<const TrialOutcome> trials) {
  // Keyed by (eccentricity, gap): the map's order is the rows' order.
  std::map<std::pair<double, double>, LevelCount> levels;
  for (const TrialOutcome& t : trials) {
    LevelCount& c = levels[{t.eccentricity_deg, t.gap_deg}];
    c.eccentricity_deg = t.eccentricity_deg;
    c.gap_deg = t.gap_deg;
    ++c.total;
    c.positive += t.yes ? 1 : 0;
  }
  std::vector<LevelCount> rows;
  rows.reserve(levels.size());
  for (const auto& [key, c] : levels) rows.push_back(c);
  return rows;
}

std::string export_file_name(const std::string& stem, ExportFormat format) {
  return stem + "_" + kind_name(kExportFormats, format) + ".csv";
}

std::vector<std::string> export_columns(ExportFormat format, ResponseKind kind) {
  if (format == ExportFormat::palamedes) return {"participant", "eccentricity_deg", "StimLevels", "NumPos", "OutOfNum"};
  return {"participant", "eccentricity_deg", "gap_deg", std::string("n_") + counted_response_name(kind), "n_total"};
}

void write_export(const std::filesystem::path& path, ExportFormat format, ResponseKind kind,
                  std::span<const ExportGroup> groups) {
  write_csv_atomically(path, export_columns(format, kind), [&](CsvWriter& csv) {
    for (const ExportGroup& group : groups)
      for (const LevelCount& c : count_levels(group.trials)) {
        csv.cell(std::string_view(group.name)).cell(c.eccentricity_deg).cell(c.gap_deg);
        csv.cell(std::int64_t{c.positive}).cell(std::int64_t{c.total});
        csv.end_row(CsvWriter::Flush::later);
      }
  });
}

}  // namespace fovea

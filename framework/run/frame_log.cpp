#include "run/frame_log.hpp"

#include <cassert>
#include <cmath>

namespace fovea {

namespace {

std::vector<std::string> names_of(const std::vector<FrameColumn>& columns) {
  std::vector<std::string> names;
  for (const FrameColumn& c : columns) names.push_back(c.name);
  return names;
}

}  // namespace

std::vector<std::string> FrameLog::columns(const FrameLogColumns& optional) { return names_of(frame_columns(optional)); }

FrameLog::FrameLog(const std::string& path, FrameLogColumns optional, std::int64_t warmup_frames)
    : demo_count_(optional.demo.size()),
      columns_(frame_columns(optional)),
      csv_(path, names_of(columns_)),
      stats_(columns_.size()),
      warmup_frames_(warmup_frames) {}

void FrameLog::write(const FrameStats& stats, const FrameMeasures& measures, std::span<const double> demo_values) {
  assert(demo_values.size() == demo_count_);
  const FrameRow row{stats, measures, demo_values};
  const bool summarised = rows_ >= warmup_frames_;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const FrameCell cell = columns_[c].value(row, columns_[c].index);
    if (const auto* text = std::get_if<std::string_view>(&cell)) {
      csv_.cell(*text);  // text: no summary
    } else if (const auto* n = std::get_if<std::int64_t>(&cell)) {
      csv_.cell(*n);
      if (summarised) stats_[c].add(static_cast<double>(*n));
    } else if (const double x = std::get<double>(cell); std::isnan(x)) {
      csv_.cell_missing();
    } else {
      csv_.cell(x);
      if (summarised) stats_[c].add(x);
    }
  }
  csv_.end_row();
  ++rows_;
}

nlohmann::ordered_json FrameLog::column_summaries() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (!columns_[c].summarised) continue;
    const std::string& name = columns_[c].name;
    if (stats_[c].count() == 0) {
      j[name] = nullptr;  // no frame had a value: say so rather than invent zeros
      continue;
    }
    const ColumnSummary s = stats_[c].summary();
    j[name] = {{"mean", s.mean}, {"median", s.median}, {"p95", s.p95}, {"min", s.min}, {"max", s.max}};
  }
  return j;
}

// Every column that has a value in every row samples alike; the first, the frame index, is
// one (kept for this though it is not summarised).
std::int64_t FrameLog::quantile_stride() const { return stats_.empty() ? 1 : stats_.front().stride(); }

}  // namespace fovea

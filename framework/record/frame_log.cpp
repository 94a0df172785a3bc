#include "record/frame_log.hpp"


namespace fovea {

std::vector<std::string> FrameLog::columns() {
  std::vector<std::string> c = {"frame", "sim_time_s", "entities", "kinetic_energy_j", "wall_hits",
                                "pairs", "pairs_started", "pairs_stopped"};
  for (int p = 0; p < kPhaseCount; ++p) c.push_back(std::string(phase_name(static_cast<Phase>(p))) + "_ms");
  c.push_back("frame_ms");
  return c;
}

FrameLog::FrameLog(const std::string& path) : csv_(path, columns()), columns_(columns().size()) {}

void FrameLog::write(const FrameStats& stats, const FrameMeasures& measures) {
  std::size_t column = 0;
  const auto record = [&](auto value) {
    csv_.cell(value);
    columns_[column++].add(static_cast<double>(value));
  };
  record(stats.frame);
  record(stats.sim_time_s);
  record(stats.entity_count);
  record(measures.kinetic_energy_j);
  record(stats.wall_hits);
  record(stats.pairs);
  record(stats.pairs_started);
  record(stats.pairs_stopped);
  for (const double ms : stats.phase_ms) record(ms);
  record(stats.frame_ms);
  csv_.end_row();
  ++rows_;
}

nlohmann::ordered_json FrameLog::column_summaries() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const std::vector<std::string> names = columns();
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c] == "frame") continue;
    const ColumnSummary s = columns_[c].summary();
    j[names[c]] = {{"mean", s.mean}, {"median", s.median}, {"p95", s.p95}, {"min", s.min}, {"max", s.max}};
  }
  return j;
}

std::int64_t FrameLog::quantile_stride() const { return columns_.empty() ? 1 : columns_.front().stride(); }

}  // namespace fovea

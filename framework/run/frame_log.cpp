#include "run/frame_log.hpp"

#include <cassert>
#include <cmath>
#include <type_traits>


namespace fovea {

std::vector<std::string> FrameLog::columns(FrameLogColumns optional) {
  std::vector<std::string> c = {"frame",          "sim_time_s",
                                "entities",       "kinetic_energy_j",
                                "potential_energy_j", "pairs",
                                "pairs_started",  "pairs_stopped",
                                "gaze_x_px",      "gaze_y_px",
                                "gaze_source",    "gaze_valid",
                                "gaze_age_ms",    "gaze_dropped",
                                "collisions",     "resolved_colliding",
                                "resolved_not_colliding", "interrupted",
                                "sphere_tests",   "budget_exhausted",
                                "budget_overshoot_us", "nabla_est",
                                "p_est"};
  if (optional.ground_truth)
    for (const char* name : {"nabla_true", "p_true", "false_collisions", "missed_collisions"}) c.push_back(name);
  for (const char* name : {"contacts", "wall_contacts", "contact_points", "contact_tests", "contact_energy_j",
                           "bounces_limited", "compressions_limited"})
    c.push_back(name);
  if (optional.tree_growth)
    for (const char* name : {"tree_nodes_built", "tree_nodes_evicted", "tree_nodes", "tree_build_ms"}) c.push_back(name);
  for (int p = 0; p < kPhaseCount; ++p) c.push_back(std::string(phase_name(static_cast<Phase>(p))) + "_ms");
  c.push_back("frame_ms");
  if (optional.rendered)
    for (const char* name : {"render_ms", "frame_interval_ms"}) c.push_back(name);
  for (const std::string& name : optional.demo) c.push_back(name);
  return c;
}

FrameLog::FrameLog(const std::string& path, FrameLogColumns optional)
    : optional_(optional), csv_(path, columns(optional)), columns_(columns(optional).size()) {}

void FrameLog::write(const FrameStats& stats, const FrameMeasures& measures, std::span<const double> demo_values) {
  std::size_t column = 0;
  const auto record = [&](auto value) {
    if constexpr (std::is_floating_point_v<decltype(value)>) {
      if (std::isnan(value)) {
        csv_.cell_missing();
        ++column;
        return;
      }
    }
    csv_.cell(value);
    columns_[column++].add(static_cast<double>(value));
  };
  record(stats.frame);
  record(stats.sim_time_s);
  record(stats.entity_count);
  record(measures.kinetic_energy_j);
  record(measures.potential_energy_j);
  record(stats.pairs);
  record(stats.pairs_started);
  record(stats.pairs_stopped);
  record(stats.gaze.x_px);
  record(stats.gaze.y_px);
  csv_.cell(std::string_view(stats.gaze.source));
  ++column;  // text: no summary
  record(std::int64_t{stats.gaze.valid ? 1 : 0});
  record(stats.gaze.age_ms);
  record(static_cast<std::int64_t>(stats.gaze.dropped));
  record(stats.collisions);
  record(stats.resolved_colliding);
  record(stats.resolved_not_colliding);
  record(stats.interrupted);
  record(stats.sphere_tests);
  record(std::int64_t{stats.budget_exhausted ? 1 : 0});
  record(stats.budget_overshoot_us);
  record(stats.nabla_est_m);
  record(stats.p_est);
  if (optional_.ground_truth) {
    record(stats.nabla_true_m);
    record(stats.p_true);
    record(stats.false_collisions);
    record(stats.missed_collisions);
  }
  record(stats.response.contacts);
  record(stats.response.wall_contacts);
  record(stats.response.contact_points);
  record(stats.response.contact_tests);
  record(stats.response.energy_change_j);
  record(stats.response.bounces_limited);
  record(stats.response.compressions_limited);
  if (optional_.tree_growth) {
    record(stats.tree_nodes_built);
    record(stats.tree_nodes_evicted);
    record(stats.tree_nodes);
    record(stats.tree_build_ms);
  }
  for (const double ms : stats.phase_ms) record(ms);
  record(stats.frame_ms);
  if (optional_.rendered) {
    record(measures.render_ms);
    record(measures.frame_interval_ms);
  }
  assert(demo_values.size() == optional_.demo.size());
  for (const double value : demo_values) record(value);
  csv_.end_row();
  ++rows_;
}

nlohmann::ordered_json FrameLog::column_summaries() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  const std::vector<std::string> names = columns(optional_);
  for (std::size_t c = 0; c < names.size(); ++c) {
    if (names[c] == "frame" || names[c] == "gaze_source") continue;  // an index, a text
    if (columns_[c].count() == 0) {
      j[names[c]] = nullptr;  // no frame had a value: say so rather than invent zeros
      continue;
    }
    const ColumnSummary s = columns_[c].summary();
    j[names[c]] = {{"mean", s.mean}, {"median", s.median}, {"p95", s.p95}, {"min", s.min}, {"max", s.max}};
  }
  return j;
}

std::int64_t FrameLog::quantile_stride() const { return columns_.empty() ? 1 : columns_.front().stride(); }

}  // namespace fovea

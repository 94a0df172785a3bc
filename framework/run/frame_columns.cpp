#include "run/frame_columns.hpp"

#include <array>
#include <utility>

namespace fovea {
namespace {

/// The optional groups of columns, each written only when FrameLogColumns asks for it.
enum class Group { always, ground_truth, tree_growth, rendered, visibility, visible_truth };

struct Declared {
  std::string_view name;
  Group group;
  FrameCell (*value)(const FrameRow& row, std::size_t index);
  bool summarised = true;
};

FrameCell count(std::int64_t n) { return n; }
FrameCell flag(bool b) { return std::int64_t{b ? 1 : 0}; }

/// The columns before the phases' times, in file order: one line each, its name beside its
/// value. Columns ending in `_ms` or `_us` are wall-clock times; all others are deterministic
/// for a config and seed with a work budget (docs/results.md).
constexpr Declared kLeadingColumns[] = {
    {"frame", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.frame); }, false},
    {"sim_time_s", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.sim_time_s; }},
    {"entities", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.entity_count); }},
    {"kinetic_energy_j", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.measures.kinetic_energy_j; }},
    {"potential_energy_j", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.measures.potential_energy_j; }},
    {"pairs", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.pairs); }},
    {"pairs_started", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.pairs_started); }},
    {"pairs_stopped", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.pairs_stopped); }},
    {"gaze_x_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.x_px; }},
    {"gaze_y_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.y_px; }},
    {"gaze_source", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return std::string_view(r.stats.gaze.source); }, false},
    {"gaze_valid", Group::always, [](const FrameRow& r, std::size_t) { return flag(r.stats.gaze.valid); }},
    {"gaze_age_ms", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.age_ms; }},
    {"gaze_dropped", Group::always, [](const FrameRow& r, std::size_t) { return count(static_cast<std::int64_t>(r.stats.gaze.dropped)); }},
    {"gaze_tracked_x_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.tracked_x_px; }},
    {"gaze_tracked_y_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.tracked_y_px; }},
    {"gaze_tracked_age_ms", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.tracked_age_ms; }},
    {"gaze_saccade", Group::always, [](const FrameRow& r, std::size_t) { return flag(r.stats.gaze.saccade_in_flight); }},
    {"gaze_landing_x_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.landing_x_px; }},
    {"gaze_landing_y_px", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.gaze.landing_y_px; }},
    {"gaze_collision_deg", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.gaze_collision_deg; }},
    {"collisions", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.collisions); }},
    {"resolved_colliding", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.resolved_colliding); }},
    {"resolved_not_colliding", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.resolved_not_colliding); }},
    {"interrupted", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.interrupted); }},
    {"sphere_tests", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.sphere_tests); }},
    {"budget_exhausted", Group::always, [](const FrameRow& r, std::size_t) { return flag(r.stats.budget_exhausted); }},
    {"budget_overshoot_us", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.budget_overshoot_us; }},
    {"nabla_est", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.nabla_est_m; }},
    {"p_est", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_est; }},
    {"p_est_supra", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_est_supra; }},
    {"p_est_visible", Group::visibility, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_est_visible; }},
    {"episodes_ended", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.episodes_ended); }},
    {"p_episodes_est", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_episodes_est; }},
    {"nabla_true", Group::ground_truth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.nabla_true_m; }},
    {"p_true", Group::ground_truth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_true; }},
    {"p_true_supra", Group::ground_truth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_true_supra; }},
    {"p_true_visible", Group::visible_truth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_true_visible; }},
    {"p_episodes_true", Group::ground_truth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.metrics.p_episodes_true; }},
    {"false_collisions", Group::ground_truth, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.false_collisions); }},
    {"missed_collisions", Group::ground_truth, [](const FrameRow& r, std::size_t) { return count(r.stats.metrics.missed_collisions); }},
    {"contacts", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.contacts); }},
    {"wall_contacts", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.wall_contacts); }},
    {"contact_points", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.contact_points); }},
    {"deepest_contact_m", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.response.deepest_contact_m; }},
    {"contact_tests", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.contact_tests); }},
    {"contact_energy_j", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.response.energy_change_j; }},
    {"bounces_limited", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.bounces_limited); }},
    {"compressions_limited", Group::always, [](const FrameRow& r, std::size_t) { return count(r.stats.response.compressions_limited); }},
    {"tree_nodes_built", Group::tree_growth, [](const FrameRow& r, std::size_t) { return count(r.stats.tree_nodes_built); }},
    {"tree_nodes_evicted", Group::tree_growth, [](const FrameRow& r, std::size_t) { return count(r.stats.tree_nodes_evicted); }},
    {"tree_nodes", Group::tree_growth, [](const FrameRow& r, std::size_t) { return count(r.stats.tree_nodes); }},
    {"tree_build_ms", Group::tree_growth, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.tree_build_ms; }},
};

/// After the phases' times (`<phase>_ms`, one per Phase, in order), in file order.
constexpr Declared kTrailingColumns[] = {
    {"frame_ms", Group::always, [](const FrameRow& r, std::size_t) -> FrameCell { return r.stats.frame_ms; }},
    {"render_ms", Group::rendered, [](const FrameRow& r, std::size_t) -> FrameCell { return r.measures.render_ms; }},
    {"frame_interval_ms", Group::rendered, [](const FrameRow& r, std::size_t) -> FrameCell { return r.measures.frame_interval_ms; }},
};

bool wanted(Group group, const FrameLogColumns& optional) {
  switch (group) {
    case Group::always: return true;
    case Group::ground_truth: return optional.ground_truth;
    case Group::tree_growth: return optional.tree_growth;
    case Group::rendered: return optional.rendered;
    case Group::visibility: return optional.visibility;
    case Group::visible_truth: return optional.visibility && optional.ground_truth;
  }
  return false;
}

void add(std::span<const Declared> declared, const FrameLogColumns& optional, std::vector<FrameColumn>& columns) {
  for (const Declared& d : declared)
    if (wanted(d.group, optional)) columns.push_back({std::string(d.name), d.value, 0, d.summarised});
}

}  // namespace

std::vector<FrameColumn> frame_columns(const FrameLogColumns& optional) {
  std::vector<FrameColumn> columns;
  add(kLeadingColumns, optional, columns);
  for (std::size_t p = 0; p < kPhaseCount; ++p)
    columns.push_back({std::string(phase_name(static_cast<Phase>(p))) + "_ms",
                       [](const FrameRow& r, std::size_t phase) -> FrameCell { return r.stats.phase_ms[phase]; }, p});
  add(kTrailingColumns, optional, columns);
  for (std::size_t d = 0; d < optional.demo.size(); ++d)
    columns.push_back({optional.demo[d], [](const FrameRow& r, std::size_t value) -> FrameCell { return r.demo_values[value]; }, d});
  return columns;
}

}  // namespace fovea

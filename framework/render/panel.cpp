#include "render/panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/format.hpp"
#include "core/kind_table.hpp"
#include "schedule/scheduler.hpp"

namespace fovea {
namespace {

/// A combo box over the rows of a kind table that `offered` accepts, shown by their config
/// names, each with its help as a tooltip; true when another was chosen. The current value
/// is shown by name whether offered or not (a run may have started with one the panel
/// cannot switch to).
template <class Table, class Offered>
bool kind_combo(const char* label, KindOf<Table>& value, const Table& kinds, Offered offered) {
  bool changed = false;
  if (ImGui::BeginCombo(label, kind_name(kinds, value))) {
    for (const auto& row : kinds) {
      if (!offered(row)) continue;
      if (ImGui::Selectable(row.name, row.kind == value) && row.kind != value) {
        value = row.kind;
        changed = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", row.help);
    }
    ImGui::EndCombo();
  }
  return changed;
}

/// Every row of a kind table.
template <class Table>
bool kind_combo(const char* label, KindOf<Table>& value, const Table& kinds) {
  return kind_combo(label, value, kinds, [](const auto&) { return true; });
}

/// Makes a live change; the event says what changed, or why the world refused it.
template <class Change>
void live_change(std::vector<std::string>& events, const std::string& event, Change&& change) {
  try {
    change();
    events.push_back(event);
  } catch (const std::invalid_argument& e) {
    events.push_back(std::string("refused: ") + e.what());
  }
}

void plot(const char* label, const std::vector<float>& values, const char* unit) {
  if (values.empty()) return;
  const float top = *std::max_element(values.begin(), values.end());
  const std::string overlay = format_significant(values.back()) + " " + unit + " (max " + format_significant(top) + ")";
  ImGui::PlotLines(label, values.data(), static_cast<int>(values.size()), 0, overlay.c_str(), 0.0f,
                   std::max(top * 1.1f, 1e-6f), ImVec2(0, 50));
}

}  // namespace

void PlotHistory::add(double frame_time_ms, double nabla_est_m, double p_est) {
  for (auto [series, value] : {std::pair{&frame_ms, frame_time_ms}, {&nabla_m, nabla_est_m}, {&p, p_est}}) {
    if (std::isnan(value)) continue;  // the first frame has no interval before it
    // 240 floats: moving them down is cheaper than any ring buffer's bookkeeping.
    if (series->size() == kLength) series->erase(series->begin());
    series->push_back(static_cast<float>(value));
  }
}

void draw_panel(Animation& world, std::uint64_t seed, ViewerControls& controls, const PlotHistory& history,
                const std::string& status_line, std::vector<std::string>& events) {
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowBgAlpha(0.85f);
  ImGui::Begin("fovea", nullptr, ImGuiWindowFlags_AlwaysAutoResize);
  ImGui::PushItemWidth(170);
  ImGui::TextUnformatted(status_line.c_str());

  if (ImGui::Button(controls.paused ? "Run" : "Pause")) controls.paused = !controls.paused;
  ImGui::SameLine();
  if (ImGui::Button("Step")) controls.step_once = true;
  ImGui::SameLine();
  if (ImGui::Button("Reset")) controls.reset = true;
  ImGui::SameLine();
  if (ImGui::Button("Screenshot")) controls.screenshot = true;

  if (ImGui::CollapsingHeader("Scheduling", ImGuiTreeNodeFlags_DefaultOpen)) {
    ScheduleSettings schedule = world.settings().schedule;
    // Every scheduler; the oracle's kind only with ground truth, which set_schedule needs.
    const bool ground_truth = world.settings().ground_truth;
    if (kind_combo("scheduler", schedule.kind, kSchedulerKinds,
                   [&](const SchedulerKindInfo& s) { return ground_truth || !s.uses_true_priority; }))
      live_change(events, std::string("schedule.kind=") + scheduler_name(schedule.kind),
                  [&] { world.set_schedule(schedule); });
    BudgetSettings budget = world.settings().budget;
    bool budget_changed =
        kind_combo("budget", budget.mode, kBudgetModes, [](const BudgetModeInfo& m) { return m.runs_a_world; });
    if (budget.mode == BudgetMode::unlimited) {
      // Full resolution: nothing to set.
    } else if (budget.mode == BudgetMode::work) {
      int tests = static_cast<int>(std::min<std::int64_t>(budget.tests, 100'000'000));
      if (ImGui::SliderInt("tests", &tests, 0, 200000, "%d", ImGuiSliderFlags_Logarithmic)) {
        budget.tests = tests;
        budget_changed = true;
      }
    } else {
      float ms = static_cast<float>(budget.ms);
      if (ImGui::SliderFloat("ms", &ms, 0.0f, 20.0f, "%.2f ms", ImGuiSliderFlags_Logarithmic)) {
        budget.ms = ms;
        budget_changed = true;
      }
    }
    if (budget_changed)
      live_change(events,
                  budget.mode == BudgetMode::unlimited ? std::string("budget.mode=unlimited")
                  : budget.mode == BudgetMode::work    ? "budget.tests=" + std::to_string(budget.tests)
                                                       : "budget.ms=" + format_significant(budget.ms),
                  [&] { world.set_budget(budget); });
    InterruptPolicy policy = world.settings().interrupt_policy;
    if (kind_combo("interrupted", policy, kInterruptPolicies))
      live_change(events, std::string("interrupt_policy=") + kind_name(kInterruptPolicies, policy),
                  [&] { world.set_interrupt_policy(policy); });
  }

  if (ImGui::CollapsingHeader("Gaze and perception")) {
    GazeSettings gaze = world.gaze().settings();
    // Not offered: a source that needs a file (replay) or a program pushing (external); a
    // world running one still shows its name here.
    if (kind_combo("gaze source", gaze.source, kGazeSources, [](const GazeSourceInfo& g) {
          return g.input != GazeInput::file && g.input != GazeInput::program;
        }))
      live_change(events, std::string("gaze.source=") + gaze_source_name(gaze.source),
                  [&] { world.gaze().switch_source(gaze, seed); });
    PerceptionModelSettings model = world.perception_model().settings();
    bool changed = kind_combo("F", model.function, kPsychometricFunctions);
    const auto slider = [&](const char* label, double& value, float lo, float hi) {
      float v = static_cast<float>(value);
      if (ImGui::SliderFloat(label, &v, lo, hi, "%.3f")) {
        value = v;
        changed = true;
      }
    };
    slider("threshold_deg T0", model.threshold_deg, 0.005f, 2.0f);
    slider("eccentricity_scale_deg E2", model.eccentricity_scale_deg, 0.05f, 20.0f);
    slider("width", model.width, 0.05f, 5.0f);
    slider("guess_rate", model.guess_rate, 0.0f, 0.5f);
    slider("lapse_rate", model.lapse_rate, 0.0f, 0.06f);
    if (changed)
      live_change(events,
                  std::string("perception.model: F=") + kind_name(kPsychometricFunctions, model.function) +
                      " T0=" + format_significant(model.threshold_deg) +
                      " E2=" + format_significant(model.eccentricity_scale_deg) +
                      " width=" + format_significant(model.width) + " guess=" + format_significant(model.guess_rate) +
                      " lapse=" + format_significant(model.lapse_rate),
                  [&] { world.set_perception_model(model); });
  }

  if (ImGui::CollapsingHeader("View and overlays")) {
    OverlaySettings& o = controls.render.overlays;
    kind_combo("camera", controls.render.camera_mode, kCameraModes);
    ImGui::Checkbox("overlays", &controls.show_overlays);
    ImGui::Checkbox("fixation and rings", &o.fixation);
    ImGui::Checkbox("collision outcomes", &o.collisions);
    ImGui::Checkbox("gaps left", &o.gaps);
    ImGui::Checkbox("sphere tree", &o.sphere_tree);
    if (o.sphere_tree && !world.entities().empty()) {
      ImGui::InputInt("entity (click one)", &o.sphere_tree_entity);
      o.sphere_tree_entity = std::clamp(o.sphere_tree_entity, 0, static_cast<int>(world.entities().size()) - 1);
      ImGui::SliderInt("level", &o.sphere_tree_level, 0, 12);
    }
    ImGui::Checkbox("frame-time graph", &o.frame_graph);
  }

  if (ImGui::CollapsingHeader("Plots", ImGuiTreeNodeFlags_DefaultOpen)) {
    plot("frame", history.frame_ms, "ms");
    plot("nabla", history.nabla_m, "m");
    plot("P", history.p, "");
  }
  ImGui::PopItemWidth();
  ImGui::End();
}

}  // namespace fovea

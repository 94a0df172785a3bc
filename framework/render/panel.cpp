#include "render/panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/format.hpp"
#include "schedule/scheduler.hpp"

namespace fovea {
namespace {

/// A combo box over an enum's values, by their config names; true when one was chosen.
template <class E>
bool enum_combo(const char* label, E& value, const std::vector<std::pair<const char*, E>>& options) {
  const char* current = "?";
  for (const auto& [name, v] : options)
    if (v == value) current = name;
  bool changed = false;
  if (ImGui::BeginCombo(label, current)) {
    for (const auto& [name, v] : options) {
      if (ImGui::Selectable(name, v == value) && v != value) {
        value = v;
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  return changed;
}

std::vector<float> as_vector(const std::deque<float>& d) { return {d.begin(), d.end()}; }

void plot(const char* label, const std::deque<float>& values, const char* unit) {
  if (values.empty()) return;
  const std::vector<float> v = as_vector(values);
  const float top = *std::max_element(v.begin(), v.end());
  const std::string overlay = format_significant(v.back()) + " " + unit + " (max " + format_significant(top) + ")";
  ImGui::PlotLines(label, v.data(), static_cast<int>(v.size()), 0, overlay.c_str(), 0.0f, std::max(top * 1.1f, 1e-6f),
                   ImVec2(0, 50));
}

}  // namespace

void PlotHistory::add(double frame_time_ms, double nabla_est_m, double p_est) {
  for (auto [series, value] : {std::pair{&frame_ms, frame_time_ms}, {&nabla_m, nabla_est_m}, {&p, p_est}}) {
    if (std::isnan(value)) continue;  // the first frame has no interval before it
    series->push_back(static_cast<float>(value));
    if (series->size() > kLength) series->pop_front();
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
    bool schedule_changed = enum_combo<SchedulerKind>("scheduler", schedule.kind,
                                                      {{"round_robin", SchedulerKind::round_robin},
                                                       {"sequential", SchedulerKind::sequential},
                                                       {"sorted_sequential", SchedulerKind::sorted_sequential},
                                                       {"priority_queues", SchedulerKind::priority_queues}});
    if (schedule_changed) {
      try {
        world.set_schedule(schedule);
        events.push_back(std::string("schedule.kind=") + scheduler_name(schedule.kind));
      } catch (const std::invalid_argument& e) {
        events.push_back(std::string("refused: ") + e.what());
      }
    }
    BudgetSettings budget = world.settings().budget;
    bool budget_changed = enum_combo<BudgetMode>("budget", budget.mode, {{"work", BudgetMode::work}, {"wall", BudgetMode::wall}});
    if (budget.mode == BudgetMode::work) {
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
    if (budget_changed) {
      world.set_budget(budget);
      events.push_back(budget.mode == BudgetMode::work ? "budget.tests=" + std::to_string(budget.tests)
                                                       : "budget.ms=" + format_significant(budget.ms));
    }
    InterruptPolicy policy = world.settings().interrupt_policy;
    if (enum_combo<InterruptPolicy>("interrupted", policy,
                                    {{"repulse", InterruptPolicy::repulse}, {"interpenetrate", InterruptPolicy::interpenetrate}})) {
      world.set_interrupt_policy(policy);
      events.push_back(std::string("interrupt_policy=") + (policy == InterruptPolicy::repulse ? "repulse" : "interpenetrate"));
    }
  }

  if (ImGui::CollapsingHeader("Gaze and perception")) {
    GazeSettings gaze = world.gaze().settings();
    if (enum_combo<GazeSourceKind>("gaze source", gaze.source,
                                   {{"fixed", GazeSourceKind::fixed},
                                    {"mouse", GazeSourceKind::mouse},
                                    {"scripted", GazeSourceKind::scripted},
                                    {"pupil", GazeSourceKind::pupil},
                                    {"gazepoint", GazeSourceKind::gazepoint}})) {
      try {
        world.gaze().switch_source(gaze, seed);
        events.push_back(std::string("gaze.source=") + gaze_source_name(gaze.source));
      } catch (const std::invalid_argument& e) {
        events.push_back(std::string("refused: ") + e.what());
      }
    }
    PerceptionModelSettings model = world.perception_model().settings();
    bool changed = enum_combo<PsychometricFunction>("F", model.function,
                                                    {{"logistic", PsychometricFunction::logistic},
                                                     {"weibull", PsychometricFunction::weibull}});
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
    if (changed) {
      try {
        world.set_perception_model(model);
        events.push_back(std::string("perception.model: F=") +
                         (model.function == PsychometricFunction::logistic ? "logistic" : "weibull") +
                         " T0=" + format_significant(model.threshold_deg) +
                         " E2=" + format_significant(model.eccentricity_scale_deg) + " width=" +
                         format_significant(model.width) + " guess=" + format_significant(model.guess_rate) +
                         " lapse=" + format_significant(model.lapse_rate));
      } catch (const std::invalid_argument& e) {
        events.push_back(std::string("refused: ") + e.what());
      }
    }
  }

  if (ImGui::CollapsingHeader("View and overlays")) {
    OverlaySettings& o = controls.render.overlays;
    enum_combo<CameraMode>("camera", controls.render.camera_mode, {{"orbit", CameraMode::orbit}, {"fly", CameraMode::fly}});
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

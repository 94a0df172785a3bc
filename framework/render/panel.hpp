#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/render_settings.hpp"
#include "frame/animation.hpp"

namespace fovea {

/// The last frames' values the panel plots, oldest first, at most kLength each: contiguous,
/// so the plots and the frame-time graph read them in place.
struct PlotHistory {
  static constexpr std::size_t kLength = 240;  ///< frames kept per series; older ones drop off
  std::vector<float> frame_ms;  ///< time between shown frames (what the viewer sees)
  std::vector<float> nabla_m;   ///< nabla, estimated (004 section 3.4.1)
  std::vector<float> p;         ///< P, estimated
  /// Appends one shown frame's values (ms, metres, expected noticed gaps); a NaN is not added.
  void add(double frame_time_ms, double nabla_est_m, double p_est);
};

/// What the panel and the keys ask of the run loop and the viewer. Plain data.
struct ViewerControls {
  bool paused = false;          ///< no steps until cleared (Space, or the panel's Pause / Run)
  bool step_once = false;       ///< paused: run one frame
  bool reset = false;           ///< rebuild the world from the config and seed (live changes kept)
  bool screenshot = false;      ///< save the next picture drawn (P or F12); the run loop clears it
  bool show_panel = true;       ///< the panel is drawn (Tab); never in stimulus mode
  bool show_overlays = true;    ///< the overlays are drawn (O); never in stimulus mode
  RenderSettings render;        ///< overlays and camera mode, as edited live
};

/// The control panel (Dear ImGui): scheduler, budget, interrupt policy, gaze source,
/// perception parameters, overlays, pause / step / reset, and plots of frame time, nabla
/// and P. Changes go to the Animation at once (its set_* calls, from the next step); each is
/// described in `events` ("schedule.kind=round_robin") for the run's events.csv.
void draw_panel(Animation& world, std::uint64_t seed, ViewerControls& controls, const PlotHistory& history,
                const std::string& status_line, std::vector<std::string>& events);

}  // namespace fovea

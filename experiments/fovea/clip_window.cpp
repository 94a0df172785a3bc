#include "fovea/clip_window.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "core/stopwatch.hpp"
#include "perception/view.hpp"
#include "psychophysics/frame_timing.hpp"
#include "render/camera.hpp"
#include "render/render_settings.hpp"
#include "render/scene_renderer.hpp"

namespace fovea {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ClipWindow::ClipWindow(const ExperimentSettings& spec, StimulusDisplay* display, std::vector<SDL_Keycode> keys,
                       SyntheticKeys* script)
    : SessionScreen(display, std::move(keys), script), spec_(spec) {}

bool ClipWindow::fixation(double seconds) {
  return for_seconds(Screen::blank, seconds, [&] { display().draw_fixation(); });
}

void ClipWindow::show_cross() {
  display().draw_fixation();
  display().present();
}

bool ClipWindow::message(const std::string& text, double seconds) {
  return for_seconds(Screen::none, seconds, [&] { display().draw_message(text); });
}

bool ClipWindow::show(ClipPlayer& player, bool contingent, ClipTiming& timing, GazeLatency* latency) {
  timing = ClipTiming{};
  const Animation& world = player.world();
  SceneRenderer scene(world.models(), world.entities());
  scene.set_calibration(display().calibration());  // the clip's light sent as the cross's is
  const RenderSettings style;  // the renderer's defaults: no floor, its background and light
  GlWindow& window = display().window();
  const PictureViewport viewport = fit_viewport(window.width_px(), window.height_px(), spec_.screen);
  const double step_s = world.settings().world.time_step_s;
  // The display's reported refresh, or the spec's when it reports none (as a disc trial's).
  const double refresh_hz = window.refresh_hz() > 0 ? window.refresh_hz() : spec_.display.refresh_hz;
  const double period_ms = 1000.0 / refresh_hz;
  Clock::time_point first{};
  Clock::time_point last{};
  std::vector<double> swaps_s;  // each frame's swap, then the cross's after the clip
  while (true) {
    // The clip's time keeps to the display's: it steps while its time is behind the time
    // shown (none on a refresh faster than the world's step: the frame is shown again), and
    // once before the first frame.
    const double shown_s = timing.frame_ms.empty() ? 0.0 : seconds_since(first);
    while (!player.done() && player.frames() * step_s <= shown_s) player.step();
    const FrameGaze& gaze = world.last_gaze();
    if (contingent) {
      if (latency != nullptr) latency->add(gaze);
      ++timing.gaze_frames;
      timing.valid_gaze_frames += gaze.valid ? 1 : 0;
    }
    if (contingent && gaze.valid) {
      const double deviation_deg = screen_visual_angle_deg(spec_.screen, 0.5 * spec_.screen.width_px,
                                                           0.5 * spec_.screen.height_px, gaze.x_px, gaze.y_px);
      timing.deviation_deg = std::max(timing.deviation_deg, deviation_deg);
      if (deviation_deg > spec_.fixation_radius_deg) {
        timing.fixation_broken = true;
        return true;
      }
    }
    scene.update_models(world.models(), world.model_library().prototypes(), world.model_library().generations());
    scene.draw(world.view(), world.box(), viewport, world.entities(), world.states(), {},
               SceneStyle{style.background, style.light_direction, style.floor});
    display().draw_fixation_over();
    display().present();
    const Clock::time_point now = Clock::now();
    swaps_s.push_back(std::chrono::duration<double>(now.time_since_epoch()).count());
    if (timing.frame_ms.empty()) first = now;
    const double interval_ms = timing.frame_ms.empty() ? 0.0 : std::chrono::duration<double, std::milli>(now - last).count();
    const bool dropped = interval_ms > 1.5 * period_ms;
    timing.frame_ms.push_back(std::chrono::duration<double, std::milli>(now - first).count());
    timing.dropped.push_back(dropped);
    timing.dropped_frames += dropped ? 1 : 0;
    last = now;
    if (pump(Screen::stimulus) == Key::quit) return false;
    if (player.done()) break;  // its last frame was shown
  }
  // The cross after the clip: its swap ends the clip's time on the screen.
  display().draw_fixation();
  display().present();
  swaps_s.push_back(std::chrono::duration<double>(Clock::now().time_since_epoch()).count());
  const StimulusTiming shown = stimulus_timing(swaps_s, refresh_hz);
  timing.duration_s = shown.duration_s;
  timing.dropped_frames = shown.dropped_frames;
  timing.gaze_lost = contingent && 2 * timing.valid_gaze_frames < timing.gaze_frames;
  return true;
}

int ClipWindow::answer(const std::string& prompt, double& reaction_time_ms) {
  display().draw_message(prompt);
  display().present();
  const Uint64 shown_ms = SDL_GetTicks64();
  return wait_for_answer(shown_ms, reaction_time_ms, [&] { display().draw_message(prompt); });
}

}  // namespace fovea

#include "fovea/run_window.hpp"

#include <chrono>
#include <iostream>
#include <limits>
#include <thread>

#include "core/format.hpp"
#include "trackers/trackers.hpp"

namespace fovea {
namespace {

/// Where a screenshot of the run's frame `run_frame` goes (0-based over the whole run, so
/// never reused after a reset): screenshot_frame_000042.png, or _2, _3 ... for more
/// pictures of the same frame (taken while paused).
std::filesystem::path screenshot_path(const std::filesystem::path& folder, std::int64_t run_frame) {
  const std::string stem = "screenshot_" + capture_file_name(std::max<std::int64_t>(run_frame, 0)).stem().string();
  std::filesystem::path path = folder / (stem + ".png");
  // The error_code form: a folder that cannot be looked into is not an exception here; the
  // picture's own write then fails, saying where and why.
  std::error_code error;
  for (int n = 2; std::filesystem::exists(path, error); ++n) path = folder / (stem + "_" + std::to_string(n) + ".png");
  return path;
}

}  // namespace

double RunWindow::frame_period_s(const Settings& settings) {
  return settings.render.target_fps > 0 ? 1.0 / settings.render.target_fps : settings.world.time_step_s;
}

RunWindow::RunWindow(Viewer* viewer, const Settings& settings, std::filesystem::path results_folder,
                     std::filesystem::path capture_folder, std::int64_t capture_every, bool player_follows_camera)
    : viewer_(viewer),
      settings_(settings),
      results_folder_(std::move(results_folder)),
      capture_folder_(std::move(capture_folder)),
      capture_every_(capture_every),
      player_follows_camera_(player_follows_camera),
      pacer_(frame_period_s(settings)) {
  if (viewer_) viewer_->set_target_frame_ms(1000.0 * frame_period_s(settings));
}

void RunWindow::say_if_slower_than_real_time() const {
  if (!viewer_ || !viewer_->window().vsync()) return;
  const double period_s = frame_period_s(settings_);
  const int hz = viewer_->window().refresh_hz();
  if (hz > 0 && hz * period_s < 0.99)
    std::cerr << "fovea: the display refreshes at " << hz << " Hz and the world steps "
              << format_significant(1.0 / period_s) << " times a second: it runs at "
              << format_significant(hz * period_s, 2) << " x real time (world.time_step_s: "
              << format_significant(1.0 / hz, 4) << " or render.vsync: false keeps real time)\n";
}

RunHooks::Next RunWindow::before_frame(Stepper& stepper, std::int64_t frames_done) {
  if (viewer_) {
    if (!viewer_->poll_events(stepper.world())) return Next::stop;
    ViewerControls& controls = viewer_->controls();
    if (controls.reset) {
      controls.reset = false;
      reset(stepper);
    }
    if (controls.paused && !controls.step_once) {
      // Paused: the picture stays live (camera, panel) without stepping the world.
      viewer_->draw(stepper.world(), static_cast<std::uint64_t>(settings_.seed), status_line(stepper, frames_done, true));
      if (controls.screenshot) {
        controls.screenshot = false;
        take_screenshot(frames_done - 1);
      }
      viewer_->present();
      // Without vsync nothing holds a paused loop back: redraw at most every 15 ms.
      if (!viewer_->window().vsync()) std::this_thread::sleep_for(std::chrono::milliseconds(15));
      pacer_.restart();
      return Next::skip;
    }
    controls.step_once = false;
  }
  // Decided every frame: a gaze source switched live to the mouse or a tracker starts it.
  const bool paced = stepper.world().gaze().source().clock() == GazeClock::wall ||
                     (viewer_ && viewer_->window().mode() == DisplayMode::window);
  if (paced) pacer_.wait();
  return Next::step;
}

bool RunWindow::draws(std::int64_t frame) const {
  if (!viewer_) return false;
  if (capture_folder_.empty() || viewer_->window().mode() != DisplayMode::offscreen) return true;
  // The panel's plots and the frame-time graph show earlier frames' values, and ImGui keeps
  // the panel's state from one frame drawn to the next: skipping frames would change them.
  const ViewerControls& controls = viewer_->controls();
  const bool shows_earlier_frames =
      !controls.render.stimulus &&
      (controls.show_panel || (controls.show_overlays && controls.render.overlays.frame_graph));
  return shows_earlier_frames || captures(frame);
}

void RunWindow::after_step(Stepper& stepper, std::int64_t frame, FrameMeasures& measures) {
  if (!viewer_) return;
  const FrameMetrics& metrics = stepper.last().stats.metrics;
  if (!draws(frame)) {
    // Not drawn, so neither timed nor shown: empty cells in frames.csv. The plots' history
    // still gets the frame's values, as it would drawn.
    measures.render_ms = measures.frame_interval_ms = std::numeric_limits<double>::quiet_NaN();
    viewer_->record(measures.frame_interval_ms, metrics.nabla_est_m, metrics.p_est);
    return;
  }
  Animation& world = stepper.world();
  measures.render_ms =
      viewer_->draw(world, static_cast<std::uint64_t>(settings_.seed), status_line(stepper, frame + 1, false));
  ++frames_drawn_;
  if (captures(frame)) capture_ = viewer_->capture();
  if (viewer_->controls().screenshot) {
    viewer_->controls().screenshot = false;
    take_screenshot(frame);
  }
  measures.frame_interval_ms = viewer_->present();
  viewer_->record(measures.frame_interval_ms, metrics.nabla_est_m, metrics.p_est);
}

std::string RunWindow::after_record(std::int64_t frame) {
  if (!capture_) return "";
  std::optional<Image> picture = std::move(capture_);
  capture_.reset();
  try {
    write_png(capture_folder_ / capture_file_name(frame), *picture);
    ++pictures_written_;
  } catch (const std::exception& e) {
    return std::string("--capture: ") + e.what() + "; the run stopped after frame " + std::to_string(frame);
  }
  return "";
}

void RunWindow::take_events(std::vector<std::string>& events) {
  events.insert(events.end(), events_.begin(), events_.end());
  events_.clear();
  if (viewer_) viewer_->take_events(events);
}

void RunWindow::reset(Stepper& stepper) {
  // The same config and seed with the live changes kept; the log goes on (its frame column
  // starts again at 0, and events.csv says where).
  AnimationSettings live = stepper.world().settings();
  live.gaze = stepper.world().gaze().settings();
  GazeEnvironment environment;
  environment.pointer = &viewer_->pointer();
  const auto seed = static_cast<std::uint64_t>(settings_.seed);
  try {
    // The new world and its meshes first: if either fails, the old ones run on.
    auto fresh = std::make_unique<Animation>(live, seed, with_trackers(environment));
    std::unique_ptr<Demo> fresh_demo = Demo::make(*fresh, settings_.demo, seed);
    viewer_->attach(*fresh);
    stepper.replace(std::move(fresh), std::move(fresh_demo));
    events_.push_back("reset");
  } catch (const std::exception& e) {
    events_.push_back(std::string("reset failed: ") + e.what());
  }
}

std::string RunWindow::status_line(const Stepper& stepper, std::int64_t frames_done, bool paused) const {
  const Demo* demo = stepper.demo();
  return std::to_string(stepper.world().live_entity_count()) + " entities, frame " + std::to_string(frames_done) +
         " of " + std::to_string(settings_.frames) + (demo ? ", " + demo->status() : "") + (paused ? " (paused)" : "");
}

void RunWindow::take_screenshot(std::int64_t run_frame) {
  // A failure is an event, not the run's end (the person at the window sees it in
  // events.csv and on stderr).
  const std::filesystem::path path = screenshot_path(results_folder_, run_frame);
  try {
    write_png(path, viewer_->capture());
    events_.push_back("screenshot " + path.filename().string());
  } catch (const std::exception& e) {
    std::cerr << "fovea: screenshot: " << e.what() << "\n";
    events_.push_back(std::string("screenshot failed: ") + e.what());
  }
}

}  // namespace fovea

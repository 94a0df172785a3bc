#include "gaze/gaze_source.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/format.hpp"
#include "core/setting_error.hpp"
#include "gaze/external_gaze.hpp"
#include "gaze/mouse_gaze.hpp"
#include "gaze/replay_gaze.hpp"
#include "gaze/scripted_gaze.hpp"
#include "perception/view.hpp"

namespace fovea {
namespace {

/// One point, all run long: the classic condition of 004's experiments before eye tracking.
class FixedGaze final : public GazeSource {
 public:
  FixedGaze(double x_px, double y_px) : x_px_(x_px), y_px_(y_px) {}

  GazeSample sample(double now_s) override {
    GazeSample g;
    g.x_px = x_px_;
    g.y_px = y_px_;
    g.valid = true;
    g.time_s = now_s;
    g.confidence = 1.0;
    return g;
  }

 private:
  double x_px_;
  double y_px_;
};

}  // namespace

double gaze_wall_clock_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::unique_ptr<GazeSource> make_gaze_source(const GazeSettings& settings, const ScreenSettings& screen,
                                             std::uint64_t seed, const GazeEnvironment& environment) {
  validate_screen(screen);
  switch (settings.source) {
    case GazeSourceKind::fixed: {
      // The screen's edges count as on it, as in ScreenPoint::on_screen.
      const bool inside = settings.x_px >= 0 && settings.x_px <= screen.width_px && settings.y_px >= 0 &&
                          settings.y_px <= screen.height_px;
      if (!inside)
        throw std::invalid_argument("gaze.x_px, gaze.y_px = (" + format_number(settings.x_px) + ", " +
                                    format_number(settings.y_px) + ") lies outside the " +
                                    std::to_string(screen.width_px) + " x " + std::to_string(screen.height_px) +
                                    " screen");
      return std::make_unique<FixedGaze>(settings.x_px, settings.y_px);
    }
    case GazeSourceKind::scripted:
      return std::make_unique<ScriptedGaze>(settings.scripted, screen, seed);
    case GazeSourceKind::mouse:
      if (environment.pointer == nullptr)
        throw SettingError("gaze.source",
                           "mouse reads the pointer of fovea's window, and this run has no window (it is "
                           "headless); use fixed, scripted or replay for headless runs");
      return std::make_unique<MouseGaze>(*environment.pointer, screen);
    case GazeSourceKind::replay:
      if (settings.file.empty()) throw SettingError("gaze.file", "the replay source needs a gaze CSV to replay");
      try {
        return std::make_unique<ReplayGaze>(read_gaze_csv(settings.file), settings.max_age_ms / 1000.0);
      } catch (const std::runtime_error& e) {
        throw SettingError("gaze.file", e.what());
      }
    case GazeSourceKind::pupil:
    case GazeSourceKind::gazepoint:
    case GazeSourceKind::stream:
      if (environment.make_tracker == nullptr)
        throw SettingError("gaze.source", std::string(gaze_source_name(settings.source)) +
                                    " needs fovea's eye-tracker support, which this program was built without "
                                    "(fovea_trackers: trackers/trackers.hpp)");
      return environment.make_tracker(settings, screen);
    case GazeSourceKind::external:
      // Starts empty: until a program pushes its first sample the frame falls back.
      return std::make_unique<ExternalGazeSource>();
  }
  throw std::invalid_argument("gaze.source: unknown kind " + std::to_string(static_cast<int>(settings.source)));
}

}  // namespace fovea


#pragma once

// Definition structs of the perception part (004 section 3.4.2), with the defaults a config
// falls back on. config/ fills them from YAML; docs/config.md lists every key, and
// docs/perception.md explains the values and where the defaults come from.

#include <array>
#include <string>

#include "core/kind_table.hpp"
#include "core/math.hpp"

namespace fovea {

/// The sigmoid F of the psychometric function f(e, g).
enum class PsychometricFunction {
  logistic,  ///< F = 1 / (1 + exp(-(g / T - 1) * 2 ln 19 / width)), symmetric in g about T
  weibull    ///< F = 1 - exp(-ln 2 * (g / T)^k), k fitted so the 5%-95% rise spans width * T
};

/// Names and help of `perception.model.function` (core/kind_table.hpp).
inline constexpr auto kPsychometricFunctions = kind_table<KindName<PsychometricFunction>>({
    {PsychometricFunction::logistic, "logistic", "symmetric in g about the threshold"},
    {PsychometricFunction::weibull, "weibull", "rises steeply from 0: the classic shape of detection data"},
});

/// f(e, g) = gamma + (1 - gamma - lambda) * F(g; T(e), width), T(e) = T0 * (1 + e / E2):
/// the probability that a viewer notices a gap of g degrees at e degrees from fixation.
struct PerceptionModelSettings {
  /// A perception-model YAML file (the keys below); when set, its values replace these.
  std::string file = {};
  PsychometricFunction function = PsychometricFunction::logistic;  ///< the sigmoid F (perception_model.hpp)
  /// T0: the gap, in degrees, at which F is 0.5 at the fixation point.
  double threshold_deg = 0.08;
  /// E2: the eccentricity, in degrees, at which the threshold has doubled.
  double eccentricity_scale_deg = 1.0;
  /// The gap range over which F rises from 0.05 to 0.95, as a fraction of the threshold
  /// (relative, so the function keeps its shape as the threshold grows with eccentricity).
  double width = 1.0;
  double guess_rate = 0.0;   ///< gamma: f when the gap is zero
  double lapse_rate = 0.02;  ///< lambda: 1 - lambda is f for an enormous gap
};

/// The synthetic camera (004 section 3.1, "viewing parameters").
struct CameraSettings {
  /// true: look at the world box's centre from its +z side, the whole box in view (the
  /// position and target below are then ignored).
  bool frame_box = true;
  Vec3 position_m{5.0, 7.5, 25.0};  ///< the camera (the pinhole) in world coordinates, m
  Vec3 target_m{5.0, 5.0, 5.0};     ///< the world point at the picture's centre, m; must differ from position_m
  Vec3 up{0.0, 1.0, 0.0};           ///< world direction shown as up, any length, not along the line of sight
  /// Vertical field of view of the picture; 0 makes it the angle the screen subtends at
  /// the viewing distance, so the picture is geometrically true for the viewer.
  double vertical_fov_deg = 50.0;
};

/// The physical screen the viewer sits in front of: it converts pixels to degrees of
/// visual angle. Defaults: a 24-inch 16:9 monitor at 57 cm, where 1 cm is about 1 degree.
struct ScreenSettings {
  int width_px = 1920;      ///< horizontal resolution, px
  int height_px = 1080;     ///< vertical resolution, px
  double width_cm = 53.1;   ///< width of the visible picture area, cm
  double height_cm = 29.9;  ///< height of the visible picture area, cm
  double viewing_distance_cm = 57.0;  ///< eye to screen centre, along the screen's normal
};

/// `perception.view`: what View is built from.
struct ViewSettings {
  CameraSettings camera;  ///< where the picture is taken from
  ScreenSettings screen;  ///< where it is shown, and how far away the viewer sits
};

/// The config's `perception` map (docs/config.md, docs/perception.md).
struct PerceptionSettings {
  PerceptionModelSettings model;  ///< f(e, g): who notices which gap
  ViewSettings view;              ///< camera and screen: world metres to pixels and degrees
};

}  // namespace fovea

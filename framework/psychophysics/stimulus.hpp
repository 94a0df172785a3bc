#pragma once

#include <cstdint>
#include <vector>

#include "perception/perception_settings.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/scene_stimulus.hpp"
#include "psychophysics/trial_design.hpp"

namespace fovea {

/// One entity's straight run on the screen: where it is at a time, in pixels from the
/// screen's top-left corner (y down), and its diameter there.
struct StimulusPath {
  double x0_px = 0, y0_px = 0;  ///< at t = 0
  double vx_pxps = 0, vy_pxps = 0;  ///< velocity until the bounce, px per second, y down
  /// The target pair bounces: from bounce_time_s on, it moves back along its path.
  double bounce_time_s = -1;    ///< < 0: never
  double diameter_px = 0;      ///< the disc's, on the screen
};

/// A trial's animation (004 section 3.4.2's stimulus): entities of one size and speed moving
/// around the fixation point; two of them, the target pair, approach each other along a line
/// through the trial's target point and bounce apart at collision_time_s, their facing edges
/// then exactly the trial's gap apart along the radius through the target (0 on a catch
/// trial: they touch). The others, the distractors, move on runs that never come within a
/// diameter of any other entity, so the only collision in view is the target's.
///
/// Sizes and speeds come in degrees (StimulusSettings); the plan turns them into pixels for
/// the screen at the target's eccentricity, for every entity (so all stay one size on the
/// screen; a distractor far from the target subtends a little more or less than the spec
/// says). The gap itself is exact in degrees. Deterministic from the seed and the trial.
struct StimulusPlan {
  StimulusKind kind = StimulusKind::discs;  ///< whether `paths` or `scene` holds the entities
  std::vector<StimulusPath> paths;  ///< discs: paths[0] and paths[1] are the target pair
  ScenePlan scene;                  ///< kind scene: the rocks (paths is then empty)
  double fixation_x_px = 0, fixation_y_px = 0;  ///< the screen's centre, px from its top-left, y down
  double target_x_px = 0, target_y_px = 0;  ///< the collision's centre
  double duration_s = 0;        ///< presentation (StimulusSettings::duration_s)
  double collision_time_s = 0;  ///< when the target pair meets, from the start
  /// While the stimulus is shown, nothing but the entities is drawn within this distance of
  /// the target point: the gap being judged and the pair around it at the collision (half the
  /// gap plus one entity's diameter on the screen). The fixation cross is cut there, which at
  /// eccentricity 0 removes it for the presentation (issue 45: its arm filled the gap).
  double keep_clear_radius_px = 0;
};

/// A straight piece of the fixation cross, pixels from the screen's top-left, y down.
struct CrossSegment {
  double x0_px = 0, y0_px = 0;  ///< one end
  double x1_px = 0, y1_px = 0;  ///< the other
};

/// The fixation cross at (`centre_x_px`, `centre_y_px`), arms `half_px` long from the centre,
/// less what lies within `clear_radius_px` (<= 0: nothing cut) of (`clear_x_px`,
/// `clear_y_px`): up to two pieces per arm, none when the disc covers the arm. The cut is
/// widened by `line_half_width_px` so that a line of that half width drawn along a piece
/// stays outside the disc.
std::vector<CrossSegment> fixation_cross_segments(double centre_x_px, double centre_y_px, double half_px,
                                                  double clear_x_px, double clear_y_px, double clear_radius_px,
                                                  double line_half_width_px);

/// The direction a trial's target takes, degrees counter-clockwise from the right: the
/// design's, or with stimulus.directions horizontal the nearer of 0 and 180 (so half the
/// design's uniform draws go each way). The same for the stimulus and the records.
double stimulus_direction_deg(StimulusDirections directions, double design_direction_deg);

/// The plan of `trial` on `screen`: discs, or a scene (plan_scene) by stimulus.kind.
StimulusPlan plan_stimulus(const ExperimentSettings& spec, const PlannedTrial& trial, std::uint64_t seed);

/// The animations a trial of `spec` shows, in order: {0}, the one animation, for a yes/no
/// task; {1, 2} for a two-interval one (plan_interval's `interval`).
std::vector<int> presented_intervals(const ExperimentSettings& spec);

/// The plan of one animation of `trial`: interval 0, the yes/no trial's one, is
/// plan_stimulus(spec, trial, seed). Of a two-interval trial, interval trial.gap_interval
/// shows the trial's gap in trial.direction_deg, the other the pair touching (a catch trial's
/// plan) in trial.other_direction_deg; interval 1 is planned from `seed` and interval 2 from
/// a seed mixed with it, so their distractors differ. Throws std::invalid_argument for an
/// interval the trial does not have.
StimulusPlan plan_interval(const ExperimentSettings& spec, const PlannedTrial& trial, int interval, std::uint64_t seed);

/// Where entity `i` of `plan` is at `t_s`: its centre in pixels.
void stimulus_position(const StimulusPlan& plan, std::size_t i, double t_s, double& x_px, double& y_px);

/// Where a stimulus falls on the screen: fixation at the centre, the screen flat and
/// perpendicular to the line of sight through it (ScreenSettings).
struct ScreenPlacement {
  double eccentricity_px = 0;  ///< fixation to the target's centre
  double gap_px = 0;           ///< the gap's two ends at eccentricity -+ gap/2 along the radius
};
/// `eccentricity_deg` and `gap_deg` from fixation as pixels on `screen`.
ScreenPlacement place_on_screen(const ScreenSettings& screen, double eccentricity_deg, double gap_deg);

/// Pixels per degree of visual angle at `eccentricity_deg` from the screen's centre, along
/// the radius (the flat screen stretches the periphery).
double radial_px_per_deg(const ScreenSettings& screen, double eccentricity_deg);

}  // namespace fovea

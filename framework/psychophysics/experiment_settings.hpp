#pragma once

// Definition structs of a psychophysics experiment (configs/experiments/*.yaml,
// docs/psychophysics.md), with the defaults a spec falls back on. config/ fills them from
// YAML and checks them; the runner only ever sees these plain structs.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "core/math.hpp"
#include "gaze/gaze_settings.hpp"
#include "perception/perception_settings.hpp"
#include "psychophysics/clip_design.hpp"
#include "psychophysics/psi.hpp"
#include "psychophysics/staircase.hpp"
#include "psychophysics/trial_design.hpp"

namespace fovea {

/// The caps on an experiment spec's lists (docs/formats.md, "Lists and their caps"): the
/// schema refuses a longer list at its key before reading it. Each is far above any design
/// (a psychometric function is measured at 5 to 10 gaps and a handful of eccentricities),
/// and together they keep a session's plan and its written spec small.
/// constant_stimuli.gaps_deg.
inline constexpr std::size_t kMaxSpecGaps = 256;
/// constant_stimuli.eccentricities_deg, staircase.eccentricities_deg and start_values_deg,
/// psi.eccentricities_deg: one staircase or psi procedure each.
inline constexpr std::size_t kMaxSpecEccentricities = 64;
/// staircase.step_sizes.
inline constexpr std::size_t kMaxSpecStepSizes = 64;
/// clip_comparison.scenes: each is a world config, loaded when the spec is checked.
inline constexpr std::size_t kMaxClipScenes = 32;
/// clip_comparison.budgets_tests.
inline constexpr std::size_t kMaxClipBudgets = 64;

/// How the trials' gaps are chosen.
enum class DesignMethod {
  constant_stimuli,  ///< a fixed gap x eccentricity grid, repeated (trial_design.hpp)
  staircase,         ///< one staircase per eccentricity, interleaved (staircase.hpp)
  psi,               ///< one psi procedure per eccentricity, interleaved (psi.hpp)
  clip_comparison    ///< clips of scenes under schedulers against a reference (clip_design.hpp)
};

/// DesignMethod's names in a spec (`method`), with one line of help each.
inline constexpr auto kDesignMethods = kind_table<KindName<DesignMethod>>({
    {DesignMethod::constant_stimuli, "constant_stimuli",
     "a fixed grid of gap x eccentricity, repeated, shuffled in blocks"},
    {DesignMethod::staircase, "staircase",
     "one adaptive staircase per eccentricity, interleaved (PsychoPy's StairHandler rules)"},
    {DesignMethod::psi, "psi", "one psi procedure per eccentricity, interleaved (psychophysics/psi.hpp)"},
    {DesignMethod::clip_comparison, "clip_comparison",
     "clips of scenes under schedulers at budgets against a reference (psychophysics/clip_design.hpp)"},
});

/// What a trial draws.
enum class StimulusKind { discs /**< flat, in the screen's plane */, scene /**< voxel rocks in depth, lit */ };

/// StimulusKind's names in a spec (`stimulus.kind`), with one line of help each.
inline constexpr auto kStimulusKinds = kind_table<KindName<StimulusKind>>({
    {StimulusKind::discs, "discs", "flat discs in the screen's plane"},
    {StimulusKind::scene, "scene",
     "voxel rocks in depth, lit, drawn by fovea's renderer (psychophysics/scene_stimulus.hpp)"},
});

/// Which directions from fixation a target may take.
enum class StimulusDirections { any /**< uniform in [0, 360) deg */, horizontal /**< 0 (right) or 180 (left) deg */ };

/// StimulusDirections' names in a spec (`stimulus.directions`), with one line of help each.
inline constexpr auto kStimulusDirections = kind_table<KindName<StimulusDirections>>({
    {StimulusDirections::any, "any", "uniform in [0, 360)"},
    {StimulusDirections::horizontal, "horizontal",
     "the horizontal meridian: 0 (right) or 180 (left), from the same draw"},
});

/// A scene stimulus's rocks, light and anti-aliasing.
struct SceneStimulusSettings {
  int voxels = 16;                  ///< voxels along each rock's side
  int rock_variants = 6;            ///< seeded rock shapes the entities take in turn
  double depth_cm = 0;              ///< the target pair's plane, eye to plane; 0: the viewing distance
  double depth_spread = 1.5;        ///< distractors between depth / spread and depth * spread
  double tumble_degps = 90;         ///< the distractors' spin
  Vec3 light_direction{0.8, -0.5, -0.3};  ///< the direction the light travels, eye axes (x right, y up, z towards the viewer): from the upper left
  int msaa_samples = 4;             ///< multisample anti-aliasing; 1 for none
};

/// What one trial shows (004 section 3.4.2's experiments): homogeneous entities moving in
/// view around a fixation cross; two of them, the target pair, meet at `collision_time_s`
/// at the trial's eccentricity and direction from fixation and bounce apart leaving the
/// trial's gap between them (0 on catch trials: they touch). Sizes and speeds are in
/// degrees of visual angle, so the stimulus is the same on any screen.
struct StimulusSettings {
  StimulusKind kind = StimulusKind::discs;                  ///< discs, or a scene drawn by fovea's renderer
  StimulusDirections directions = StimulusDirections::any;  ///< the target pair's direction from fixation
  SceneStimulusSettings scene;         ///< with kind scene
  int entities = 10;                   ///< moving in view, the target pair included
  double entity_size_deg = 1.0;        ///< each entity's diameter
  double speed_degps = 4.0;            ///< each entity's speed on the screen
  double duration_s = 1.5;             ///< presentation
  double collision_time_s = 0.75;      ///< when the target pair meets, from the start
  bool fixation_cross = true;          ///< draw the cross at the screen's centre
  double fixation_size_deg = 0.5;      ///< the cross's arm, end to end
  Vec3 colour{0.8, 0.8, 0.8};          ///< the entities, linear RGB
  Vec3 background{0.02, 0.02, 0.02};   ///< linear RGB
};

/// What the observer is asked on each trial of a gap design.
enum class TaskKind {
  yes_no,       ///< one animation: "did two objects bounce apart without touching?"
  two_interval  ///< two animations, one with the gap and one where the pair touches: "which had the gap?"
};

/// TaskKind's names in a spec (`task.kind`), with one line of help each.
inline constexpr auto kTaskKinds = kind_table<KindName<TaskKind>>({
    {TaskKind::yes_no, "yes_no", "one animation per trial, answered yes or no; catch trials measure false alarms"},
    {TaskKind::two_interval, "2ifc",
     "two-interval forced choice: the gap in one of two animations (seeded), the pair touching in the other; "
     "\"which one had the gap?\", guess rate 1/2"},
});

/// The instructions a yes/no session shows unless the spec gives its own.
inline constexpr const char* kYesNoInstructions =
    "Watch the cross. After each animation, press Y if you saw two objects bounce apart without touching, N if not.";
/// The instructions a two-interval session shows unless the spec gives its own.
inline constexpr const char* kTwoIntervalInstructions =
    "Watch the cross. Each trial shows two animations. In one of them two objects bounce apart without touching; "
    "in the other they touch. Press 1 if it was the first, 2 if the second. Guess if you are not sure.";

/// The task: yes/no ("did you see an anomaly?") or two-interval forced choice ("which of the
/// two animations had it?").
struct TaskSettings {
  TaskKind kind = TaskKind::yes_no;        ///< what each trial asks
  std::string yes_key = "y";               ///< SDL key names ("y", "Left", "Space")
  std::string no_key = "n";               ///< SDL key name, as yes_key
  std::string first_key = "1";             ///< 2ifc: "the first animation had the gap" (SDL key name)
  std::string second_key = "2";            ///< 2ifc: "the second"
  /// 2ifc: the blank, cross alone, between the two animations of a trial, seconds.
  double interstimulus_interval_s = 0.5;
  /// Shown before the first trial and after each break; with kind 2ifc, the yes/no default is
  /// replaced by kTwoIntervalInstructions (task_instructions()).
  std::string instructions = kYesNoInstructions;
  int break_every = 100;                   ///< trials between breaks; 0 for none
  double inter_trial_interval_s = 0.5;     ///< blank time from a response to the next trial
};

/// The instructions `task` shows: its own, or for a 2ifc task left at the yes/no default, the
/// two-interval default.
inline std::string task_instructions(const TaskSettings& task) {
  if (task.kind == TaskKind::two_interval && task.instructions == kYesNoInstructions) return kTwoIntervalInstructions;
  return task.instructions;
}

/// The guess rate of the task's design: 1/2 for a two-interval forced choice (a pure guess
/// picks the gap's interval half the time), none (0: the observer's own false alarms, which
/// catch trials measure) for yes/no.
inline double forced_choice_guess_rate(TaskKind kind) { return kind == TaskKind::two_interval ? 0.5 : 0.0; }

/// The gamma assumed of a display whose calibration the spec does not give: sRGB's nominal
/// exponent, and the encoding fovea sent every stimulus with before displays were calibrated.
inline constexpr double kNominalDisplayGamma = 2.2;

/// The display a person watches: which monitor, how a stimulus's luminance is sent to it, and
/// how strictly its timing is held (docs/psychophysics.md, "The display" and "Timing").
struct DisplaySettings {
  /// The refresh rate the display is set to, Hz: frames last whole periods of it, and the
  /// stimulus's dropped frames are counted against it. A person's session is refused on a
  /// display that reports another rate (by more than 1 Hz), or none.
  double refresh_hz = 60.0;
  /// A development run (piloting on a laptop, a test offscreen): a person's session starts
  /// without vsync, or at another or an unknown refresh rate, and session.log says so. Timing
  /// is then not what the spec asks: never for data.
  bool development_run = false;
  /// SDL's index of the monitor a person's window opens on, full screen (0: the primary). A
  /// session is refused when SDL sees no monitor of that index.
  int index = 0;
  /// The monitor's gamma, measured: a stimulus's linear value L (its luminance as a fraction
  /// of the way from the display's black to its white) is sent as L^(1/gamma). None given,
  /// and no lut_file: kNominalDisplayGamma is assumed.
  std::optional<double> gamma;
  /// A measured lookup table used instead of a gamma (CSV, psychophysics/display_calibration.hpp);
  /// "" for none. Made absolute when the spec is loaded.
  std::string lut_file;
};

/// A psychophysics experiment: the screen, the stimulus, the design, the task, and where the
/// viewer looks (a tracker makes the trials gaze-contingent).
struct ExperimentSettings {
  std::string name = "experiment";        ///< sessions go to results/experiments/<name>/<participant>/
  std::int64_t seed = 1;                   ///< every random choice of the design and the stimuli
  ScreenSettings screen;                   ///< the physical screen: every size in degrees comes from it
  StimulusSettings stimulus;               ///< what a trial shows
  DesignMethod method = DesignMethod::constant_stimuli;  ///< how the gaps are chosen; picks the section below
  ConstantStimuliSettings constant_stimuli;  ///< the grid, with method: constant_stimuli
  /// The staircases, with a spec's defaults where they differ from PsychoPy's (which
  /// StaircaseSettings keeps): 40 trials and 8 reversals per staircase, and gaps kept between
  /// 0.001 and 5 degrees rather than unbounded.
  InterleavedStaircaseSettings staircase{
      .eccentricities_deg = {},
      .start_values_deg = {},
      .rules = {.n_trials = 40, .n_reversals = 8, .min_value = 0.001, .max_value = 5.0}};
  /// The psi procedures, with method: psi.
  InterleavedPsiSettings psi;
  TaskSettings task;  ///< the yes/no keys, instructions and breaks
  /// The clips, with method: clip_comparison (scenes' files made absolute when the spec is loaded).
  ClipComparisonSettings clip_comparison;
  DisplaySettings display;  ///< the refresh rate a person's display must run at, or a development run
  /// Where the viewer looks. With a tracker (pupil, gazepoint) trials are gaze-contingent: a
  /// trial whose fixation leaves fixation_radius_deg is aborted, flagged and requeued at the
  /// end of its block.
  GazeSettings gaze;
  double fixation_radius_deg = 2.0;  ///< with a tracker: gaze beyond this from the cross aborts the trial
};

}  // namespace fovea

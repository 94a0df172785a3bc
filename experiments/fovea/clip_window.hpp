#pragma once

// What a person sees of a clip comparison (docs/psychophysics.md, "Clip comparison"): the
// spec's full-screen window with the instructions, breaks, the fixation cross, each clip drawn
// live as its world steps, and the answer screen; each clip's frames timed.

#include <cstdint>
#include <string>
#include <vector>

#include <SDL.h>

#include "fovea/session_screen.hpp"
#include "fovea/synthetic_keys.hpp"
#include "gaze/gaze_latency.hpp"
#include "psychophysics/clip_run.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "render/stimulus_display.hpp"

namespace fovea {

/// How a clip was shown: each frame's time from the clip's first shown frame, and which were
/// dropped (longer than 1.5 refresh periods after the one before).
struct ClipTiming {
  std::vector<double> frame_ms;  ///< when each frame was shown (its present() returned), from the first
  std::vector<bool> dropped;
  /// From the first frame's swap to the swap of the cross after the clip, seconds, and the
  /// refreshes missed, as a disc stimulus's (psychophysics/frame_timing.hpp)
  double duration_s = 0;
  std::int64_t dropped_frames = 0;
  /// With a tracker: the clip was stopped when the fixation left fixation_radius_deg of the
  /// cross, this far away (degrees)
  bool fixation_broken = false;
  double deviation_deg = 0;
  /// With a tracker: the clip's frames drawn, and those drawn on a valid, current sample.
  /// Fewer than half valid (a lost tracker, a long blink) and nobody knows where the eyes
  /// were: the clip does not count (gaze_lost), as a disc trial's.
  std::int64_t gaze_frames = 0;
  std::int64_t valid_gaze_frames = 0;
  bool gaze_lost = false;
};

/// A clip comparison's screens, on a person's SessionScreen: its instructions, breaks
/// (wait_for_space) and keys, and the cross, the clips and the question.
class ClipWindow : public SessionScreen {
 public:
  /// `keys`: the answer keys in order (2IFC: first, second; yes/no: yes, no). `script`: the
  /// synthetic keys of a test or pilot, or null for a keyboard.
  ClipWindow(const ExperimentSettings& spec, StimulusDisplay* display, std::vector<SDL_Keycode> keys,
             SyntheticKeys* script);

  /// The cross alone for `seconds`; false when the person quits.
  bool fixation(double seconds);
  /// The cross on the screen now, once, without waiting: what stays there while the next
  /// clip's world is built and warmed up.
  void show_cross();
  /// One clip, live: the world stepped at its time step against the display's clock (as
  /// many steps before each refresh as the clip's time has reached), drawn with the cross.
  /// With a tracker (`contingent`), stopped as soon as a valid gaze sample lies more than
  /// the spec's fixation_radius_deg from the cross (timing.fixation_broken), and marked
  /// gaze_lost when under half its frames had a valid sample. False when the person quits.
  /// `latency`, if given, counts each drawn frame's gaze (with a tracker).
  bool show(ClipPlayer& player, bool contingent, ClipTiming& timing, GazeLatency* latency = nullptr);
  /// `text` for `seconds` (no cross); false when the person quits.
  bool message(const std::string& text, double seconds);
  /// Waits with `prompt` on the screen for one of the answer keys: its index, or -1 when the
  /// person quits. `reaction_time_ms`: from the prompt's first frame to the key's event time.
  int answer(const std::string& prompt, double& reaction_time_ms);

 private:
  const ExperimentSettings& spec_;
};

}  // namespace fovea

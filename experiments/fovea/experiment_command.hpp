#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "fovea/command_context.hpp"

namespace fovea {

struct ExperimentOptions {
  std::string spec_path;                    ///< configs/experiments/*.yaml
  std::vector<config::Override> overrides;  ///< --set key=value
  std::string participant;                  ///< --participant: letters, digits, - _ .
  bool resume = false;                      ///< --resume: continue the participant's session
  std::optional<std::string> out;           ///< --out: the participant's folder
  std::optional<std::string> observer;      ///< --observer: a perception-model YAML that answers
  double observer_pace_ms = 0;              ///< --observer-pace-ms: a simulated trial lasts this long
  /// --capture: draw each trial offscreen at its collision and write it here as
  /// trial_NNNNNN.png (the stimulus as a person would see it, for checking a spec)
  std::optional<std::string> capture_dir;
  /// --synthetic-keys: a person's session, drawn offscreen, whose keys come from this script
  /// ("instructions:Space,answer:y,break:Space,answer:Escape"): each key is pushed into SDL's
  /// event queue when the session waits on that screen. For tests and pilots; the spec must
  /// be a development run (display.development_run), as offscreen frames have no vsync.
  std::optional<std::string> synthetic_keys;
  bool quiet = false;
};

/// `fovea experiment` (docs/psychophysics.md): runs, or resumes, a participant's session of
/// an experiment spec, appending each trial to trials.csv on the disk (fsync) as it ends.
/// Returns the exit status; messages go to stderr.
int experiment_command(const ExperimentOptions& options);

/// `fovea experiment` on the command line: adds its subcommand, options and callback to `app`.
void register_experiment_command(CLI::App& app, CommandContext& context);

}  // namespace fovea

#pragma once

#include "config/config.hpp"
#include "fovea/experiment_command.hpp"

namespace fovea {

/// `fovea experiment` on a spec with `method: clip_comparison` (docs/psychophysics.md, "Clip
/// comparison"): runs, or resumes, a participant's session of clips, each trial appended to
/// trials.csv on the disk (fsync) as it ends. Returns the exit status; messages go to stderr.
int clip_session(const ExperimentOptions& options, const config::LoadedExperiment& loaded);

}  // namespace fovea

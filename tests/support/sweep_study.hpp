#pragma once

// The study the sweep tests run (tests/cli/sweep_test.cpp through the fovea program,
// sweep_stop_test.cpp through sweep_command in the test's own process): its base config,
// written with a study into a folder as a user keeps them.

#include <filesystem>
#include <string>

namespace fovea::test {

/// The base config of a small sweep: seed 1, `frames` frames of 30 packed rocks (2 shapes,
/// 0.4 m, 6 voxels) moving at 2 m/s in a 4 m box, a work budget of 400 sphere tests and
/// scripted gaze, so every run gives the same bytes however the runs are spread; the exact
/// voxel test every frame too when `ground_truth` (the metrics p_true and nabla_true).
std::string sweep_base_config(int frames, bool ground_truth);

/// Writes a study into `folder` as base.yaml (`base`) and study.yaml (`study`, whose `base:`
/// names base.yaml).
void write_study(const std::filesystem::path& folder, const std::string& base, const std::string& study);

}  // namespace fovea::test

#include "support/sweep_study.hpp"

#include "support/process.hpp"

namespace fovea::test {

std::string sweep_base_config(int frames, bool ground_truth) {
  return "name: base\n"
         "seed: 1\n"
         "frames: " + std::to_string(frames) + "\n" +
         R"(world:
  box_size_m: [4, 4, 4]
  entities:
    - name: rocks
      count: 30
      placement: packed
      model: {shape: rock, size_m: 0.4, resolution_voxels: 6, variants: 2}
      speed_mps: 2
budget: {mode: work, tests: 400}
)" + (ground_truth ? "ground_truth: true\n" : "") +
         "gaze: {source: scripted}\n";
}

void write_study(const std::filesystem::path& folder, const std::string& base, const std::string& study) {
  write_file(folder / "base.yaml", base);
  write_file(folder / "study.yaml", study);
}

}  // namespace fovea::test

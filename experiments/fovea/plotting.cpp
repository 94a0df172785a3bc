#include "fovea/plotting.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "fovea/child_process.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

/// The plotting script (experiments/plots/): fovea fit's and fovea sweep's figures.
constexpr const char* kPlotScript = "fovea_plots.py";

/// The script: beside the binary (bin/fovea_plots.py or bin/plots/fovea_plots.py, for a
/// copy installed with it, its modules beside it), else in the source tree the binary was
/// built from.
std::optional<fs::path> find_plot_script(std::vector<std::string>& looked) {
  std::vector<fs::path> candidates;
  std::error_code error;
  const fs::path binary = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    candidates.push_back(binary.parent_path() / kPlotScript);
    candidates.push_back(binary.parent_path() / "plots" / kPlotScript);
  }
  candidates.push_back(fs::path(FOVEA_PLOTS_DIR) / kPlotScript);
  for (const fs::path& c : candidates) {
    if (fs::is_regular_file(c, error)) return c;
    looked.push_back(c.string());
  }
  return std::nullopt;
}

std::optional<std::string> find_python_with_matplotlib() {
  std::vector<std::string> candidates;
  if (const char* chosen = std::getenv("FOVEA_PYTHON"); chosen != nullptr && *chosen != '\0') {
    candidates.push_back(chosen);
  } else {
    candidates = {"python3", "/usr/bin/python3"};
  }
  for (const std::string& python : candidates)
    if (run_program({python, "-c", "import matplotlib"}, true) == 0) return python;
  return std::nullopt;
}

}  // namespace

PlotOutcome draw_plots(const std::vector<std::string>& arguments, const std::string& who) {
  std::vector<std::string> looked;
  const std::optional<fs::path> script = find_plot_script(looked);
  if (!script) {
    std::string list;
    for (const std::string& l : looked) list += (list.empty() ? "" : ", ") + l;
    std::cerr << who << ": plots skipped: " << kPlotScript << " not found (looked at " << list << ")\n";
    return PlotOutcome::skipped;
  }
  const std::optional<std::string> python = find_python_with_matplotlib();
  if (!python) {
    std::cerr << who << ": plots skipped: python3-matplotlib is not installed (apt install python3-matplotlib)\n";
    return PlotOutcome::skipped;
  }
  std::vector<std::string> argv = {*python, script->string()};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  const int status = run_program(argv, false);
  if (status != 0) {
    std::cerr << who << ": plots failed: " << *python << " " << script->string() << " exited with status " << status
              << "\n";
    return PlotOutcome::failed;
  }
  return PlotOutcome::drawn;
}

}  // namespace fovea

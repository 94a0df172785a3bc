#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fovea/command_context.hpp"
#include "fovea/fit_export.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace fovea {

/// `fovea fit`'s options (docs/cli.md#fovea-fit), filled from the command line by register_fit_command.
struct FitOptions {
  std::vector<std::string> trials_files;  ///< trials.csv of fovea experiment sessions, one or more
  std::string model_path;                 ///< -o: the pooled fit's perception-model YAML
  /// --function, --bootstrap, --seed (the bootstrap's), --max-lapse, --no-lapse, --guess,
  /// --interval, --bias-correction
  FitSettings fit;
  std::optional<std::string> plots_dir;   ///< --plots; none: beside the model file
  bool plots = true;                      ///< false: --no-plots
  /// --export: the counted trials also as these tools take them, <stem>_<tool>.csv, in order
  std::vector<ExportFormat> exports;
  std::vector<std::string> command_line;  ///< argv, for <stem>_fit.json
};

/// `fovea fit`: reads the trials, fits f(e, g) per participant and pooled, writes the model
/// file, <stem>_fit.json and <stem>_conditions.csv, prints a table of the fits, and draws
/// the plots when python3 can import matplotlib. Returns the exit status (kExitOk,
/// kExitBadInput with nothing written, kExitFailure).
int fit_command(const FitOptions& options);

/// `fovea fit` on the command line: adds its subcommand, options and callback to `app`.
void register_fit_command(CLI::App& app, CommandContext& context);

}  // namespace fovea

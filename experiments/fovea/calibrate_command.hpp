#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "fovea/command_context.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace fovea {

/// `fovea calibrate`'s options (docs/cli.md#fovea-calibrate), filled from the command line by
/// register_calibrate_command.
struct CalibrateOptions {
  std::string spec_path;                    ///< configs/experiments/*.yaml
  std::vector<config::Override> overrides;  ///< --set key=value on the spec
  std::string observer;                     ///< --observer: the true perception model
  int participants = 200;                   ///< --participants
  int threads = 0;                          ///< --threads; 0: the machine's cores
  std::uint64_t seed = 1;                   ///< --seed: every participant's design, answers and bootstrap
  FitSettings fit;                          ///< as `fovea fit` takes them (its seed is per participant)
  std::string out;                          ///< -o: the folder; "" for results/calibration/<spec name>
  bool quiet = false;
  std::vector<std::string> command_line;
};

/// `fovea calibrate`: simulated participants run the spec's design, answered by the
/// observer model, and are fitted as `fovea fit` fits; writes calibration.csv (one row per
/// participant and parameter) and calibration_summary.csv, and prints per parameter the
/// bias, the intervals' coverage and their median width. Returns the exit status.
int calibrate_command(const CalibrateOptions& options);

/// `fovea calibrate` on the command line: adds its subcommand, options and callback to `app`.
void register_calibrate_command(CLI::App& app, CommandContext& context);

}  // namespace fovea

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perception/perception_settings.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace fovea {

/// `fovea fit`'s options (docs/cli.md#fovea-fit), filled by main.cpp from the command line.
struct FitOptions {
  std::vector<std::string> trials_files;  ///< trials.csv of fovea experiment sessions, one or more
  std::string model_path;                 ///< -o: the pooled fit's perception-model YAML
  PsychometricFunction function = PsychometricFunction::logistic;
  int bootstrap_samples = 200;            ///< refits behind each interval and deviance p
  std::uint64_t seed = 1;                 ///< the bootstrap's random stream
  double max_lapse_rate = 0.06;           ///< upper bound of lambda (Wichmann and Hill 2001)
  bool fit_lapse = true;                  ///< false: --no-lapse, lambda held at 0
  GuessRateMethod guess_rate = GuessRateMethod::fitted;  ///< --guess
  IntervalMethod interval = IntervalMethod::basic;          ///< --interval
  BiasCorrection bias_correction = BiasCorrection::median;  ///< --bias-correction
  std::optional<std::string> plots_dir;   ///< --plots; none: beside the model file
  bool plots = true;                      ///< false: --no-plots
  std::vector<std::string> command_line;  ///< argv, for <stem>_fit.json
};

/// `fovea fit`: reads the trials, fits f(e, g) per participant and pooled, writes the model
/// file, <stem>_fit.json and <stem>_conditions.csv, prints a table of the fits, and draws
/// the plots when python3 can import matplotlib. Returns the exit status (kExitOk,
/// kExitBadInput with nothing written, kExitFailure).
int fit_command(const FitOptions& options);

}  // namespace fovea

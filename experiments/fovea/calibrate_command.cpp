#include "fovea/calibrate_command.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/build_info.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "core/thread_pool.hpp"
#include "fovea/run_command.hpp"
#include "psychophysics/calibration.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

/// "12.3", or "-" for NaN (a rate whose truth is 0 has no bias in percent).
std::string cell_text(double value, int digits = 3) { return std::isnan(value) ? "-" : format_significant(value, digits); }


}  // namespace

int calibrate_command(const CalibrateOptions& options) {
  config::LoadedExperiment loaded;
  PerceptionModelSettings observer;
  try {
    loaded = config::load_experiment_file(options.spec_path, options.overrides);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (loaded.spec.method == DesignMethod::clip_comparison) {
    std::cerr << loaded.error_at("method", "fovea calibrate fits f(e, g) to a gap x eccentricity design (constant_stimuli, "
                                           "staircase or psi); a clip comparison has no gaps to fit")
              << "\n";
    return kExitBadInput;
  }
  try {
    observer = config::load_perception_model_file(options.observer);
  } catch (const config::ConfigError& e) {
    std::cerr << "--observer " << e.what() << "\n";
    return kExitBadInput;
  }
  const ExperimentSettings& spec = loaded.spec;
  const fs::path folder = options.out.empty() ? fs::path("results") / "calibration" / spec.name : fs::path(options.out);
  const fs::path rows_path = folder / "calibration.csv";
  const fs::path summary_path = folder / "calibration_summary.csv";
  const fs::path json_path = folder / "calibration.json";
  std::error_code error;
  const bool folder_missing = !fs::exists(folder, error);
  for (const fs::path& path : {rows_path, summary_path, json_path})
    if (const std::string problem = folder_missing ? folder_write_problem(folder) : file_write_problem(path);
        !problem.empty()) {
      std::cerr << "fovea calibrate: " << path.string() << ": cannot write: " << problem << "\n";
      return kExitFailure;
    }

  // Each participant is independent and lands in its own slot: the results, and so every
  // byte written, do not depend on the threads or the order they finish in.
  const auto count = static_cast<std::size_t>(options.participants);
  std::vector<CalibrationParticipant> participants(count);
  ThreadPool pool(options.threads);
  Progress progress(options.participants, !options.quiet && Progress::stderr_is_terminal(), Progress::Output::redrawn,
                    stderr, "participant");
  std::mutex progress_mutex;
  std::atomic<int> done{0};
  const Stopwatch clock;
  try {
    pool.run(count, [&](std::size_t i) {
      participants[i] = calibrate_participant(spec, observer, options.fit, options.seed, static_cast<int>(i));
      const int finished = ++done;
      const std::lock_guard lock(progress_mutex);
      progress.update(finished);
    });
  } catch (const std::invalid_argument& e) {
    progress.finish();
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitBadInput;
  }
  progress.finish();
  const double elapsed_s = clock.elapsed_ms() / 1000;
  const auto summary = summarise_calibration(observer, participants);

  try {
    create_folders(folder);
    write_csv_atomically(rows_path,
                         {"participant", "seed", "trials", "parameter", "truth", "estimate", "ci_low", "ci_high",
                          "covered", "converged", "at_bound"},
                         [&](CsvWriter& csv) {
                           for (const CalibrationParticipant& p : participants)
                             for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
                               const auto parameter = static_cast<CalibratedParameter>(k);
                               const ParameterEstimate& e = parameter_estimate(p.fit, parameter);
                               const double truth = parameter_value(observer, parameter);
                               const bool has_interval = std::isfinite(e.ci_low) && std::isfinite(e.ci_high);
                               csv.cell(std::string_view(p.name)).cell(p.seed).cell(std::int64_t{p.fit.trials});
                               csv.cell(std::string_view(calibrated_parameter_name(parameter))).cell(truth).cell(e.value);
                               csv.cell_or_missing(e.ci_low).cell_or_missing(e.ci_high);
                               if (has_interval)
                                 csv.cell(std::int64_t{e.ci_low <= truth && truth <= e.ci_high ? 1 : 0});
                               else
                                 csv.cell_missing();
                               csv.cell(std::int64_t{p.fit.converged ? 1 : 0}).cell(std::int64_t{e.at_bound ? 1 : 0});
                               csv.end_row(CsvWriter::Flush::later);
                             }
                         });
    write_csv_atomically(summary_path,
                         {"parameter", "truth", "participants", "mean", "median", "mean_bias_percent",
                          "median_bias_percent", "covered", "with_interval", "coverage", "coverage_low",
                          "coverage_high", "median_interval_width", "converged", "at_bound"},
                         [&](CsvWriter& csv) {
                           for (const ParameterCalibration& c : summary) {
                             csv.cell(std::string_view(calibrated_parameter_name(c.parameter))).cell(c.truth);
                             csv.cell(std::int64_t{c.participants}).cell_or_missing(c.mean).cell_or_missing(c.median);
                             csv.cell_or_missing(c.mean_bias_percent).cell_or_missing(c.median_bias_percent);
                             csv.cell(std::int64_t{c.coverage.successes}).cell(std::int64_t{c.coverage.trials});
                             csv.cell_or_missing(c.coverage.value).cell_or_missing(c.coverage.low);
                             csv.cell_or_missing(c.coverage.high).cell_or_missing(c.median_interval_width);
                             csv.cell(std::int64_t{c.converged}).cell(std::int64_t{c.at_bound});
                             csv.end_row(CsvWriter::Flush::later);
                           }
                         });
    // No time in here: the same command gives the same bytes.
    nlohmann::ordered_json j;
    const BuildInfo build = build_info();
    j["fovea_version"] = build.version;
    j["git_commit"] = build.git_commit;
    j["command_line"] = options.command_line;
    j["spec"] = options.spec_path;
    j["observer"] = options.observer;
    j["participants"] = options.participants;
    j["seed"] = options.seed;
    j["fit"] = {{"function", options.fit.function == PsychometricFunction::logistic ? "logistic" : "weibull"},
                {"bootstrap_samples", options.fit.bootstrap_samples},
                {"max_lapse_rate", options.fit.max_lapse_rate},
                {"fit_lapse", options.fit.fit_lapse},
                {"confidence", options.fit.confidence},
                {"guess_rate", guess_rate_method_name(options.fit.guess_rate)},
                {"interval", interval_method_name(options.fit.interval)},
                {"bias_correction", bias_correction_name(options.fit.bias_correction)}};
    write_json_atomically(json_path, j);
  } catch (const std::exception& e) {
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitFailure;
  }

  int trials_min = participants.front().fit.trials, trials_max = trials_min;
  for (const CalibrationParticipant& p : participants) {
    trials_min = std::min(trials_min, p.fit.trials);
    trials_max = std::max(trials_max, p.fit.trials);
  }
  const std::string ci = format_significant(100 * options.fit.confidence) + "% CI";
  std::vector<std::vector<std::string>> rows = {{"parameter", "truth", "mean", "median", "bias mean %", "bias median %",
                                                 "coverage of " + ci + " [95% Wilson]", "median CI width", "at bound"}};
  for (const ParameterCalibration& c : summary) {
    const std::string coverage = std::isnan(c.coverage.value)
                                     ? "-"
                                     : std::to_string(c.coverage.successes) + "/" + std::to_string(c.coverage.trials) +
                                           " = " + format_significant(100 * c.coverage.value) + "% [" +
                                           format_significant(100 * c.coverage.low) + ", " +
                                           format_significant(100 * c.coverage.high) + "]";
    rows.push_back({calibrated_parameter_name(c.parameter), format_significant(c.truth, 4), cell_text(c.mean, 4),
                    cell_text(c.median, 4), cell_text(c.mean_bias_percent), cell_text(c.median_bias_percent), coverage,
                    cell_text(c.median_interval_width), std::to_string(c.at_bound)});
  }
  std::cout << options.participants << " participants, " << trials_min
            << (trials_max != trials_min ? "-" + std::to_string(trials_max) : std::string()) << " trials each; "
            << interval_method_name(options.fit.interval) << " intervals from " << options.fit.bootstrap_samples
            << " bootstrap refits; guess rate " << guess_rate_method_name(options.fit.guess_rate)
            << "; bias correction " << bias_correction_name(options.fit.bias_correction) << "\n";
  std::cout << aligned_table(rows);
  std::cerr << "fovea calibrate: " << format_significant(elapsed_s) << " s on " << pool.size() << " thread"
            << (pool.size() == 1 ? "" : "s") << "; wrote " << rows_path.string() << ", " << summary_path.string() << ", "
            << json_path.string() << "\n";
  return kExitOk;
}

}  // namespace fovea

#include "fovea/calibrate_command.hpp"

#include <CLI/CLI.hpp>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/folder_name.hpp"
#include "core/format.hpp"
#include "core/stopwatch.hpp"
#include "core/thread_pool.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/fit_options.hpp"
#include "psychophysics/calibration.hpp"
#include "record/csv_writer.hpp"
#include "record/progress.hpp"
#include "record/results_folder.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

/// "12.3", or "-" for NaN (a rate whose truth is 0 has no bias in percent).
std::string cell_text(double value, int digits = 3) { return std::isnan(value) ? "-" : format_significant(value, digits); }

/// The spec and the true model, loaded and checked; false, said on stderr, when either is bad.
bool load_calibration_inputs(const CalibrateOptions& options, config::LoadedExperiment& loaded,
                             PerceptionModelSettings& observer) {
  try {
    loaded = config::load_experiment_file(options.spec_path, options.overrides);
  } catch (const config::ConfigError& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  if (loaded.spec.method == DesignMethod::clip_comparison) {
    std::cerr << loaded.error_at("method", "fovea calibrate fits f(e, g) to a gap x eccentricity design (constant_stimuli, "
                                           "staircase or psi); a clip comparison has no gaps to fit")
              << "\n";
    return false;
  }
  try {
    observer = config::load_perception_model_file(options.observer);
  } catch (const config::ConfigError& e) {
    std::cerr << "--observer " << e.what() << "\n";
    return false;
  }
  return true;
}

/// Where calibrate writes: calibration.csv, calibration_summary.csv and calibration.json.
struct CalibrationFiles {
  fs::path folder;
  fs::path rows;
  fs::path summary;
  fs::path json;
};

/// Whether each file can be written, said before the participants are run; false, said on
/// stderr, when one cannot.
bool files_writable(const CalibrationFiles& files) {
  std::error_code error;
  const bool folder_missing = !fs::exists(files.folder, error);
  for (const fs::path& path : {files.rows, files.summary, files.json})
    if (const std::string problem = folder_missing ? folder_write_problem(files.folder) : file_write_problem(path);
        !problem.empty()) {
      std::cerr << "fovea calibrate: " << path.string() << ": cannot write: " << problem << "\n";
      return false;
    }
  return true;
}

/// calibration.csv: one row per participant and parameter.
void write_participant_rows(const fs::path& path, const std::vector<CalibrationParticipant>& participants,
                            const PerceptionModelSettings& observer) {
  write_csv_atomically(path,
                       {"participant", "seed", "trials", "parameter", "truth", "estimate", "ci_low", "ci_high", "covered",
                        "converged", "at_bound"},
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
}

/// calibration_summary.csv: one row per parameter.
void write_summary_rows(const fs::path& path, std::span<const ParameterCalibration> summary) {
  write_csv_atomically(path,
                       {"parameter", "truth", "participants", "mean", "median", "mean_bias_percent",
                        "median_bias_percent", "covered", "with_interval", "coverage", "coverage_low", "coverage_high",
                        "median_interval_width", "converged", "at_bound"},
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
}

/// calibration.json: what made the files and with which settings. No time in here: the same
/// command gives the same bytes.
nlohmann::ordered_json calibration_json(const CalibrateOptions& options) {
  nlohmann::ordered_json j = made_by_json(options.command_line);
  j["spec"] = options.spec_path;
  j["observer"] = options.observer;
  j["participants"] = options.participants;
  j["seed"] = options.seed;
  j["fit"] = fit_settings_json(options.fit, std::nullopt);
  return j;
}

/// The table on stdout: per parameter the truth, the estimates' mean and median, their bias
/// and the intervals' coverage; the design's trials and the fit's methods above it.
void print_calibration(const CalibrateOptions& options, const std::vector<CalibrationParticipant>& participants,
                       std::span<const ParameterCalibration> summary) {
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
}

}  // namespace

int calibrate_command(const CalibrateOptions& options) {
  config::LoadedExperiment loaded;
  PerceptionModelSettings observer;
  if (!load_calibration_inputs(options, loaded, observer)) return kExitBadInput;
  const ExperimentSettings& spec = loaded.spec;
  // The name is a folder: results/calibration/<name>/ ("..": results/ itself).
  if (const std::string problem = folder_name_problem(spec.name); !problem.empty()) {
    std::cerr << loaded.error_at("name", problem + ": it names the calibration's folder, results/calibration/<name>/")
              << "\n";
    return kExitBadInput;
  }
  CalibrationFiles files;
  files.folder = options.out.empty() ? fs::path("results") / "calibration" / spec.name : fs::path(options.out);
  files.rows = files.folder / "calibration.csv";
  files.summary = files.folder / "calibration_summary.csv";
  files.json = files.folder / "calibration.json";
  if (!files_writable(files)) return kExitFailure;

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
    create_folders(files.folder);
    write_participant_rows(files.rows, participants, observer);
    write_summary_rows(files.summary, summary);
    write_json_atomically(files.json, calibration_json(options));
  } catch (const std::exception& e) {
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitFailure;
  }
  print_calibration(options, participants, summary);
  std::cerr << "fovea calibrate: " << format_significant(elapsed_s) << " s on " << pool.size() << " thread"
            << (pool.size() == 1 ? "" : "s") << "; wrote " << files.rows.string() << ", " << files.summary.string()
            << ", " << files.json.string() << "\n";
  return kExitOk;
}

void register_calibrate_command(CLI::App& app, CommandContext& context) {
  const auto o = std::make_shared<CalibrateOptions>();
  const auto sets = std::make_shared<std::vector<std::string>>();
  const auto function = std::make_shared<std::string>("logistic");
  const auto no_lapse = std::make_shared<bool>(false);
  o->command_line = context.command_line;
  CLI::App* calibrate = app.add_subcommand(
      "calibrate", "Calibrate `fovea fit` on an experiment's design: simulated participants answer as a known model, "
                   "are fitted as fovea fit fits, and the estimates' bias and the intervals' coverage are reported "
                   "(docs/psychophysics.md#calibration)");
  calibrate->add_option("spec", o->spec_path, "the experiment spec, configs/experiments/*.yaml")->required();
  calibrate->add_option("--observer", o->observer, "the true perception model every participant answers with")
      ->required();
  calibrate->add_option("--participants", o->participants, "simulated participants (default 200)")
      ->check(CLI::Range(1, 1000000));
  calibrate
      ->add_option("--threads", o->threads,
                   "threads, the participants spread over them (default 0: the machine's cores); the results do not "
                   "depend on it")
      ->check(CLI::Range(0, 1024));
  calibrate->add_option("--seed", o->seed, "seed of the participants' designs, answers and bootstraps (default 1)")
      ->check(CLI::NonNegativeNumber);
  add_set_option(*calibrate, *sets, "override a spec key, e.g. --set constant_stimuli.repetitions=10 (repeatable)");
  calibrate->add_option("-o,--out", o->out,
                        "the folder for calibration.csv, calibration_summary.csv and calibration.json "
                        "(default results/calibration/<name>/)");
  calibrate->add_option("--function", *function, "the sigmoid F fitted: logistic or weibull (default logistic)")
      ->check(CLI::IsMember(psychometric_function_names()));
  calibrate->add_option("--bootstrap", o->fit.bootstrap_samples,
                        "bootstrap refits per participant's fit, as fovea fit --bootstrap (default 200; 0: no intervals)")
      ->check(CLI::Range(0, 100000));
  CLI::Option* max_lapse = calibrate
                               ->add_option("--max-lapse", o->fit.max_lapse_rate,
                                            "upper bound of the fitted lapse rate (default 0.06)")
                               ->check(CLI::Range(0.0, 0.5));
  calibrate->add_flag("--no-lapse", *no_lapse, "fit with the lapse rate held at 0")->excludes(max_lapse);
  add_fit_method_options(*calibrate, o->fit);
  calibrate->add_flag("--quiet,-q", o->quiet, "no progress line");
  calibrate->callback([=, &context] {
    o->overrides = set_overrides(*sets);
    o->fit.function = psychometric_function_of(*function);
    o->fit.fit_lapse = !*no_lapse;
    context.exit_status = calibrate_command(*o);
  });
}

}  // namespace fovea

#include "fovea/calibrate_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include <unistd.h>

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

/// calibration.csv's columns: one row per participant and parameter.
const std::vector<std::string> kParticipantColumns = {"participant", "seed", "trials", "parameter", "truth", "estimate",
                                                      "ci_low", "ci_high", "covered", "converged", "at_bound"};

/// One participant's rows of calibration.csv, handed to the operating system together (a
/// killed run keeps every participant whose rows were written, whole).
void write_participant_rows(CsvWriter& csv, const CalibrationParticipant& p, const PerceptionModelSettings& observer) {
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
    csv.end_row(k + 1 == kCalibratedParameters ? CsvWriter::Flush::now : CsvWriter::Flush::later);
  }
}

/// The participants' CalibrationValues, for the summary's medians, in a scratch file beside
/// the outputs rather than in memory: 80 bytes a participant, read back in chunks. The file is
/// unlinked as soon as it is made, so it is gone when the process ends, however it ends.
class ValueScratch {
 public:
  explicit ValueScratch(const fs::path& folder) {
    std::string pattern = (folder / ".calibration-values-XXXXXX").string();
    const int fd = ::mkstemp(pattern.data());
    if (fd < 0) throw std::runtime_error(folder.string() + ": cannot make a scratch file: " + std::strerror(errno));
    ::unlink(pattern.c_str());
    file_ = ::fdopen(fd, "w+b");
    if (file_ == nullptr) {
      ::close(fd);
      throw std::runtime_error(folder.string() + ": cannot open a scratch file: " + std::strerror(errno));
    }
  }
  ~ValueScratch() { std::fclose(file_); }
  ValueScratch(const ValueScratch&) = delete;
  ValueScratch& operator=(const ValueScratch&) = delete;

  void append(const CalibrationValues& values) {
    if (std::fwrite(values.data(), sizeof(double), values.size(), file_) != values.size())
      throw std::runtime_error("the calibration's scratch file: write failed: " + std::string(std::strerror(errno)));
  }
  /// Every value appended, in order, to `each`.
  void replay(const std::function<void(const CalibrationValues&)>& each) {
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
      throw std::runtime_error("the calibration's scratch file: cannot read it back: " + std::string(std::strerror(errno)));
    std::vector<CalibrationValues> chunk(4096);
    while (const std::size_t read = std::fread(chunk.data(), sizeof(CalibrationValues), chunk.size(), file_))
      for (std::size_t i = 0; i < read; ++i) each(chunk[i]);
    if (std::ferror(file_) != 0) throw std::runtime_error("the calibration's scratch file: read failed");
    std::clearerr(file_);
    (void)std::fseek(file_, 0, SEEK_END);
  }

 private:
  std::FILE* file_ = nullptr;
};

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
void print_calibration(const CalibrateOptions& options, const CalibrationSummary& participants,
                       std::span<const ParameterCalibration> summary) {
  const int trials_min = participants.trials_min(), trials_max = participants.trials_max();
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

int calibrate_command(const CalibrateOptions& requested) {
  config::LoadedExperiment loaded;
  PerceptionModelSettings observer;
  if (!load_calibration_inputs(requested, loaded, observer)) return kExitBadInput;
  const ExperimentSettings& spec = loaded.spec;
  // A two-interval design is fitted as fovea fit fits it: the guess rate held at 1/2
  // (calibrate_participant does so; the outputs say so).
  CalibrateOptions options = requested;
  if (spec.task.kind == TaskKind::two_interval) options.fit.guess_rate = GuessRateMethod::forced_choice;
  // The rows and the summary against what the fit estimates: a forced choice's guess rate is 1/2.
  const PerceptionModelSettings truth = calibration_truth(spec, observer);
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

  // The folder, calibration.json (what this run is) and the rows' file before the first
  // participant: rows are written as participants finish, so a run killed at participant
  // 600,000 keeps 599,999 of them. A summary of an earlier run here would not be this one's.
  std::optional<CsvWriter> rows;
  std::optional<ValueScratch> scratch;
  try {
    create_folders(files.folder);
    std::error_code ignored;
    fs::remove(files.summary, ignored);
    write_json_atomically(files.json, calibration_json(options));
    rows.emplace(files.rows.string(), kParticipantColumns, CsvWriter::Open::create);
    scratch.emplace(files.folder);
  } catch (const std::exception& e) {
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitFailure;
  }

  // Participants run a window at a time, spread over the threads, each independent of the
  // others; within the window each is written, summed and let go as soon as those before it
  // are (their rows in participant order, so the bytes do not depend on the threads). At most
  // a window's participants are held, whatever --participants says.
  ThreadPool pool(options.threads);
  const auto count = static_cast<std::size_t>(options.participants);
  const std::size_t window = std::max<std::size_t>(256, 16 * static_cast<std::size_t>(pool.size()));
  CalibrationSummary summary(truth);
  Progress progress(options.participants, !options.quiet && Progress::stderr_is_terminal(), Progress::Output::redrawn,
                    stderr, "participant");
  std::mutex mutex;
  int done = 0;
  const Stopwatch clock;
  try {
    for (std::size_t start = 0; start < count; start += window) {
      const std::size_t n = std::min(window, count - start);
      std::vector<std::optional<CalibrationParticipant>> held(n);
      std::size_t next = 0;  // the first of the window not yet written
      pool.run(n, [&](std::size_t i) {
        CalibrationParticipant p = calibrate_participant(spec, observer, options.fit, options.seed, static_cast<int>(start + i));
        p.trials = {};  // the rows and the summary need the fit's estimates only
        p.fit.bootstrap_models = {};
        const std::lock_guard lock(mutex);
        held[i] = std::move(p);
        for (; next < n && held[next]; ++next) {
          write_participant_rows(*rows, *held[next], truth);
          scratch->append(calibration_values(held[next]->fit));
          summary.add(*held[next]);
          held[next].reset();
        }
        progress.update(++done);
      });
    }
  } catch (const std::invalid_argument& e) {
    progress.finish();
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    progress.finish();
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitFailure;
  }
  progress.finish();
  const double elapsed_s = clock.elapsed_ms() / 1000;

  std::array<ParameterCalibration, kCalibratedParameters> results;
  try {
    rows.reset();  // closed: every row written before the summary says the run is whole
    results = summary.finish([&](const std::function<void(const CalibrationValues&)>& each) { scratch->replay(each); });
    write_summary_rows(files.summary, results);
  } catch (const std::exception& e) {
    std::cerr << "fovea calibrate: " << e.what() << "\n";
    return kExitFailure;
  }
  print_calibration(options, summary, results);
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

#include "fovea/fit_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/format.hpp"
#include "fovea/exit_status.hpp"
#include "fovea/fit_export.hpp"
#include "fovea/fit_options.hpp"
#include "fovea/plotting.hpp"
#include "perception/perception_model.hpp"
#include "psychophysics/psychometric_fit.hpp"
#include "psychophysics/trial_records.hpp"
#include "record/csv_writer.hpp"
#include "record/results_folder.hpp"

namespace fovea {
namespace {

namespace fs = std::filesystem;

/// Eccentricities at which the threshold band is given, from 0 to the largest shown: enough
/// for a smooth band in a plot.
constexpr int kBandPoints = 41;

/// What one input file held.
struct InputSummary {
  std::string file;
  int rows = 0;
  int counted = 0;        ///< answered yes or no with fixation kept: the fit's trials
  int aborted = 0;        ///< response aborted (fixation lost before the answer; requeued)
  int fixation_lost = 0;  ///< answered, but gaze left the fixation region (fixation_kept 0)
};

/// One participant's counted trials, or everyone's pooled, in file and row order (the
/// bootstrap draws trial by trial in this order, so the order is part of the result).
struct Group {
  std::string name;
  std::vector<TrialOutcome> trials;
};

/// The threshold at one eccentricity shown.
struct EccentricityThreshold {
  double eccentricity_deg = 0;
  int trials = 0;                         ///< at this eccentricity, catch trials included
  int catch_trials = 0;
  ParameterEstimate threshold_deg;        ///< the fitted T(e), interval from the bootstrap refits
  ParameterEstimate threshold_alone_deg;  ///< fit_threshold_alone: this eccentricity's data on its own
};

/// A group's fit with what the outputs report beside it.
struct GroupFit {
  std::string name;
  FitResult fit;
  std::vector<EccentricityThreshold> eccentricities;
  /// T(e)'s bootstrap percentile band on a grid of eccentricities (empty without bootstrap).
  std::vector<double> band_eccentricity_deg, band_low_deg, band_high_deg;
};

/// The percentile interval of T(e) over the bootstrap models at eccentricity `e`; NaN
/// without bootstrap models.
std::pair<double, double> threshold_interval(const std::vector<PerceptionModel>& models, double e, double confidence) {
  if (models.empty()) return {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN()};
  std::vector<double> values;
  values.reserve(models.size());
  for (const PerceptionModel& m : models) values.push_back(m.threshold_deg(e));
  const double low = percentile_quantile(values, 0.5 * (1 - confidence));
  return {low, percentile_quantile(values, 0.5 * (1 + confidence))};
}

/// `e.what()` of the fit without its function's name: the user ran `fovea fit`.
std::string without_prefix(const std::string& message) {
  for (const char* prefix : {"fit_psychometric: ", "fit_threshold_alone: "})
    if (message.rfind(prefix, 0) == 0) return message.substr(std::string(prefix).size());
  return message;
}

/// Fits one group and the thresholds beside it. Throws std::invalid_argument from the fit.
GroupFit fit_group(const Group& group, const FitSettings& settings) {
  GroupFit g;
  g.name = group.name;
  g.fit = fit_psychometric(group.trials, settings);
  const PerceptionModel fitted(g.fit.model);
  std::vector<PerceptionModel> bootstrap;
  bootstrap.reserve(g.fit.bootstrap_models.size());
  for (const PerceptionModelSettings& m : g.fit.bootstrap_models) bootstrap.emplace_back(m);

  std::map<double, std::vector<TrialOutcome>> by_eccentricity;
  for (const TrialOutcome& t : group.trials) by_eccentricity[t.eccentricity_deg].push_back(t);
  double max_eccentricity_deg = 0;
  for (const auto& [e, trials] : by_eccentricity) {
    EccentricityThreshold row;
    row.eccentricity_deg = e;
    row.trials = static_cast<int>(trials.size());
    row.catch_trials = static_cast<int>(std::count_if(trials.begin(), trials.end(), [](const TrialOutcome& t) {
      return !(t.gap_deg > 0);
    }));
    if (row.catch_trials == row.trials) continue;  // no gap shown here: no threshold to speak of
    max_eccentricity_deg = std::max(max_eccentricity_deg, e);
    const auto [low, high] = threshold_interval(bootstrap, e, settings.confidence);
    row.threshold_deg = {fitted.threshold_deg(e), low, high};
    row.threshold_alone_deg = fit_threshold_alone(g.fit.model, trials, settings.confidence);
    g.eccentricities.push_back(row);
  }
  if (!bootstrap.empty()) {
    for (int i = 0; i < kBandPoints; ++i) {
      const double e = max_eccentricity_deg * i / (kBandPoints - 1);
      const auto [low, high] = threshold_interval(bootstrap, e, settings.confidence);
      g.band_eccentricity_deg.push_back(e);
      g.band_low_deg.push_back(low);
      g.band_high_deg.push_back(high);
    }
  }
  return g;
}

nlohmann::ordered_json estimate_json(const ParameterEstimate& p) {
  return {{"value", p.value}, {"ci_low", p.ci_low}, {"ci_high", p.ci_high}};
}

/// A fit's entry in <stem>_fit.json.
nlohmann::ordered_json fit_json(const GroupFit& g, const std::vector<std::string>& members) {
  const FitResult& f = g.fit;
  nlohmann::ordered_json j;
  j["participant"] = g.name;
  if (!members.empty()) j["participants"] = members;
  j["trials"] = f.trials;
  j["catch_trials"] = f.catch_trials;
  j["function"] = psychometric_function_name(f.model.function);
  j["parameters"] = {{"threshold_deg", estimate_json(f.threshold_deg)},
                     {"eccentricity_scale_deg", estimate_json(f.eccentricity_scale_deg)},
                     {"width", estimate_json(f.width)},
                     {"lapse_rate", estimate_json(f.lapse_rate)},
                     {"guess_rate", estimate_json(f.guess_rate)}};
  j["guess_rate"] = f.guess_rate.value;
  j["log_likelihood"] = f.log_likelihood;
  j["deviance"] = f.deviance;
  j["deviance_dof"] = f.deviance_dof;
  j["deviance_p"] = f.deviance_p;
  j["converged"] = f.converged;
  j["message"] = f.message;
  nlohmann::ordered_json eccentricities = nlohmann::ordered_json::array();
  for (const EccentricityThreshold& e : g.eccentricities)
    eccentricities.push_back({{"eccentricity_deg", e.eccentricity_deg},
                              {"trials", e.trials},
                              {"catch_trials", e.catch_trials},
                              {"threshold_deg", estimate_json(e.threshold_deg)},
                              {"threshold_alone_deg", estimate_json(e.threshold_alone_deg)}});
  j["eccentricities"] = eccentricities;
  j["threshold_band"] = {{"eccentricity_deg", g.band_eccentricity_deg},
                         {"ci_low", g.band_low_deg},
                         {"ci_high", g.band_high_deg}};
  return j;
}

/// "0.102 [0.0953, 0.109]", or the value alone without an interval.
std::string with_interval(const ParameterEstimate& p) {
  std::string text = format_significant(p.value);
  if (!std::isnan(p.ci_low)) text += " [" + format_significant(p.ci_low) + ", " + format_significant(p.ci_high) + "]";
  return text;
}

/// The table on stdout: one row per fit, columns padded to their widest cell; the
/// intervals' coverage in the header when there are intervals (a bootstrap).
void print_table(const std::vector<const GroupFit*>& fits, double confidence, bool intervals) {
  const std::string ci = intervals ? " [" + format_significant(100 * confidence) + "% CI]" : "";
  std::vector<std::vector<std::string>> rows = {
      {"participant", "trials", "T0 deg" + ci, "E2 deg" + ci, "width" + ci, "lapse", "deviance p"}};
  for (const GroupFit* g : fits) {
    const FitResult& f = g->fit;
    rows.push_back({g->name, std::to_string(f.trials), with_interval(f.threshold_deg),
                    with_interval(f.eccentricity_scale_deg), with_interval(f.width), format_significant(f.lapse_rate.value),
                    std::isnan(f.deviance_p) ? "-" : format_significant(f.deviance_p, 2)});
  }
  std::cout << aligned_table(rows);
  for (const GroupFit* g : fits)
    if (!g->fit.message.empty()) std::cout << g->name << ": " << g->fit.message << "\n";
}

/// Writes <stem>_conditions.csv through a temporary file and a rename, as the other outputs.
void write_conditions(const fs::path& path, const std::vector<const GroupFit*>& fits,
                      const std::vector<const Group*>& groups) {
  const std::vector<std::string> columns = {"participant", "eccentricity_deg", "gap_deg", "trials", "yes",
                                            "proportion_yes", "fitted_probability"};
  write_csv_atomically(path, columns, [&](CsvWriter& csv) {
    for (std::size_t i = 0; i < fits.size(); ++i) {
      // The counts the exports hold too (fovea/fit_export.hpp).
      const PerceptionModel model(fits[i]->fit.model);
      for (const LevelCount& c : count_levels(groups[i]->trials)) {
        csv.cell(std::string_view(fits[i]->name)).cell(c.eccentricity_deg).cell(c.gap_deg);
        csv.cell(std::int64_t{c.total}).cell(std::int64_t{c.positive});
        csv.cell(static_cast<double>(c.positive) / c.total).cell(model.probability(c.eccentricity_deg, c.gap_deg));
        csv.end_row(CsvWriter::Flush::later);
      }
    }
  });
}

/// Draws the plots; returns false when the script ran and failed (it said why on stderr).
bool draw_fit_plots(const fs::path& fit_json, const fs::path& conditions_csv, const fs::path& folder,
                    const std::string& stem) {
  const PlotOutcome outcome = draw_plots({"fit", fit_json.string(), "--conditions", conditions_csv.string(), "--out",
                                          folder.string(), "--stem", stem},
                                         "fovea fit");
  if (outcome == PlotOutcome::drawn)
    std::cerr << "fovea fit: plots: " << (folder / (stem + "_psychometric.png")).string() << ", "
              << (folder / (stem + "_threshold.png")).string() << "\n";
  return outcome != PlotOutcome::failed;
}

/// True when `a` and `b` name the same file, existing or not.
bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code error;
  const fs::path ca = fs::weakly_canonical(a, error);
  if (error) return false;
  const fs::path cb = fs::weakly_canonical(b, error);
  return !error && ca == cb;
}

/// Where `fovea fit` writes: the model file -o names and, beside it, <stem>_fit.json and
/// <stem>_conditions.csv; the plots go to --plots or beside them.
struct FitOutputs {
  fs::path model;
  std::string stem;
  fs::path folder;
  fs::path json;
  fs::path conditions;
  fs::path plots_folder;
  std::vector<std::pair<ExportFormat, fs::path>> exports;  ///< --export: each tool once, <stem>_<tool>.csv
};

/// The outputs -o names; nullopt, said on stderr, when it names no file.
std::optional<FitOutputs> fit_outputs(const FitOptions& options) {
  FitOutputs o;
  o.model = options.model_path;
  if (o.model.empty() || !o.model.has_filename()) {
    std::cerr << "fovea fit: -o needs a file name for the model, such as model.yaml\n";
    return std::nullopt;
  }
  std::error_code error;
  if (fs::is_directory(o.model, error)) {
    std::cerr << "fovea fit: -o " << options.model_path << ": is a folder; name the model file, such as "
              << (o.model / "model.yaml").string() << "\n";
    return std::nullopt;
  }
  o.stem = o.model.stem().string();
  o.folder = o.model.parent_path();
  o.json = o.folder / (o.stem + "_fit.json");
  o.conditions = o.folder / (o.stem + "_conditions.csv");
  o.plots_folder = options.plots_dir ? fs::path(*options.plots_dir) : o.folder;
  for (const ExportFormat format : options.exports)
    if (std::none_of(o.exports.begin(), o.exports.end(), [&](const auto& e) { return e.first == format; }))
      o.exports.emplace_back(format, o.folder / export_file_name(o.stem, format));
  return o;
}

/// What the trials files held: each file's counts, and the counted trials by participant in
/// the order they first appear.
struct FitInputs {
  std::vector<InputSummary> files;
  std::vector<Group> participants;
  int forced_choice_rows = 0;  ///< counted rows of two-interval trials (gap_interval 1 or 2)
  int yes_no_rows = 0;         ///< counted rows of yes/no trials
  std::string first_of_each_kind[2];  ///< "file:line" of the first row of each: a mix is named by both
};

/// Reads one trials file into `inputs`; false, said on stderr, when it is one of the outputs,
/// cannot be read, or names a participant as the pooled fit is named.
bool read_trials_file(const std::string& file, const FitOutputs& outputs, FitInputs& inputs) {
  std::vector<fs::path> written = {outputs.model, outputs.json, outputs.conditions};
  for (const auto& [format, path] : outputs.exports) written.push_back(path);
  for (const fs::path& output : written)
    if (same_file(file, output)) {
      std::cerr << "fovea fit: " << file << " is an input; writing " << output.string()
                << " would overwrite it: choose another -o\n";
      return false;
    }
  std::vector<TrialRecord> records;
  try {
    records = read_trial_records(file, trial_record_fit_columns());
  } catch (const std::runtime_error& e) {
    std::cerr << e.what() << "\n";
    return false;
  }
  InputSummary summary;
  summary.file = file;
  for (const TrialRecord& r : records) {
    ++summary.rows;
    if (r.participant == kPooledParticipant) {
      std::cerr << file << ":" << r.line << ": participant: \"" << kPooledParticipant
                << "\" is the name fovea fit gives the fit over all participants; rename this participant\n";
      return false;
    }
    if (r.response == TrialResponse::aborted) {
      ++summary.aborted;
      continue;
    }
    if (!r.fixation_kept) {
      ++summary.fixation_lost;
      continue;
    }
    ++summary.counted;
    std::vector<Group>& participants = inputs.participants;
    auto group =
        std::find_if(participants.begin(), participants.end(), [&](const Group& g) { return g.name == r.participant; });
    if (group == participants.end()) group = participants.insert(participants.end(), Group{r.participant, {}});
    // A two-interval trial counts as correct or not; a yes/no trial as yes or no.
    const bool forced_choice = r.gap_interval > 0;
    (forced_choice ? inputs.forced_choice_rows : inputs.yes_no_rows) += 1;
    std::string& first = inputs.first_of_each_kind[forced_choice ? 1 : 0];
    if (first.empty()) first = file + ":" + std::to_string(r.line);
    group->trials.push_back({r.eccentricity_deg, r.gap_deg, positive_answer(r.response, r.gap_interval)});
  }
  inputs.files.push_back(summary);
  return true;
}

/// Where the outputs go, before the fits: one that cannot be written is said now, not after
/// the bootstrap. A missing folder is made when the fits are written: then only whether it
/// can be made. False, said on stderr, when one cannot.
bool outputs_writable(const FitOptions& options, const FitOutputs& o) {
  std::error_code error;
  std::vector<std::pair<std::string, fs::path>> outputs = {
      {"-o " + o.model.string(), o.model}, {o.json.string(), o.json}, {o.conditions.string(), o.conditions}};
  for (const auto& [format, path] : o.exports) outputs.emplace_back("--export " + path.string(), path);
  const bool folder_missing = !o.folder.empty() && !fs::exists(o.folder, error);
  for (const auto& [name, path] : outputs)
    if (const std::string problem = folder_missing ? folder_write_problem(o.folder) : file_write_problem(path);
        !problem.empty()) {
      std::cerr << "fovea fit: " << name << ": cannot write: " << problem << "\n";
      return false;
    }
  if (options.plots && options.plots_dir)
    if (const std::string problem = folder_write_problem(o.plots_folder); !problem.empty()) {
      std::cerr << "fovea fit: --plots " << o.plots_folder.string() << ": cannot write: " << problem << "\n";
      return false;
    }
  return true;
}

/// Every fit: each participant's, in order, then the pooled one, last. False, said on
/// stderr, when one fails.
bool fit_everyone(const FitInputs& inputs, const Group& pooled, const FitSettings& settings,
                  std::vector<GroupFit>& fits) {
  const std::vector<Group>& participants = inputs.participants;
  try {
    for (const Group& p : participants) fits.push_back(fit_group(p, settings));
    if (participants.size() > 1) {
      fits.push_back(fit_group(pooled, settings));
    } else {
      // One participant: the pooled fit is theirs (the same trials in the same order).
      fits.push_back(fits.front());
      fits.back().name = kPooledParticipant;
    }
  } catch (const std::invalid_argument& e) {
    const std::string who = fits.size() < participants.size() ? "participant " + participants[fits.size()].name
                                                              : std::string(kPooledParticipant);
    std::cerr << "fovea fit: " << who << ": " << without_prefix(e.what()) << "\n";
    return false;
  }
  return true;
}

/// What the counted answers are: correct or not for two-interval trials (gap_interval 1 or 2;
/// fit_command refuses a mix), yes or no otherwise.
ResponseKind response_kind(const FitInputs& inputs) {
  return inputs.forced_choice_rows > 0 ? ResponseKind::forced_choice : ResponseKind::yes_no;
}

/// Writes the --export files: each fit's trials, in the outputs' order, counted as `kind`.
void write_exports(const FitOutputs& o, ResponseKind kind, const std::vector<const GroupFit*>& fits,
                   const std::vector<const Group*>& groups) {
  std::vector<ExportGroup> export_groups;
  for (std::size_t i = 0; i < fits.size(); ++i) export_groups.push_back({fits[i]->name, groups[i]->trials});
  for (const auto& [format, path] : o.exports) write_export(path, format, kind, export_groups);
}

/// <stem>_fit.json: what made it, the inputs, the settings, the output files and every fit.
nlohmann::ordered_json fits_json(const FitOptions& options, const FitOutputs& outputs, const FitInputs& inputs,
                                 const std::vector<GroupFit>& fits) {
  nlohmann::ordered_json j = made_by_json(options.command_line);
  nlohmann::ordered_json input_list = nlohmann::ordered_json::array();
  for (const InputSummary& s : inputs.files)
    input_list.push_back({{"file", s.file},
                          {"rows", s.rows},
                          {"counted", s.counted},
                          {"aborted", s.aborted},
                          {"fixation_lost", s.fixation_lost}});
  j["inputs"] = input_list;
  j["settings"] = fit_settings_json(options.fit, options.fit.seed);
  // Names only: the outputs are written side by side and stay valid when the folder moves.
  j["model_file"] = outputs.model.filename().string();
  j["conditions_file"] = outputs.conditions.filename().string();
  if (!outputs.exports.empty()) {
    // What each export's count counts: yes (a yes/no task) or correct (a forced choice).
    nlohmann::ordered_json exports = nlohmann::ordered_json::array();
    for (const auto& [format, path] : outputs.exports)
      exports.push_back({{"format", kind_name(kExportFormats, format)},
                         {"file", path.filename().string()},
                         {"counts", counted_response_name(response_kind(inputs))}});
    j["exports"] = exports;
  }
  nlohmann::ordered_json participant_list = nlohmann::ordered_json::array();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < inputs.participants.size(); ++i) {
    participant_list.push_back(fit_json(fits[i], {}));
    names.push_back(inputs.participants[i].name);
  }
  j["participants"] = participant_list;
  j["pooled"] = fit_json(fits.back(), names);
  return j;
}

/// Writes <stem>_conditions.csv, the --export files, <stem>_fit.json and the model file; false, said on stderr,
/// when one cannot be written.
bool write_fit_outputs(const FitOutputs& o, const FitInputs& inputs, const std::vector<const GroupFit*>& fit_order,
                       const std::vector<const Group*>& group_order, const nlohmann::ordered_json& j) {
  try {
    if (!o.folder.empty()) create_folders(o.folder);
    write_conditions(o.conditions, fit_order, group_order);
    write_exports(o, response_kind(inputs), fit_order, group_order);
    write_json_atomically(o.json, j);
    // Where the model came from, ahead of the fit's own header (no user text: a participant
    // name could hold a line break, which would end the comment).
    const std::size_t participants = inputs.participants.size();
    const std::string provenance =
        "# written by fovea fit from " + std::to_string(inputs.files.size()) +
        (inputs.files.size() == 1 ? " trials file" : " trials files") + ", " +
        (participants == 1 ? std::string("one participant") : "pooled over " + std::to_string(participants) + " participants") +
        "; every fit is in " + o.json.filename().string() + "\n";
    write_file_atomically(o.model, provenance + fitted_model_yaml(fit_order.back()->fit));
  } catch (const std::exception& e) {
    std::cerr << "fovea fit: " << e.what() << "\n";
    return false;
  }
  return true;
}

/// The plots into their folder, made if need be; the exit status.
int plot_fits(const FitOutputs& o) {
  try {
    if (!o.plots_folder.empty()) create_folders(o.plots_folder);
  } catch (const std::exception& e) {
    std::cerr << "fovea fit: --plots " << e.what() << "\n";
    return kExitFailure;
  }
  return draw_fit_plots(o.json, o.conditions, o.plots_folder.empty() ? fs::path(".") : o.plots_folder, o.stem)
             ? kExitOk
             : kExitFailure;
}

}  // namespace

int fit_command(const FitOptions& requested) {
  FitOptions options = requested;  // two-interval trials set its guess rate method
  // Everything is read and checked, and every fit made, before anything is written.
  const std::optional<FitOutputs> outputs = fit_outputs(options);
  if (!outputs) return kExitBadInput;
  FitInputs inputs;
  for (const std::string& file : options.trials_files)
    if (!read_trials_file(file, *outputs, inputs)) return kExitBadInput;
  if (inputs.participants.empty()) {
    int rows = 0;
    for (const InputSummary& s : inputs.files) rows += s.rows;
    std::cerr << "fovea fit: no trial to fit: "
              << (rows == 0 ? std::string("the files hold no rows")
                            : "all " + std::to_string(rows) + " rows are aborted or lost fixation")
              << "\n";
    return kExitBadInput;
  }
  // Forced-choice data is fitted with its guess rate of 1/2 whatever --guess says; yes/no and
  // two-interval rows are not one psychometric function.
  if (inputs.forced_choice_rows > 0 && inputs.yes_no_rows > 0) {
    std::cerr << "fovea fit: the trials mix yes/no rows (the first at " << inputs.first_of_each_kind[0]
              << ") and two-interval rows (gap_interval 1 or 2, the first at " << inputs.first_of_each_kind[1]
              << "): their answers mean different things; fit each task's files on their own\n";
    return kExitBadInput;
  }
  if (inputs.forced_choice_rows > 0) {
    if (options.fit.guess_rate != GuessRateMethod::forced_choice && options.fit.guess_rate != FitSettings{}.guess_rate)
      std::cerr << "fovea fit: two-interval trials: --guess " << guess_rate_method_name(options.fit.guess_rate)
                << " is replaced by forced_choice (1/2, the design's)\n";
    options.fit.guess_rate = GuessRateMethod::forced_choice;
  } else if (options.fit.guess_rate == GuessRateMethod::forced_choice) {
    std::cerr << "fovea fit: --guess forced_choice needs two-interval trials (gap_interval 1 or 2); these are yes/no\n";
    return kExitBadInput;
  }
  if (!outputs_writable(options, *outputs)) return kExitFailure;

  Group pooled{std::string(kPooledParticipant), {}};
  for (const Group& p : inputs.participants)
    pooled.trials.insert(pooled.trials.end(), p.trials.begin(), p.trials.end());
  std::vector<GroupFit> fits;
  if (!fit_everyone(inputs, pooled, options.fit, fits)) return kExitBadInput;
  // The participants' fits and groups, then the pooled ones: the order of every output.
  std::vector<const GroupFit*> fit_order;
  std::vector<const Group*> group_order;
  for (std::size_t i = 0; i < inputs.participants.size(); ++i) {
    fit_order.push_back(&fits[i]);
    group_order.push_back(&inputs.participants[i]);
  }
  fit_order.push_back(&fits.back());
  group_order.push_back(&pooled);
  if (!write_fit_outputs(*outputs, inputs, fit_order, group_order, fits_json(options, *outputs, inputs, fits)))
    return kExitFailure;

  // One participant: the pooled row would repeat theirs.
  if (inputs.participants.size() == 1) fit_order.pop_back();
  print_table(fit_order, options.fit.confidence, options.fit.bootstrap_samples > 0);
  std::cerr << "fovea fit: wrote " << outputs->model.string() << " ("
            << (inputs.participants.size() > 1 ? "pooled fit" : "the fit") << "), " << outputs->json.string() << ", "
            << outputs->conditions.string();
  for (const auto& [format, path] : outputs->exports) std::cerr << ", " << path.string();
  std::cerr << "\n";
  return options.plots ? plot_fits(*outputs) : kExitOk;
}

void register_fit_command(CLI::App& app, CommandContext& context) {
  const auto o = std::make_shared<FitOptions>();
  const auto function = std::make_shared<std::string>("logistic");
  const auto no_lapse = std::make_shared<bool>(false);
  const auto plots_dir = std::make_shared<std::string>();
  const auto no_plots = std::make_shared<bool>(false);
  o->command_line = context.command_line;
  CLI::App* fit = app.add_subcommand(
      "fit", "Fit the perception model f(e, g) to experiments' trials.csv, per participant and pooled; "
             "write the model file, the fits and plots");
  fit->add_option("trials", o->trials_files, "trials.csv files (one or more; sessions of one or more participants)")
      ->required();
  fit->add_option("-o,--output", o->model_path,
                  "the model file to write (the pooled fit, as perception.model.file reads it); "
                  "<stem>_fit.json and <stem>_conditions.csv go beside it")
      ->required();
  fit->add_option("--function", *function, "the sigmoid F: logistic or weibull (default logistic)")
      ->check(CLI::IsMember(psychometric_function_names()));
  fit->add_option("--bootstrap", o->fit.bootstrap_samples,
                  "parametric-bootstrap refits per fit, for the intervals and the deviance p (default 200; 0: none)")
      ->check(CLI::Range(0, 100000));
  fit->add_option("--seed", o->fit.seed, "seed of the bootstrap (default 1)")->check(CLI::NonNegativeNumber);
  CLI::Option* max_lapse =
      fit->add_option("--max-lapse", o->fit.max_lapse_rate, "upper bound of the lapse rate lambda (default 0.06)")
          ->check(CLI::Range(0.0, 0.5));
  fit->add_flag("--no-lapse", *no_lapse, "hold the lapse rate at 0 (3 free parameters)")->excludes(max_lapse);
  add_fit_method_options(*fit, o->fit);
  add_export_option(*fit, o->exports);
  CLI::Option* plots =
      fit->add_option("--plots", *plots_dir, "write the PNG plots into this folder (default: beside the model file)");
  fit->add_flag("--no-plots", *no_plots, "draw no plots")->excludes(plots);
  fit->callback([=, &context] {
    o->fit.function = psychometric_function_of(*function);
    o->fit.fit_lapse = !*no_lapse;
    if (!plots_dir->empty()) o->plots_dir = *plots_dir;
    o->plots = !*no_plots;
    context.exit_status = fit_command(*o);
  });
}

}  // namespace fovea

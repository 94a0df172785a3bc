#include "fovea/fit_command.hpp"


#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/build_info.hpp"
#include "core/format.hpp"
#include "fovea/plotting.hpp"
#include "fovea/run_command.hpp"
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

/// Trials pooled at one (eccentricity, gap), for <stem>_conditions.csv.
struct ConditionCount {
  int trials = 0;
  int yes = 0;
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

const char* function_name(PsychometricFunction f) { return f == PsychometricFunction::logistic ? "logistic" : "weibull"; }

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
  j["function"] = function_name(f.model.function);
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
      std::map<std::pair<double, double>, ConditionCount> conditions;
      for (const TrialOutcome& t : groups[i]->trials) {
        ConditionCount& c = conditions[{t.eccentricity_deg, t.gap_deg}];
        ++c.trials;
        c.yes += t.yes ? 1 : 0;
      }
      const PerceptionModel model(fits[i]->fit.model);
      for (const auto& [key, c] : conditions) {
        csv.cell(std::string_view(fits[i]->name)).cell(key.first).cell(key.second);
        csv.cell(std::int64_t{c.trials}).cell(std::int64_t{c.yes});
        csv.cell(static_cast<double>(c.yes) / c.trials).cell(model.probability(key.first, key.second));
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

}  // namespace

int fit_command(const FitOptions& options) {
  // Everything is read and checked, and every fit made, before anything is written.
  const fs::path model_path = options.model_path;
  if (model_path.empty() || !model_path.has_filename()) {
    std::cerr << "fovea fit: -o needs a file name for the model, such as model.yaml\n";
    return kExitBadInput;
  }
  std::error_code error;
  if (fs::is_directory(model_path, error)) {
    std::cerr << "fovea fit: -o " << options.model_path << ": is a folder; name the model file, such as "
              << (model_path / "model.yaml").string() << "\n";
    return kExitBadInput;
  }
  const std::string stem = model_path.stem().string();
  const fs::path folder = model_path.parent_path();
  const fs::path json_path = folder / (stem + "_fit.json");
  const fs::path conditions_path = folder / (stem + "_conditions.csv");
  const fs::path plots_folder = options.plots_dir ? fs::path(*options.plots_dir) : folder;

  std::vector<InputSummary> inputs;
  std::vector<Group> participants;
  for (const std::string& file : options.trials_files) {
    for (const fs::path& output : {model_path, json_path, conditions_path})
      if (same_file(file, output)) {
        std::cerr << "fovea fit: " << file << " is an input; writing " << output.string()
                  << " would overwrite it: choose another -o\n";
        return kExitBadInput;
      }
    std::vector<TrialRecord> records;
    try {
      records = read_trial_records(file, trial_record_fit_columns());
    } catch (const std::runtime_error& e) {
      std::cerr << e.what() << "\n";
      return kExitBadInput;
    }
    InputSummary summary;
    summary.file = file;
    for (const TrialRecord& r : records) {
      ++summary.rows;
      if (r.participant == kPooledParticipant) {
        std::cerr << file << ":" << r.line << ": participant: \"" << kPooledParticipant
                  << "\" is the name fovea fit gives the fit over all participants; rename this participant\n";
        return kExitBadInput;
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
      auto group = std::find_if(participants.begin(), participants.end(),
                                [&](const Group& g) { return g.name == r.participant; });
      if (group == participants.end()) group = participants.insert(participants.end(), Group{r.participant, {}});
      group->trials.push_back({r.eccentricity_deg, r.gap_deg, r.response == TrialResponse::yes});
    }
    inputs.push_back(summary);
  }
  if (participants.empty()) {
    int rows = 0;
    for (const InputSummary& s : inputs) rows += s.rows;
    std::cerr << "fovea fit: no trial to fit: " << (rows == 0 ? std::string("the files hold no rows")
                                                             : "all " + std::to_string(rows) +
                                                                   " rows are aborted or lost fixation")
              << "\n";
    return kExitBadInput;
  }

  // Where the outputs go, before the fits: one that cannot be written is said now, not after
  // the bootstrap.
  // A missing folder is made when the fits are written: then only whether it can be made.
  const std::vector<std::pair<std::string, fs::path>> outputs = {
      {"-o " + model_path.string(), model_path}, {json_path.string(), json_path}, {conditions_path.string(), conditions_path}};
  const bool folder_missing = !folder.empty() && !fs::exists(folder, error);
  for (const auto& [name, path] : outputs)
    if (const std::string problem = folder_missing ? folder_write_problem(folder) : file_write_problem(path); !problem.empty()) {
      std::cerr << "fovea fit: " << name << ": cannot write: " << problem << "\n";
      return kExitFailure;
    }
  if (options.plots && options.plots_dir)
    if (const std::string problem = folder_write_problem(plots_folder); !problem.empty()) {
      std::cerr << "fovea fit: --plots " << plots_folder.string() << ": cannot write: " << problem << "\n";
      return kExitFailure;
    }

  FitSettings settings;
  settings.function = options.function;
  settings.bootstrap_samples = options.bootstrap_samples;
  settings.seed = options.seed;
  settings.max_lapse_rate = options.max_lapse_rate;
  settings.fit_lapse = options.fit_lapse;
  settings.guess_rate = options.guess_rate;
  settings.interval = options.interval;
  settings.bias_correction = options.bias_correction;

  std::vector<GroupFit> fits;
  Group pooled{std::string(kPooledParticipant), {}};
  for (const Group& p : participants) pooled.trials.insert(pooled.trials.end(), p.trials.begin(), p.trials.end());
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
    const std::string who = fits.size() < participants.size() ? "participant " + participants[fits.size()].name : std::string(kPooledParticipant);
    std::cerr << "fovea fit: " << who << ": " << without_prefix(e.what()) << "\n";
    return kExitBadInput;
  }
  const GroupFit& pooled_fit = fits.back();

  std::vector<const GroupFit*> fit_order;
  std::vector<const Group*> group_order;
  for (std::size_t i = 0; i < participants.size(); ++i) {
    fit_order.push_back(&fits[i]);
    group_order.push_back(&participants[i]);
  }
  fit_order.push_back(&pooled_fit);
  group_order.push_back(&pooled);

  nlohmann::ordered_json j;
  const BuildInfo build = build_info();
  j["fovea_version"] = build.version;
  j["git_commit"] = build.git_commit;
  j["command_line"] = options.command_line;
  nlohmann::ordered_json input_list = nlohmann::ordered_json::array();
  for (const InputSummary& s : inputs)
    input_list.push_back({{"file", s.file},
                          {"rows", s.rows},
                          {"counted", s.counted},
                          {"aborted", s.aborted},
                          {"fixation_lost", s.fixation_lost}});
  j["inputs"] = input_list;
  j["settings"] = {{"function", function_name(settings.function)},
                   {"bootstrap_samples", settings.bootstrap_samples},
                   {"seed", settings.seed},
                   {"max_lapse_rate", settings.max_lapse_rate},
                   {"fit_lapse", settings.fit_lapse},
                   {"confidence", settings.confidence},
                   {"guess_rate", guess_rate_method_name(settings.guess_rate)},
                   {"interval", interval_method_name(settings.interval)},
                   {"bias_correction", bias_correction_name(settings.bias_correction)}};
  // Names only: the outputs are written side by side and stay valid when the folder moves.
  j["model_file"] = model_path.filename().string();
  j["conditions_file"] = conditions_path.filename().string();
  nlohmann::ordered_json participant_list = nlohmann::ordered_json::array();
  std::vector<std::string> names;
  for (std::size_t i = 0; i < participants.size(); ++i) {
    participant_list.push_back(fit_json(fits[i], {}));
    names.push_back(participants[i].name);
  }
  j["participants"] = participant_list;
  j["pooled"] = fit_json(pooled_fit, names);

  try {
    if (!folder.empty()) create_folders(folder);
    write_conditions(conditions_path, fit_order, group_order);
    write_json_atomically(json_path, j);
    // Where the model came from, ahead of the fit's own header (no user text: a participant
    // name could hold a line break, which would end the comment).
    const std::string provenance = "# written by fovea fit from " + std::to_string(inputs.size()) +
                                   (inputs.size() == 1 ? " trials file" : " trials files") + ", " +
                                   (participants.size() == 1 ? std::string("one participant")
                                                             : "pooled over " + std::to_string(participants.size()) +
                                                                   " participants") +
                                   "; every fit is in " + json_path.filename().string() + "\n";
    write_file_atomically(model_path, provenance + fitted_model_yaml(pooled_fit.fit));
  } catch (const std::exception& e) {
    std::cerr << "fovea fit: " << e.what() << "\n";
    return kExitFailure;
  }

  // One participant: the pooled row would repeat theirs.
  if (participants.size() == 1) fit_order.pop_back();
  print_table(fit_order, settings.confidence, settings.bootstrap_samples > 0);
  std::cerr << "fovea fit: wrote " << model_path.string() << " (" << (participants.size() > 1 ? "pooled fit" : "the fit")
            << "), " << json_path.string() << ", " << conditions_path.string() << "\n";

  if (!options.plots) return kExitOk;
  try {
    if (!plots_folder.empty()) create_folders(plots_folder);
  } catch (const std::exception& e) {
    std::cerr << "fovea fit: --plots " << e.what() << "\n";
    return kExitFailure;
  }
  return draw_fit_plots(json_path, conditions_path, plots_folder.empty() ? fs::path(".") : plots_folder, stem)
             ? kExitOk
             : kExitFailure;
}

}  // namespace fovea

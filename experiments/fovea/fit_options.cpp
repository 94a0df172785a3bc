#include "fovea/fit_options.hpp"

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/build_info.hpp"

namespace fovea {

namespace {

/// An option taking one of `table`'s names (psychophysics/psychometric_fit.hpp), stored as
/// its value; the help lists the names as the table has them, so the two cannot drift.
template <class Table>
void add_choice_option(CLI::App& command, const char* name, KindOf<Table>& value, const Table& table,
                       const char* help) {
  std::map<std::string, KindOf<Table>> choices;
  std::string names;
  for (const auto& row : table) {
    choices.emplace(row.name, row.kind);
    names += (names.empty() ? "" : "|") + std::string(row.name);
  }
  command.add_option(name, value, help)->transform(CLI::CheckedTransformer(choices).description(""))->type_name(names);
}

}  // namespace

void add_fit_method_options(CLI::App& command, FitSettings& fit) {
  add_choice_option(command, "--guess", fit.guess_rate, kGuessRateMethods,
                    "the guess rate: fitted (with the others, by maximum likelihood; can be 0) or catch_trials ((yes + "
                    "0.5) / (n + 1) of the catch trials, held fixed) (default fitted)");
  add_choice_option(command, "--interval", fit.interval, kIntervalMethods,
                    "the bootstrap interval: percentile, bias_corrected or basic (reflected on the log for T0, E2 and "
                    "width; percentile for the rates) (default basic)");
  add_choice_option(command, "--bias-correction", fit.bias_correction, kBiasCorrections,
                    "correct the estimates' small-sample bias from the bootstrap: none (maximum likelihood), mean, or "
                    "median (median-unbiased, the bias-corrected interval's centre) (default median)");
}

void add_export_option(CLI::App& command, std::vector<ExportFormat>& exports) {
  std::map<std::string, ExportFormat> choices;
  std::string names;
  for (const auto& row : kExportFormats) {
    choices.emplace(row.name, row.kind);
    names += (names.empty() ? "" : "|") + std::string(row.name);
  }
  command
      .add_option("--export", exports,
                  "also write the counted trials per eccentricity and gap as psignifit 4 or Palamedes take them, "
                  "<stem>_psignifit.csv or <stem>_palamedes.csv beside the model (repeat, or separate with commas, "
                  "for both)")
      ->transform(CLI::Validator(
          [choices, names](std::string& value) -> std::string {
            // The name as the enum's number, which CLI11 then stores; an unknown name refused
            // with the names there are.
            const auto found = choices.find(value);
            if (found == choices.end()) return "\"" + value + "\" is not one of " + names;
            value = std::to_string(static_cast<int>(found->second));
            return "";
          },
          ""))
      ->delimiter(',')
      ->type_name(names);
}

const char* psychometric_function_name(PsychometricFunction function) {
  return kind_name(kPsychometricFunctions, function);
}

std::vector<std::string> psychometric_function_names() {
  std::vector<std::string> names;
  for (const auto& row : kPsychometricFunctions) names.emplace_back(row.name);
  return names;
}

PsychometricFunction psychometric_function_of(const std::string& name) {
  return kind_named(kPsychometricFunctions, name).value_or(PsychometricFunction::logistic);
}

nlohmann::ordered_json fit_settings_json(const FitSettings& fit, std::optional<std::uint64_t> seed) {
  nlohmann::ordered_json j;
  j["function"] = psychometric_function_name(fit.function);
  j["bootstrap_samples"] = fit.bootstrap_samples;
  if (seed) j["seed"] = *seed;
  j["max_lapse_rate"] = fit.max_lapse_rate;
  j["fit_lapse"] = fit.fit_lapse;
  j["confidence"] = fit.confidence;
  j["guess_rate"] = guess_rate_method_name(fit.guess_rate);
  j["interval"] = interval_method_name(fit.interval);
  j["bias_correction"] = bias_correction_name(fit.bias_correction);
  return j;
}

nlohmann::ordered_json made_by_json(const std::vector<std::string>& command_line) {
  nlohmann::ordered_json j;
  const BuildInfo build = build_info();
  j["fovea_version"] = build.version;
  j["git_commit"] = build.git_commit;
  j["command_line"] = command_line;
  return j;
}

}  // namespace fovea

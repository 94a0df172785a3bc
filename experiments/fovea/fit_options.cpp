#include "fovea/fit_options.hpp"

#include <map>

#include <CLI/CLI.hpp>

#include "core/build_info.hpp"

namespace fovea {

namespace {

/// An option taking one of `choices`' names, stored as its value; `type_name` lists the names
/// in the help.
template <class T>
void add_choice_option(CLI::App& command, const char* name, T& value, const std::map<std::string, T>& choices,
                       const char* help, const char* type_name) {
  command.add_option(name, value, help)
      ->transform(CLI::CheckedTransformer(choices).description(""))
      ->type_name(type_name);
}

}  // namespace

void add_fit_method_options(CLI::App& command, FitSettings& fit) {
  add_choice_option(command, "--guess", fit.guess_rate,
                    {{"fitted", GuessRateMethod::fitted}, {"catch_trials", GuessRateMethod::catch_trials}},
                    "the guess rate: fitted (with the others, by maximum likelihood; can be 0) or catch_trials ((yes + "
                    "0.5) / (n + 1) of the catch trials, held fixed) (default fitted)",
                    "fitted|catch_trials");
  add_choice_option(command, "--interval", fit.interval,
                    {{"percentile", IntervalMethod::percentile},
                     {"bias_corrected", IntervalMethod::bias_corrected},
                     {"basic", IntervalMethod::basic}},
                    "the bootstrap interval: percentile, bias_corrected or basic (reflected on the log for T0, E2 and "
                    "width; percentile for the rates) (default basic)",
                    "percentile|bias_corrected|basic");
  add_choice_option(command, "--bias-correction", fit.bias_correction,
                    {{"none", BiasCorrection::none}, {"mean", BiasCorrection::mean}, {"median", BiasCorrection::median}},
                    "correct the estimates' small-sample bias from the bootstrap: none (maximum likelihood), mean, or "
                    "median (median-unbiased, the bias-corrected interval's centre) (default median)",
                    "none|mean|median");
}

const char* psychometric_function_name(PsychometricFunction function) {
  return function == PsychometricFunction::logistic ? "logistic" : "weibull";
}

PsychometricFunction psychometric_function_of(const std::string& name) {
  return name == "weibull" ? PsychometricFunction::weibull : PsychometricFunction::logistic;
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

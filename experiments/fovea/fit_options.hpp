#pragma once

// What `fovea fit` and `fovea calibrate` share: the fit's settings, given on their command
// lines and written into their JSON (<stem>_fit.json, calibration.json) the same way.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fovea/fit_export.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace fovea {

/// Adds --guess, --interval and --bias-correction, filling `fit`.
void add_fit_method_options(CLI::App& command, FitSettings& fit);

/// Adds `fovea fit`'s --export, filling `exports` with the tools named, in order (repeated or
/// separated by commas; a tool named twice is there twice).
void add_export_option(CLI::App& command, std::vector<ExportFormat>& exports);

/// "logistic" or "weibull", as --function names them.
const char* psychometric_function_name(PsychometricFunction function);
/// The names --function takes, in kPsychometricFunctions' order (perception/perception_settings.hpp).
std::vector<std::string> psychometric_function_names();
/// --function's value (checked to be one of the two names) as the function.
PsychometricFunction psychometric_function_of(const std::string& name);

/// The fit's settings as the JSON records them. `seed`: `fovea fit`'s bootstrap seed; none
/// for `fovea calibrate`, whose seeds are per participant and recorded beside them.
nlohmann::ordered_json fit_settings_json(const FitSettings& fit, std::optional<std::uint64_t> seed);

/// What made a file: fovea's version and commit and the command line, its first fields.
nlohmann::ordered_json made_by_json(const std::vector<std::string>& command_line);

}  // namespace fovea

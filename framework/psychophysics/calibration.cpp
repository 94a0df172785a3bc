#include "psychophysics/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "core/rng.hpp"
#include "psychophysics/session.hpp"

namespace fovea {
namespace {

/// The median of `values` (copied), the mean of the middle two for an even count.
double median_of(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

const char* calibrated_parameter_name(CalibratedParameter p) {
  switch (p) {
    case CalibratedParameter::threshold_deg: return "threshold_deg";
    case CalibratedParameter::eccentricity_scale_deg: return "eccentricity_scale_deg";
    case CalibratedParameter::width: return "width";
    case CalibratedParameter::lapse_rate: return "lapse_rate";
    case CalibratedParameter::guess_rate: return "guess_rate";
  }
  return "";
}

double parameter_value(const PerceptionModelSettings& model, CalibratedParameter p) {
  switch (p) {
    case CalibratedParameter::threshold_deg: return model.threshold_deg;
    case CalibratedParameter::eccentricity_scale_deg: return model.eccentricity_scale_deg;
    case CalibratedParameter::width: return model.width;
    case CalibratedParameter::lapse_rate: return model.lapse_rate;
    case CalibratedParameter::guess_rate: return model.guess_rate;
  }
  return 0;
}

const ParameterEstimate& parameter_estimate(const FitResult& fit, CalibratedParameter p) {
  switch (p) {
    case CalibratedParameter::threshold_deg: return fit.threshold_deg;
    case CalibratedParameter::eccentricity_scale_deg: return fit.eccentricity_scale_deg;
    case CalibratedParameter::width: return fit.width;
    case CalibratedParameter::lapse_rate: return fit.lapse_rate;
    case CalibratedParameter::guess_rate: return fit.guess_rate;
  }
  return fit.threshold_deg;
}

CalibrationParticipant calibrate_participant(const ExperimentSettings& spec, const PerceptionModelSettings& observer,
                                             const FitSettings& fit, std::uint64_t seed, int index) {
  if (index < 0 || index > 9999999) throw std::invalid_argument("calibrate_participant: index out of [0, 9999999]");
  CalibrationParticipant p;
  p.index = index;
  std::string digits = std::to_string(index);
  p.name = "sim" + std::string(digits.size() < 4 ? 4 - digits.size() : 0, '0') + digits;
  // A positive int64, as a spec's seed is; one draw of the calibration seed's stream `index`.
  Rng rng(seed, static_cast<std::uint64_t>(index));
  p.seed = static_cast<std::int64_t>(rng.next_u64() >> 1);

  // The session exactly as `fovea experiment --observer` runs it, minus the files: the
  // simulated observer never aborts, so every trial is answered once, in the design's order.
  ExperimentSettings participant_spec = spec;
  participant_spec.seed = p.seed;
  TrialSequence sequence(participant_spec, {});
  const SimulatedObserver answerer(observer, static_cast<std::uint64_t>(p.seed), p.name);
  while (const std::optional<PlannedTrial> trial = sequence.next()) {
    const TrialResponse response = answerer.answer(*trial, 0);
    p.trials.push_back({trial->condition.eccentricity_deg, shown_gap_deg(trial->condition), response == TrialResponse::yes});
    sequence.record(response);
  }

  FitSettings settings = fit;
  settings.seed = static_cast<std::uint64_t>(p.seed);
  try {
    p.fit = fit_psychometric(p.trials, settings);
  } catch (const std::invalid_argument& e) {
    // Answers that place no threshold (every one alike): say whose.
    std::string why = e.what();
    if (why.starts_with("fit_psychometric: ")) why.erase(0, std::string_view("fit_psychometric: ").size());
    throw std::invalid_argument("participant " + p.name + ": " + why);
  }
  return p;
}

Proportion wilson_interval(int successes, int trials, double confidence) {
  Proportion p;
  p.successes = successes;
  p.trials = trials;
  if (trials <= 0) {
    p.value = p.low = p.high = std::numeric_limits<double>::quiet_NaN();
    return p;
  }
  const double n = trials, phat = successes / n;
  const double z = normal_quantile(0.5 * (1 + confidence));
  const double centre = (phat + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z / (1 + z * z / n) * std::sqrt(phat * (1 - phat) / n + z * z / (4 * n * n));
  p.value = phat;
  // The ends are exactly 0 and 1 at no and all successes, which rounding would miss.
  p.low = successes == 0 ? 0.0 : std::max(0.0, centre - half);
  p.high = successes == trials ? 1.0 : std::min(1.0, centre + half);
  return p;
}

std::array<ParameterCalibration, kCalibratedParameters> summarise_calibration(
    const PerceptionModelSettings& observer, const std::vector<CalibrationParticipant>& participants) {
  std::array<ParameterCalibration, kCalibratedParameters> out;
  for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
    const auto parameter = static_cast<CalibratedParameter>(k);
    ParameterCalibration& c = out[k];
    c.parameter = parameter;
    c.truth = parameter_value(observer, parameter);
    std::vector<double> estimates, widths;
    int covered = 0, with_interval = 0;
    for (const CalibrationParticipant& p : participants) {
      const ParameterEstimate& e = parameter_estimate(p.fit, parameter);
      c.converged += p.fit.converged ? 1 : 0;
      c.at_bound += e.at_bound ? 1 : 0;
      if (std::isfinite(e.value)) estimates.push_back(e.value);
      if (std::isfinite(e.ci_low) && std::isfinite(e.ci_high)) {
        ++with_interval;
        covered += e.ci_low <= c.truth && c.truth <= e.ci_high ? 1 : 0;
        widths.push_back(e.ci_high - e.ci_low);
      }
    }
    c.participants = static_cast<int>(estimates.size());
    double sum = 0;
    for (const double v : estimates) sum += v;
    c.mean = estimates.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(estimates.size());
    c.median = median_of(estimates);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    c.mean_bias_percent = c.truth != 0 ? 100 * (c.mean - c.truth) / c.truth : nan;
    c.median_bias_percent = c.truth != 0 ? 100 * (c.median - c.truth) / c.truth : nan;
    c.coverage = wilson_interval(covered, with_interval);
    c.median_interval_width = median_of(widths);
  }
  return out;
}

}  // namespace fovea

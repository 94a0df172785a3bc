#include "psychophysics/calibration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "core/rng.hpp"
#include "psychophysics/session.hpp"

namespace fovea {

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
    p.trials.push_back({trial->condition.eccentricity_deg, shown_gap_deg(trial->condition),
                        positive_answer(response, trial->gap_interval)});
    sequence.record(response);
  }

  FitSettings settings = fit;
  settings.seed = static_cast<std::uint64_t>(p.seed);
  if (spec.task.kind == TaskKind::two_interval) settings.guess_rate = GuessRateMethod::forced_choice;
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

CalibrationValues calibration_values(const FitResult& fit) {
  CalibrationValues values;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
    const ParameterEstimate& e = parameter_estimate(fit, static_cast<CalibratedParameter>(k));
    values[2 * k] = std::isfinite(e.value) ? e.value : nan;
    values[2 * k + 1] = std::isfinite(e.ci_low) && std::isfinite(e.ci_high) ? e.ci_high - e.ci_low : nan;
  }
  return values;
}

namespace {

/// `value`'s bit pattern as an unsigned integer in the order of the doubles (negatives
/// reversed below the positives, -0 just below +0): what the selection counts by.
std::uint64_t order_key(double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  return (bits & sign) != 0 ? ~bits : bits | sign;
}

/// The double whose order_key() is `key`.
double from_order_key(std::uint64_t key) {
  constexpr std::uint64_t sign = std::uint64_t{1} << 63;
  return std::bit_cast<double>((key & sign) != 0 ? key & ~sign : ~key);
}

}  // namespace

std::vector<double> select_calibration_values(const std::vector<std::pair<std::size_t, std::uint64_t>>& asked,
                                              const CalibrationReplay& replay) {
  // A radix selection from the most significant byte: each pass counts, among the values
  // whose higher bytes are the k-th's as found so far, how many have each next byte; the
  // k-th's byte is where the running count passes k. Eight passes fix all 64 bits.
  struct Target {
    std::size_t series;
    std::uint64_t rank;        ///< among the values that share `prefix`
    std::uint64_t prefix = 0;  ///< the k-th's bytes found so far
    std::array<std::uint64_t, 256> counts{};
  };
  std::vector<Target> targets;
  targets.reserve(asked.size());
  for (const auto& [series, rank] : asked) {
    if (series >= std::tuple_size_v<CalibrationValues>)
      throw std::invalid_argument("select_calibration_values: no series " + std::to_string(series));
    targets.push_back({series, rank});
  }
  for (int pass = 0; pass < 8; ++pass) {
    const int shift = 56 - 8 * pass;
    for (Target& t : targets) t.counts.fill(0);
    replay([&](const CalibrationValues& values) {
      for (Target& t : targets) {
        const double v = values[t.series];
        if (std::isnan(v)) continue;
        const std::uint64_t key = order_key(v);
        if (pass > 0 && (key >> (shift + 8)) != t.prefix) continue;
        ++t.counts[(key >> shift) & 0xff];
      }
    });
    for (Target& t : targets) {
      std::size_t byte = 0;
      while (byte < 256 && t.rank >= t.counts[byte]) t.rank -= t.counts[byte++];
      if (byte == 256)
        throw std::invalid_argument("select_calibration_values: a rank beyond the values of series " +
                                    std::to_string(t.series) + " (or a replay that changed between passes)");
      t.prefix = (t.prefix << 8) | byte;
    }
  }
  std::vector<double> found;
  found.reserve(targets.size());
  for (const Target& t : targets) found.push_back(from_order_key(t.prefix));
  return found;
}

CalibrationSummary::CalibrationSummary(const PerceptionModelSettings& observer) : observer_(observer) {}

void CalibrationSummary::add(const CalibrationParticipant& p) {
  const CalibrationValues values = calibration_values(p.fit);
  for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
    const auto parameter = static_cast<CalibratedParameter>(k);
    const ParameterEstimate& e = parameter_estimate(p.fit, parameter);
    const double truth = parameter_value(observer_, parameter);
    Running& r = running_[k];
    r.converged += p.fit.converged ? 1 : 0;
    r.at_bound += e.at_bound ? 1 : 0;
    if (!std::isnan(values[2 * k])) {
      r.sum += values[2 * k];
      ++r.estimates;
    }
    if (std::isfinite(e.ci_low) && std::isfinite(e.ci_high)) {
      ++r.with_interval;
      r.covered += e.ci_low <= truth && truth <= e.ci_high ? 1 : 0;
    }
    if (!std::isnan(values[2 * k + 1])) ++r.widths;
  }
  trials_min_ = participants_ == 0 ? p.fit.trials : std::min(trials_min_, p.fit.trials);
  trials_max_ = participants_ == 0 ? p.fit.trials : std::max(trials_max_, p.fit.trials);
  ++participants_;
}

std::array<ParameterCalibration, kCalibratedParameters> CalibrationSummary::finish(const CalibrationReplay& replay) const {
  // Each median: the middle value of an odd count, the mean of the middle two of an even one.
  std::vector<std::pair<std::size_t, std::uint64_t>> asked;
  for (std::size_t k = 0; k < kCalibratedParameters; ++k)
    for (const auto& [series, count] : {std::pair{2 * k, running_[k].estimates}, std::pair{2 * k + 1, running_[k].widths}})
      if (count > 0) {
        const auto n = static_cast<std::uint64_t>(count);
        asked.push_back({series, (n - 1) / 2});
        asked.push_back({series, n / 2});
      }
  const std::vector<double> selected = asked.empty() ? std::vector<double>{} : select_calibration_values(asked, replay);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::array<double, std::tuple_size_v<CalibrationValues>> medians;
  medians.fill(nan);
  for (std::size_t i = 0; i < asked.size(); i += 2) {
    const double low = selected[i], high = selected[i + 1];
    medians[asked[i].first] = asked[i].second == asked[i + 1].second ? low : 0.5 * (low + high);
  }

  std::array<ParameterCalibration, kCalibratedParameters> out;
  for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
    const Running& r = running_[k];
    ParameterCalibration& c = out[k];
    c.parameter = static_cast<CalibratedParameter>(k);
    c.truth = parameter_value(observer_, c.parameter);
    c.participants = r.estimates;
    c.mean = r.estimates == 0 ? nan : r.sum / static_cast<double>(r.estimates);
    c.median = medians[2 * k];
    c.mean_bias_percent = c.truth != 0 ? 100 * (c.mean - c.truth) / c.truth : nan;
    c.median_bias_percent = c.truth != 0 ? 100 * (c.median - c.truth) / c.truth : nan;
    c.coverage = wilson_interval(r.covered, r.with_interval);
    c.median_interval_width = medians[2 * k + 1];
    c.converged = r.converged;
    c.at_bound = r.at_bound;
  }
  return out;
}

std::array<ParameterCalibration, kCalibratedParameters> summarise_calibration(
    const PerceptionModelSettings& observer, const std::vector<CalibrationParticipant>& participants) {
  CalibrationSummary summary(observer);
  for (const CalibrationParticipant& p : participants) summary.add(p);
  return summary.finish([&](const std::function<void(const CalibrationValues&)>& each) {
    for (const CalibrationParticipant& p : participants) each(calibration_values(p.fit));
  });
}

PerceptionModelSettings calibration_truth(const ExperimentSettings& spec, const PerceptionModelSettings& observer) {
  PerceptionModelSettings truth = observer;
  if (spec.task.kind == TaskKind::two_interval) truth.guess_rate = forced_choice_guess_rate(spec.task.kind);
  return truth;
}

}  // namespace fovea

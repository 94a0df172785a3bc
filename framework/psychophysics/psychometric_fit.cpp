#include "psychophysics/psychometric_fit.hpp"

#include <nlopt.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <utility>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "perception/perception_model.hpp"

namespace fovea {
namespace {

/// Probabilities are kept in [kMinP, 1 - kMinP] inside the logarithms: a model that says 0
/// or 1 where the data disagree would otherwise give -infinity and stall the optimiser.
constexpr double kMinP = 1e-9;

/// The parameters' ranges: those perception_model_schema accepts, so that any fit loads
/// from the YAML fitted_model_yaml writes.
constexpr double kMinThresholdDeg = 1e-6, kMaxThresholdDeg = 180;
constexpr double kMinScaleDeg = 1e-6, kMaxScaleDeg = 180;
constexpr double kMinWidth = 1e-3, kMaxWidth = 100;
constexpr double kMaxGuessRate = 0.5;  ///< perception.model.guess_rate's upper end
constexpr double kForcedChoiceGuessRate = 0.5;  ///< two intervals: a guess names the gap's half the time

/// Trials with the same eccentricity and gap, pooled: the likelihood and the deviance are
/// sums over these, so an evaluation costs conditions, not trials.
struct Condition {
  double eccentricity_deg = 0;  ///< degrees from fixation
  double gap_deg = 0;           ///< degrees; 0 for the catch conditions
  int trials = 0;               ///< n, >= 1
  int yes = 0;                  ///< y, of the n
};

/// The data as the fit sees it: the conditions in (eccentricity, gap) order, catch
/// conditions (gap 0) included, and each trial's condition, so a bootstrap data set is
/// drawn trial by trial in the caller's order.
struct PooledData {
  std::vector<Condition> conditions;   ///< sorted by (eccentricity, gap), distinct
  std::vector<int> condition_of_trial;  ///< per trial, in the caller's order: its condition
};

/// Pools `trials` by exact (eccentricity, gap): a constant-stimuli design repeats the same
/// doubles, and an adaptive one gives conditions of one trial each, which is still right.
PooledData pool(std::span<const TrialOutcome> trials) {
  std::vector<int> order(trials.size());
  for (std::size_t i = 0; i < trials.size(); ++i) order[i] = static_cast<int>(i);
  const auto key = [&](int i) { return std::pair(trials[i].eccentricity_deg, trials[i].gap_deg); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  PooledData data;
  data.condition_of_trial.resize(trials.size());
  for (const int i : order) {
    const TrialOutcome& t = trials[i];
    if (data.conditions.empty() || key(i) != std::pair(data.conditions.back().eccentricity_deg,
                                                       data.conditions.back().gap_deg))
      data.conditions.push_back({t.eccentricity_deg, t.gap_deg, 0, 0});
    Condition& c = data.conditions.back();
    ++c.trials;
    c.yes += t.yes ? 1 : 0;
    data.condition_of_trial[i] = static_cast<int>(data.conditions.size()) - 1;
  }
  return data;
}

/// Throws std::invalid_argument naming the first bad trial.
void check_trials(std::span<const TrialOutcome> trials) {
  if (trials.empty()) throw std::invalid_argument("fit_psychometric: no trials");
  bool any_gap = false;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const TrialOutcome& t = trials[i];
    if (!(std::isfinite(t.eccentricity_deg) && t.eccentricity_deg >= 0))
      throw std::invalid_argument("fit_psychometric: trial " + std::to_string(i) +
                                  ": eccentricity_deg must be a finite number >= 0, not " +
                                  format_number(t.eccentricity_deg));
    if (!(std::isfinite(t.gap_deg) && t.gap_deg >= 0))
      throw std::invalid_argument("fit_psychometric: trial " + std::to_string(i) +
                                  ": gap_deg must be a finite number >= 0, not " + format_number(t.gap_deg));
    any_gap = any_gap || t.gap_deg > 0;
  }
  if (!any_gap) throw std::invalid_argument("fit_psychometric: only catch trials (gap 0); nothing to fit");
}

/// Throws std::invalid_argument when the answers cannot place a threshold (issue 42): it is
/// identified only between a gap seen and a gap not seen, so with fewer than two trials with a
/// gap, or with every one of them answered alike, the maximum of the likelihood lies at a
/// bound, anywhere below the smallest gap or above the largest, and a model from it would
/// claim a threshold the data never showed.
void check_identified(std::span<const TrialOutcome> trials) {
  int with_gap = 0, yes = 0;
  double smallest = std::numeric_limits<double>::infinity(), largest = 0;
  for (const TrialOutcome& t : trials) {
    if (!(t.gap_deg > 0)) continue;
    ++with_gap;
    yes += t.yes ? 1 : 0;
    smallest = std::min(smallest, t.gap_deg);
    largest = std::max(largest, t.gap_deg);
  }
  if (with_gap < 2)
    throw std::invalid_argument(
        "fit_psychometric: too few trials: only one has a gap, so the threshold is not identified (it lies between a "
        "gap seen and a gap not seen: at least two trials with a gap, answered yes and no)");
  if (yes == 0 || yes == with_gap)
    throw std::invalid_argument(
        "fit_psychometric: no variation in the answers: all " + std::to_string(with_gap) + " trials with a gap were answered " +
        (yes == 0 ? "no" : "yes") + ", so the threshold is not identified: it lies anywhere " +
        (yes == 0 ? "above the largest gap shown, " + format_significant(largest) : "below the smallest gap shown, " + format_significant(smallest)) +
        " deg");
}

/// Throws std::invalid_argument naming the first setting out of its range.
void check_settings(const FitSettings& s) {
  if (!(s.max_lapse_rate >= 0 && s.max_lapse_rate <= 0.5))
    throw std::invalid_argument("fit_psychometric: max_lapse_rate must be in [0, 0.5], not " +
                                format_number(s.max_lapse_rate));
  if (s.bootstrap_samples < 0)
    throw std::invalid_argument("fit_psychometric: bootstrap_samples must be >= 0, not " +
                                std::to_string(s.bootstrap_samples));
  if (!(s.confidence > 0 && s.confidence < 1))
    throw std::invalid_argument("fit_psychometric: confidence must be in (0, 1), not " + format_number(s.confidence));
}

/// y ln p + (n - y) ln(1 - p), with 0 ln 0 = 0 and p clamped.
double condition_log_likelihood(const Condition& c, double p) {
  p = std::clamp(p, kMinP, 1 - kMinP);
  const int no = c.trials - c.yes;
  return (c.yes > 0 ? c.yes * std::log(p) : 0.0) + (no > 0 ? no * std::log1p(-p) : 0.0);
}

/// ln L of the pooled data under `model`, summed in the conditions' order.
double log_likelihood(const PerceptionModel& model, const std::vector<Condition>& conditions) {
  double sum = 0;
  for (const Condition& c : conditions)
    sum += condition_log_likelihood(c, model.probability(c.eccentricity_deg, c.gap_deg));
  return sum;
}

/// ln L of the saturated model, which gives each condition its own p = yes / trials.
double saturated_log_likelihood(const std::vector<Condition>& conditions) {
  double sum = 0;
  for (const Condition& c : conditions)
    sum += condition_log_likelihood(c, static_cast<double>(c.yes) / c.trials);
  return sum;
}

/// gamma from the catch trials: (yes + 0.5) / (n + 1) rather than yes / n, so that a few
/// catch trials all answered no (the usual case) do not claim a guess rate of exactly 0,
/// and all yes not 1 (the Jeffreys-like half-count guard; it fades as n grows). 0 without
/// catch trials.
double guess_rate_from_catch_trials(const std::vector<Condition>& conditions, int& catch_trials) {
  int yes = 0;
  catch_trials = 0;
  for (const Condition& c : conditions) {
    if (c.gap_deg > 0) continue;
    catch_trials += c.trials;
    yes += c.yes;
  }
  return catch_trials == 0 ? 0.0 : (yes + 0.5) / (catch_trials + 1.0);
}

/// The optimiser's coordinates: ln T0, ln E2, ln width, then lambda when fitted, then gamma
/// when fitted. Logs make the positive parameters unbounded-looking and their steps relative.
struct Coordinates {
  PsychometricFunction function;  ///< the F being fitted
  double guess_rate;              ///< gamma when held fixed
  bool fit_lapse;                 ///< false: lambda held at held_lapse_rate
  bool fit_guess;                 ///< false: gamma held at guess_rate
  double held_lapse_rate = 0;     ///< lambda when not fitted (0, or a profile's point)

  int lapse_index() const { return fit_lapse ? 3 : -1; }
  int guess_index() const { return fit_guess ? (fit_lapse ? 4 : 3) : -1; }
  unsigned dimensions() const { return 3u + (fit_lapse ? 1u : 0u) + (fit_guess ? 1u : 0u); }

  /// The model at coordinates `x`.
  PerceptionModelSettings model(const std::vector<double>& x) const {
    PerceptionModelSettings m;
    m.function = function;
    m.threshold_deg = std::exp(x[0]);
    m.eccentricity_scale_deg = std::exp(x[1]);
    m.width = std::exp(x[2]);
    m.guess_rate = fit_guess ? x[static_cast<std::size_t>(guess_index())] : guess_rate;
    m.lapse_rate = fit_lapse ? x[static_cast<std::size_t>(lapse_index())] : held_lapse_rate;
    return m;
  }
};

/// The log-likelihood NLopt maximises, with what it needs to evaluate it.
struct Objective {
  const Coordinates* coordinates;            ///< x to model
  const std::vector<Condition>* conditions;  ///< the data, catch conditions included

  /// NLopt's callback: ln L at `x`; `data` is the Objective.
  static double evaluate(const std::vector<double>& x, std::vector<double>& /*gradient, unused*/, void* data) {
    const auto& self = *static_cast<const Objective*>(data);
    return log_likelihood(PerceptionModel(self.coordinates->model(x)), *self.conditions);
  }
};

/// What one fit of one data set gives (the bootstrap runs it once per data set).
struct SingleFit {
  PerceptionModelSettings model;  ///< the best start's end point
  /// ln L there, catch trials included.
  double log_likelihood = -std::numeric_limits<double>::infinity();
  double deviance = 0;        ///< against the saturated model
  bool converged = false;     ///< the best start ended on an NLopt success code
  std::vector<double> x;      ///< the optimiser's coordinates at the fit
  std::vector<double> lower;  ///< their lower bounds
  std::vector<double> upper;  ///< their upper bounds
  int lapse_index = -1;       ///< lambda's coordinate, -1 when held at 0
  int guess_index = -1;       ///< gamma's coordinate, -1 when held fixed
};

/// The gap whose normalised proportion of yes, (p - gamma) / (1 - gamma), lies nearest 0.5
/// among the conditions at `eccentricity_deg`: a rough threshold to start from.
double gap_nearest_half(const std::vector<Condition>& conditions, double eccentricity_deg, double guess_rate) {
  double best_gap = 0, best_distance = std::numeric_limits<double>::infinity();
  for (const Condition& c : conditions) {
    if (c.gap_deg <= 0 || c.eccentricity_deg != eccentricity_deg) continue;
    const double p = static_cast<double>(c.yes) / c.trials;
    const double distance = std::abs((p - guess_rate) / (1 - guess_rate) - 0.5);
    if (distance < best_distance) best_distance = distance, best_gap = c.gap_deg;
  }
  return best_gap;
}

/// Fits the free parameters to `conditions`, gamma fitted or held at `guess_rate`
/// (`fit_guess`). Starts from
/// thresholds read off the data (the gap nearest 50 % at the smallest and the largest
/// eccentricity give T0 and the slope T0 / E2) with widths 0.5, 1 and 2, and keeps the
/// best: BOBYQA is local, and a width far from the truth can leave it on a flat shoulder.
SingleFit fit_once(const std::vector<Condition>& conditions, double guess_rate, bool fit_guess,
                   const FitSettings& settings, double held_lapse_rate = 0) {
  const bool fit_lapse = settings.fit_lapse && settings.max_lapse_rate > 0;
  const Coordinates coordinates{settings.function, guess_rate, fit_lapse, fit_guess, held_lapse_rate};
  // gamma + lambda < 1 for PerceptionModel; only a bootstrap data set whose catch trials
  // all said yes comes near it. A fitted gamma is at most 0.5, so lambda stays below 0.5.
  const double max_lapse = fit_guess ? std::min(settings.max_lapse_rate, 0.499)
                                     : std::min(settings.max_lapse_rate, 0.5 * (1 - guess_rate));

  double min_e = std::numeric_limits<double>::infinity(), max_e = 0;
  for (const Condition& c : conditions) {
    if (c.gap_deg <= 0) continue;
    min_e = std::min(min_e, c.eccentricity_deg);
    max_e = std::max(max_e, c.eccentricity_deg);
  }
  const double t_near = gap_nearest_half(conditions, min_e, guess_rate);
  const double t_far = gap_nearest_half(conditions, max_e, guess_rate);
  double t0 = t_near, e2 = 100.0;  // no growth seen: a threshold nearly flat in eccentricity
  if (max_e > min_e && t_far > t_near) {
    const double slope = (t_far - t_near) / (max_e - min_e);
    t0 = std::max(t_near - slope * min_e, 0.1 * t_near);
    e2 = t0 / slope;
  }
  t0 = std::clamp(t0, kMinThresholdDeg, kMaxThresholdDeg);
  e2 = std::clamp(e2, kMinScaleDeg, kMaxScaleDeg);

  const unsigned dimensions = coordinates.dimensions();
  SingleFit best;
  best.lapse_index = coordinates.lapse_index();
  best.guess_index = coordinates.guess_index();
  best.lower = {std::log(kMinThresholdDeg), std::log(kMinScaleDeg), std::log(kMinWidth)};
  best.upper = {std::log(kMaxThresholdDeg), std::log(kMaxScaleDeg), std::log(kMaxWidth)};
  std::vector<double> step = {0.5, 0.5, 0.5};  // a factor of 1.6 in each positive parameter
  if (fit_lapse) {
    best.lower.push_back(0.0);
    best.upper.push_back(max_lapse);
    step.push_back(0.25 * max_lapse);
  }
  if (fit_guess) {
    best.lower.push_back(0.0);
    best.upper.push_back(kMaxGuessRate);
    step.push_back(0.02);
  }

  Objective objective{&coordinates, &conditions};
  for (const double width : {1.0, 0.5, 2.0}) {
    std::vector<double> x = {std::log(t0), std::log(e2), std::log(width)};
    if (fit_lapse) x.push_back(0.25 * max_lapse);
    if (fit_guess) x.push_back(std::clamp(guess_rate, 0.0, 0.9 * kMaxGuessRate));

    nlopt::opt opt(nlopt::LN_BOBYQA, dimensions);
    opt.set_lower_bounds(best.lower);
    opt.set_upper_bounds(best.upper);
    opt.set_initial_step(step);
    opt.set_max_objective(&Objective::evaluate, &objective);
    // 1e-7 in the logs is a relative 1e-7 in T0, E2 and width, far below any interval.
    std::vector<double> xtol(dimensions, 1e-7);
    if (fit_lapse) xtol[static_cast<std::size_t>(best.lapse_index)] = 1e-9;
    if (fit_guess) xtol[static_cast<std::size_t>(best.guess_index)] = 1e-9;
    opt.set_xtol_abs(xtol);
    opt.set_maxeval(4000);
    nlopt::result result = nlopt::FAILURE;
    try {
      double value = 0;
      result = opt.optimize(x, value);
    } catch (const std::runtime_error&) {
      // nlopt::roundoff_limited and other failures: x holds the best point NLopt found,
      // which is still a candidate; the fit just does not count as converged.
    }
    std::vector<double> no_gradient;
    const double ll = Objective::evaluate(x, no_gradient, &objective);
    if (best.x.empty() || ll > best.log_likelihood) {
      best.log_likelihood = ll;
      best.x = x;
      best.model = coordinates.model(x);
      best.converged = result == nlopt::SUCCESS || result == nlopt::FTOL_REACHED ||
                       result == nlopt::XTOL_REACHED || result == nlopt::STOPVAL_REACHED;
    }
  }
  best.deviance = 2 * (saturated_log_likelihood(conditions) - best.log_likelihood);
  return best;
}


/// z0 of the bias-corrected percentile method (Efron 1981): the normal quantile of the share
/// of refits below the estimate, ties counted half (a rate at its bound of 0 ties often),
/// kept off 0 and 1 so that z0 stays finite.
double median_bias_z0(double value, const std::vector<double>& bootstrap) {
  double below = 0;
  for (const double b : bootstrap) below += b < value ? 1.0 : (b == value ? 0.5 : 0.0);
  const double n = static_cast<double>(bootstrap.size());
  return normal_quantile(std::clamp(below / n, 0.5 / n, 1 - 0.5 / n));
}

/// What the basic interval and the bias correction need of a parameter: whether it is
/// positive (T0, E2, width: the basic interval reflects on its log; a rate keeps the
/// percentile interval), and its bounds, which clamp both.
struct ParameterSpace {
  bool positive = true;
  double lower = 0, upper = 0;
};

/// The fitted value with the interval of its bootstrap refits by `method` (NaN without).
ParameterEstimate interval(double value, std::vector<double>& bootstrap, const FitSettings& settings,
                           const ParameterSpace& space) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (bootstrap.empty()) return {value, nan, nan};
  const double alpha = 0.5 * (1 - settings.confidence);
  switch (settings.interval) {
    case IntervalMethod::percentile:
      return {value, percentile_quantile(bootstrap, alpha), percentile_quantile(bootstrap, 1 - alpha)};
    case IntervalMethod::bias_corrected: {
      const double z0 = median_bias_z0(value, bootstrap), z = normal_quantile(1 - alpha);
      const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
      return {value, percentile_quantile(bootstrap, phi(2 * z0 - z)), percentile_quantile(bootstrap, phi(2 * z0 + z))};
    }
    case IntervalMethod::basic: {
      const double low = percentile_quantile(bootstrap, alpha), high = percentile_quantile(bootstrap, 1 - alpha);
      if (!space.positive) return {value, low, high};  // a rate: the percentile interval (IntervalMethod::basic)
      return {value, std::clamp(value * value / high, space.lower, space.upper),
              std::clamp(value * value / low, space.lower, space.upper)};
    }
  }
  return {value, nan, nan};
}

/// The estimate and its interval: `value` (the maximum-likelihood one) with the interval of
/// `bootstrap` by settings.interval, the value corrected as settings.bias_correction says
/// (BiasCorrection), clamped to the bounds. The interval is left where its method put it.
ParameterEstimate estimate(double value, std::vector<double>& bootstrap, const FitSettings& settings,
                           const ParameterSpace& space) {
  ParameterEstimate e = interval(value, bootstrap, settings, space);
  if (bootstrap.empty()) return e;
  if (settings.bias_correction == BiasCorrection::mean) {
    double sum = 0;
    for (const double b : bootstrap) sum += space.positive ? std::log(b) : b;
    const double mean = sum / static_cast<double>(bootstrap.size());
    e.value = std::clamp(space.positive ? value * value / std::exp(mean) : 2 * value - mean, space.lower, space.upper);
  } else if (settings.bias_correction == BiasCorrection::median) {
    const auto phi = [](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); };
    e.value = std::clamp(percentile_quantile(bootstrap, phi(2 * median_bias_z0(value, bootstrap))), space.lower,
                         space.upper);
  }
  return e;
}

/// Adds `note` to a "; "-separated message.
void append_note(std::string& message, const std::string& note) {
  if (!message.empty()) message += "; ";
  message += note;
}

/// Whether coordinate `i` of `fit` ended on its lower (-1) or upper (+1) bound, or neither (0).
int bound_of(const SingleFit& fit, std::size_t i) {
  const double tolerance = 1e-6 * std::max(1.0, fit.upper[i] - fit.lower[i]);
  if (fit.x[i] - fit.lower[i] <= tolerance) return -1;
  if (fit.upper[i] - fit.x[i] <= tolerance) return +1;
  return 0;
}

/// Notes a fitted coordinate that ended on its bound: the data did not pin that parameter
/// down (E2 at 180 degrees: no growth of the threshold with eccentricity was seen).
void note_bounds(const SingleFit& fit, std::string& message) {
  for (std::size_t i = 0; i < fit.x.size(); ++i) {
    const int bound = bound_of(fit, i);
    const bool rate = static_cast<int>(i) == fit.lapse_index || static_cast<int>(i) == fit.guess_index;
    if (bound == 0 || (rate && bound < 0)) continue;  // no lapses or guesses: the common, unremarkable case
    const char* name = i == 0 ? "threshold_deg"
                       : i == 1 ? "eccentricity_scale_deg"
                       : i == 2 ? "width"
                       : static_cast<int>(i) == fit.lapse_index ? "lapse_rate"
                                                                : "guess_rate";
    append_note(message, std::string(name) + " at its " + (bound < 0 ? "lower" : "upper") + " bound " +
                             format_significant(rate ? fit.x[i] : std::exp(fit.x[i])));
  }
}

/// Draws each trial's answer from `model` in trial order and pools the answers into a copy
/// of `data`'s conditions.
std::vector<Condition> simulate_conditions(const PerceptionModel& model, const PooledData& data, Rng& rng) {
  std::vector<Condition> conditions = data.conditions;
  for (Condition& c : conditions) c.yes = 0;
  for (const int index : data.condition_of_trial) {
    Condition& c = conditions[index];
    if (rng.uniform() < model.probability(c.eccentricity_deg, c.gap_deg)) ++c.yes;
  }
  return conditions;
}

/// One fit of `conditions` as `settings` asks: gamma from the catch trials, or fitted when
/// there are catch trials (without them it is held at 0).
SingleFit fit_data(const std::vector<Condition>& conditions, const FitSettings& settings, int& catch_trials,
                   double held_lapse_rate = 0) {
  const double from_catch = guess_rate_from_catch_trials(conditions, catch_trials);
  if (settings.guess_rate == GuessRateMethod::forced_choice)
    return fit_once(conditions, kForcedChoiceGuessRate, false, settings, held_lapse_rate);
  const bool fit_guess = settings.guess_rate == GuessRateMethod::fitted && catch_trials > 0;
  return fit_once(conditions, from_catch, fit_guess, settings, held_lapse_rate);
}

/// The profile-likelihood interval of lambda at `confidence`: the lambdas whose best fit of
/// the other parameters (lambda held there) has ln L within chi-square(1, confidence) / 2 of
/// `fit`'s, each end found by bisection between the estimate and its bound. On the bound of
/// 0 the likelihood-ratio statistic's law is half a chi-square(1) and half 0, so the interval
/// errs wide there, never narrow.
ParameterEstimate lapse_profile_interval(const std::vector<Condition>& conditions, const SingleFit& fit,
                                         const FitSettings& settings, double confidence) {
  const double estimate = fit.model.lapse_rate;
  const double upper_bound = fit.upper[static_cast<std::size_t>(fit.lapse_index)];
  const double z = normal_quantile(0.5 * (1 + confidence));
  const double floor_log_likelihood = fit.log_likelihood - 0.5 * z * z;
  FitSettings held = settings;
  held.fit_lapse = false;
  const auto inside = [&](double lapse) {
    int catch_trials = 0;
    return fit_data(conditions, held, catch_trials, lapse).log_likelihood >= floor_log_likelihood;
  };
  const auto end_towards = [&](double bound) {
    if (inside(bound)) return bound;
    double in = estimate, out = bound;
    for (int i = 0; i < 14; ++i) {  // 0.06 / 2^14: under 4e-6 of lambda
      const double middle = 0.5 * (in + out);
      (inside(middle) ? in : out) = middle;
    }
    return 0.5 * (in + out);
  };
  ParameterEstimate e;
  e.value = estimate;
  e.ci_low = estimate <= 0 ? 0.0 : end_towards(0.0);
  e.ci_high = estimate >= upper_bound ? upper_bound : end_towards(upper_bound);
  return e;
}

}  // namespace

double normal_quantile(double q) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double z = 0.5 * (lo + hi);
    (0.5 * std::erfc(-z / std::numbers::sqrt2) < q ? lo : hi) = z;
  }
  return 0.5 * (lo + hi);
}

FitResult fit_psychometric(std::span<const TrialOutcome> trials, const FitSettings& settings) {
  check_trials(trials);
  check_settings(settings);
  check_identified(trials);
  const PooledData data = pool(trials);

  FitResult result;
  result.trials = static_cast<int>(trials.size());
  result.bootstrap_samples = settings.bootstrap_samples;
  result.confidence = settings.confidence;
  result.interval = settings.interval;
  result.guess_rate_method = settings.guess_rate;
  result.bias_correction = settings.bootstrap_samples > 0 ? settings.bias_correction : BiasCorrection::none;
  int catch_trials = 0;
  const double from_catch = guess_rate_from_catch_trials(data.conditions, catch_trials);
  result.catch_trials = catch_trials;
  if (settings.guess_rate == GuessRateMethod::forced_choice && catch_trials > 0)
    throw std::invalid_argument("fit_psychometric: forced-choice data has no catch trials (gap 0), but " +
                                std::to_string(catch_trials) +
                                " trials have a gap of 0: a two-interval trial always shows its gap in one interval");
  if (settings.guess_rate == GuessRateMethod::forced_choice)
    append_note(result.message, "forced choice: guess_rate fixed at 1/2");
  else if (result.catch_trials == 0)
    append_note(result.message, "no catch trials (gap 0): guess_rate fixed at 0");
  if (from_catch > kMaxGuessRate && settings.guess_rate == GuessRateMethod::catch_trials)
    throw std::invalid_argument("fit_psychometric: the catch trials give a guess rate of " +
                                format_significant(from_catch) +
                                ", above 0.5 (the most perception.model.guess_rate takes): the observer said yes "
                                "to most gaps of 0");

  const SingleFit fit = fit_data(data.conditions, settings, catch_trials);
  note_bounds(fit, result.message);
  if (!fit.converged) append_note(result.message, "the optimiser did not report convergence");
  result.maximum_likelihood_model = fit.model;
  result.model = fit.model;
  result.log_likelihood = fit.log_likelihood;
  result.deviance = fit.deviance;
  // gamma counts when it comes from the data, fitted or from the catch trials.
  const int free_parameters = static_cast<int>(fit.x.size()) + (fit.guess_index < 0 && result.catch_trials > 0 ? 1 : 0);
  result.deviance_dof = static_cast<int>(data.conditions.size()) - free_parameters;
  result.converged = fit.converged;

  // Parametric bootstrap (Wichmann and Hill 2001, part II; psignifit 2): data sets drawn
  // from the fitted model at the same trials, each refitted exactly as above (gamma
  // fitted, or taken from its own catch trials), give the parameters' sampling distributions
  // and the deviance's distribution when the model is true.
  const PerceptionModel fitted(fit.model);
  std::vector<double> t0s, e2s, widths, lapses, guesses, deviances;
  int not_converged = 0;
  for (int b = 0; b < settings.bootstrap_samples; ++b) {
    Rng rng(settings.seed, static_cast<std::uint64_t>(b) + 1);  // stream 0 is simulate_observer's
    const std::vector<Condition> simulated = simulate_conditions(fitted, data, rng);
    int simulated_catch_trials = 0;
    const SingleFit refit = fit_data(simulated, settings, simulated_catch_trials);
    not_converged += refit.converged ? 0 : 1;
    t0s.push_back(refit.model.threshold_deg);
    e2s.push_back(refit.model.eccentricity_scale_deg);
    widths.push_back(refit.model.width);
    lapses.push_back(refit.model.lapse_rate);
    guesses.push_back(refit.model.guess_rate);
    deviances.push_back(refit.deviance);
    result.bootstrap_models.push_back(refit.model);
  }
  if (not_converged > 0)
    append_note(result.message, std::to_string(not_converged) + " of " + std::to_string(settings.bootstrap_samples) +
                                    " bootstrap refits did not report convergence");
  const ParameterSpace threshold{true, kMinThresholdDeg, kMaxThresholdDeg};
  const ParameterSpace scale{true, kMinScaleDeg, kMaxScaleDeg};
  const ParameterSpace width{true, kMinWidth, kMaxWidth};
  const ParameterSpace lapse{false, 0, fit.lapse_index < 0 ? 0.0 : fit.upper[static_cast<std::size_t>(fit.lapse_index)]};
  const ParameterSpace guess{false, 0, kMaxGuessRate};
  result.threshold_deg = estimate(fit.model.threshold_deg, t0s, settings, threshold);
  result.eccentricity_scale_deg = estimate(fit.model.eccentricity_scale_deg, e2s, settings, scale);
  result.width = estimate(fit.model.width, widths, settings, width);
  result.lapse_rate = estimate(fit.model.lapse_rate, lapses, settings, lapse);
  if (fit.lapse_index >= 0 && !lapses.empty()) {
    const ParameterEstimate profile = lapse_profile_interval(data.conditions, fit, settings, settings.confidence);
    result.lapse_rate.ci_low = profile.ci_low;
    result.lapse_rate.ci_high = profile.ci_high;
    // An adaptive design that keeps its gaps near each threshold barely sees lapses: say so
    // where the number is used, not only in the docs.
    if (profile.ci_low == 0 && profile.ci_high >= fit.upper[static_cast<std::size_t>(fit.lapse_index)])
      append_note(result.message, "the trials do not pin the lapse rate down: its interval is its whole range [0, " +
                                      format_significant(profile.ci_high) + "]");
  }
  result.guess_rate = estimate(fit.model.guess_rate, guesses, settings, guess);
  result.threshold_deg.at_bound = bound_of(fit, 0) != 0;
  result.eccentricity_scale_deg.at_bound = bound_of(fit, 1) != 0;
  result.width.at_bound = bound_of(fit, 2) != 0;
  result.lapse_rate.at_bound = fit.lapse_index < 0 || bound_of(fit, static_cast<std::size_t>(fit.lapse_index)) != 0;
  result.guess_rate.at_bound = fit.guess_index >= 0 && bound_of(fit, static_cast<std::size_t>(fit.guess_index)) != 0;
  // The model is the estimates: bias-corrected when asked, the maximum-likelihood fit's else.
  result.model.threshold_deg = result.threshold_deg.value;
  result.model.eccentricity_scale_deg = result.eccentricity_scale_deg.value;
  result.model.width = result.width.value;
  result.model.lapse_rate = result.lapse_rate.value;
  result.model.guess_rate = result.guess_rate.value;
  if (!(result.model.guess_rate + result.model.lapse_rate < 1)) result.model = fit.model;  // cannot happen within the bounds
  if (deviances.empty()) {
    result.deviance_p = std::numeric_limits<double>::quiet_NaN();
  } else {
    const auto at_least = std::count_if(deviances.begin(), deviances.end(),
                                        [&](double d) { return d >= result.deviance; });
    result.deviance_p = static_cast<double>(at_least) / static_cast<double>(deviances.size());
  }
  return result;
}

ParameterEstimate fit_threshold_alone(const PerceptionModelSettings& model, std::span<const TrialOutcome> trials,
                                      double confidence) {
  if (!(confidence > 0 && confidence < 1))
    throw std::invalid_argument("fit_threshold_alone: confidence must be in (0, 1), not " + format_number(confidence));
  const PerceptionModel checked(model);  // throws for values out of range
  std::vector<Condition> conditions;
  double min_gap = std::numeric_limits<double>::infinity(), max_gap = 0;
  for (const Condition& c : pool(trials).conditions) {
    if (c.eccentricity_deg != trials.front().eccentricity_deg)
      throw std::invalid_argument("fit_threshold_alone: the trials' eccentricities differ");
    if (!(c.gap_deg > 0)) continue;  // f is gamma there whatever T is
    conditions.push_back(c);
    min_gap = std::min(min_gap, c.gap_deg);
    max_gap = std::max(max_gap, c.gap_deg);
  }
  if (conditions.empty()) throw std::invalid_argument("fit_threshold_alone: no trial with a gap");
  // f depends on g / T(e) only: the conditions are evaluated at eccentricity 0 with T0 = T.
  for (Condition& c : conditions) c.eccentricity_deg = 0;
  const auto log_likelihood_at = [&](double log_t) {
    PerceptionModelSettings m = model;
    m.threshold_deg = std::exp(log_t);
    return log_likelihood(PerceptionModel(m), conditions);
  };

  // A grid first, then golden-section search around its best point: the likelihood of a
  // few conditions can have shoulders a local search alone would stop on.
  constexpr int kGrid = 400;
  const double lo = std::log(1e-3 * min_gap), hi = std::log(1e3 * max_gap);
  const double step = (hi - lo) / kGrid;
  std::vector<double> grid(kGrid + 1);
  int best = 0;
  for (int i = 0; i <= kGrid; ++i) {
    grid[static_cast<std::size_t>(i)] = log_likelihood_at(lo + i * step);
    if (grid[static_cast<std::size_t>(i)] > grid[static_cast<std::size_t>(best)]) best = i;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (best == 0 || best == kGrid) return {nan, nan, nan};
  double a = lo + (best - 1) * step, b = lo + (best + 1) * step;
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - golden * (b - a), x2 = a + golden * (b - a);
  double f1 = log_likelihood_at(x1), f2 = log_likelihood_at(x2);
  for (int i = 0; i < 100 && b - a > 1e-12; ++i) {
    if (f1 > f2) {
      b = x2, x2 = x1, f2 = f1;
      x1 = b - golden * (b - a), f1 = log_likelihood_at(x1);
    } else {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + golden * (b - a), f2 = log_likelihood_at(x2);
    }
  }
  const double log_t = 0.5 * (a + b);
  const double peak = std::max(log_likelihood_at(log_t), grid[static_cast<std::size_t>(best)]);

  // chi-square(1) quantile = z^2 with z the (1 + confidence) / 2 normal quantile, found by
  // bisection on erfc (the standard library has no inverse).
  double z_lo = 0, z_hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double z = 0.5 * (z_lo + z_hi);
    (0.5 * std::erfc(z / std::numbers::sqrt2) > 0.5 * (1 - confidence) ? z_lo : z_hi) = z;
  }
  const double lowest = peak - 0.5 * z_lo * z_lo;
  // Walks the grid away from the maximum to the first point below `lowest`, then bisects.
  const auto interval_end = [&](int direction) {
    for (int i = best + direction; i >= 0 && i <= kGrid; i += direction) {
      if (grid[static_cast<std::size_t>(i)] >= lowest) continue;
      // The previous grid point is at or above the floor: the maximum's, or one passed over.
      double inside = lo + (i - direction) * step;
      double outside = lo + i * step;
      for (int k = 0; k < 60; ++k) {
        const double mid = 0.5 * (inside + outside);
        (log_likelihood_at(mid) >= lowest ? inside : outside) = mid;
      }
      return std::exp(0.5 * (inside + outside));
    }
    return nan;
  };
  return {std::exp(log_t), interval_end(-1), interval_end(+1)};
}

double psychometric_log_likelihood(const PerceptionModelSettings& model, std::span<const TrialOutcome> trials) {
  return log_likelihood(PerceptionModel(model), pool(trials).conditions);
}

std::vector<TrialOutcome> simulate_observer(const PerceptionModelSettings& model,
                                            std::span<const TrialOutcome> design, std::uint64_t seed) {
  const PerceptionModel observer(model);
  Rng rng(seed);
  std::vector<TrialOutcome> answered(design.begin(), design.end());
  for (TrialOutcome& t : answered) t.yes = rng.uniform() < observer.probability(t.eccentricity_deg, t.gap_deg);
  return answered;
}

std::string fitted_model_yaml(const FitResult& fit) {
  const auto interval = [&](const ParameterEstimate& p) {
    return "[" + format_significant(p.ci_low, 4) + ", " + format_significant(p.ci_high, 4) + "]";
  };
  const PerceptionModelSettings& m = fit.model;
  const char* interval_name = fit.interval == IntervalMethod::percentile       ? "percentile"
                              : fit.interval == IntervalMethod::bias_corrected ? "bias-corrected percentile"
                                                                               : "basic (reverse percentile)";
  std::string yaml;
  yaml += "# fovea perception model f(e, g), fitted by maximum likelihood (psychophysics/psychometric_fit)";
  yaml += fit.bias_correction == BiasCorrection::median ? ", the estimates median-unbiased from the bootstrap\n"
          : fit.bias_correction == BiasCorrection::mean ? ", the estimates less the bootstrap's mean bias\n"
                                                        : "\n";
  yaml += "# trials: " + std::to_string(fit.trials) + ", of which catch trials (gap 0): " +
          std::to_string(fit.catch_trials) + "\n";
  yaml += "# log likelihood: " + format_significant(fit.log_likelihood, 6) + "; deviance: " +
          format_significant(fit.deviance, 4) + " on " + std::to_string(fit.deviance_dof) +
          " dof, bootstrap p = " + format_significant(fit.deviance_p, 3) + "\n";
  yaml += "# parametric-bootstrap " + format_significant(100 * fit.confidence) + " % " + interval_name + " intervals (" +
          std::to_string(fit.bootstrap_samples) + " samples): threshold_deg " + interval(fit.threshold_deg) +
          ", eccentricity_scale_deg " + interval(fit.eccentricity_scale_deg) + ", width " + interval(fit.width) +
          ", lapse_rate " + interval(fit.lapse_rate) + ", guess_rate " + interval(fit.guess_rate) + "\n";
  const bool forced_choice = fit.guess_rate_method == GuessRateMethod::forced_choice;
  yaml += fit.guess_rate_method == GuessRateMethod::fitted ? "# guess_rate fitted with the others (catch trials in the likelihood)"
          : forced_choice ? "# two-interval forced choice: fitted to P(correct) with guess_rate 1/2 held fixed; written "
                            "with guess_rate 0, the detection function f(e, g) a scheduler weighs (the forced choice's "
                            "guess is the design's, not a false alarm the viewer makes)"
                          : "# guess_rate from the catch trials, (yes + 0.5) / (n + 1)";
  yaml += "; converged: ";
  yaml += fit.converged ? "yes" : "no";
  yaml += "\n";
  if (!fit.message.empty()) yaml += "# note: " + fit.message + "\n";
  yaml += std::string("function: ") + (m.function == PsychometricFunction::logistic ? "logistic" : "weibull") + "\n";
  yaml += "threshold_deg: " + format_number(m.threshold_deg) + "\n";
  yaml += "eccentricity_scale_deg: " + format_number(m.eccentricity_scale_deg) + "\n";
  yaml += "width: " + format_number(m.width) + "\n";
  yaml += "guess_rate: " + format_number(forced_choice ? 0.0 : m.guess_rate) + "\n";
  yaml += "lapse_rate: " + format_number(m.lapse_rate) + "\n";
  return yaml;
}

double percentile_quantile(std::vector<double>& values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

}  // namespace fovea

#pragma once

// Fits fovea's perception model f(e, g) (perception/perception_model.hpp) to yes/no
// detection data by maximum likelihood, with parametric-bootstrap confidence intervals and
// goodness of fit (Wichmann and Hill 2001, "The psychometric function" I and II; psignifit).
// The fitted parameters are PerceptionModelSettings, so the result is what
// `perception.model.file` loads (fitted_model_yaml writes that file).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/kind_table.hpp"
#include "perception/perception_settings.hpp"

namespace fovea {

/// One yes/no trial: was a gap of gap_deg at eccentricity_deg from fixation noticed?
struct TrialOutcome {
  double eccentricity_deg = 0;  ///< >= 0, degrees of visual angle from the fixation point
  double gap_deg = 0;           ///< >= 0, degrees; 0 is a catch trial (nothing to see)
  bool yes = false;             ///< the observer said "I saw a gap"
};

/// Where the guess rate gamma (the share of yes to a gap of 0) comes from.
enum class GuessRateMethod {
  fitted,        ///< a free parameter
  catch_trials,  ///< the catch trials' rate, fixed
  forced_choice  ///< 1/2, fixed: a two-interval forced choice's design (no catch trials)
};

/// GuessRateMethod's names on the command line (`--guess`) and in the outputs, with one line of help each.
inline constexpr auto kGuessRateMethods = kind_table<KindName<GuessRateMethod>>({
    // The catch trials and the gaps too small to see inform it.
    {GuessRateMethod::fitted, "fitted",
     "a free parameter in [0, 0.5], fitted jointly with the others by maximum likelihood: 0 when no catch trial "
     "says yes"},
    {GuessRateMethod::catch_trials, "catch_trials",
     "from the catch trials alone, (yes + 0.5) / (n + 1), held fixed in the fit (never 0 with catch trials)"},
    // The answers are correct or not; a pure guess is right half the time.
    {GuessRateMethod::forced_choice, "forced_choice",
     "1/2, held fixed: two-interval forced-choice data (task.kind 2ifc), the answers correct or not; `fovea fit` "
     "takes it for such data itself"},
});

/// How the bootstrap refits become an interval (Davison and Hinkley 1997, "Bootstrap
/// methods and their application", section 5.2-5.3; Efron and Tibshirani 1993, ch. 13-14).
enum class IntervalMethod {
  percentile,      ///< the refits' own quantiles
  bias_corrected,  ///< the quantiles shifted by z0 (Efron 1981)
  basic            ///< reverse percentile, reflected on the log; percentile for the rates
};

/// IntervalMethod's names on the command line (`--interval`) and in the outputs, with one line of help each.
inline constexpr auto kIntervalMethods = kind_table<KindName<IntervalMethod>>({
    {IntervalMethod::percentile, "percentile", "the (1 - c) / 2 and (1 + c) / 2 quantiles of the refits themselves"},
    // z0 is the normal quantile of the share of refits below the estimate.
    {IntervalMethod::bias_corrected, "bias_corrected",
     "bias-corrected percentile (Efron 1981): the quantiles shifted by z0, which corrects the median bias"},
    // The ML estimate reflected about the refits' quantiles on the log, theta^2 / q_high ..
    // theta^2 / q_low, which carries the estimator's bias and skew into the interval. The
    // rates keep the percentile interval: reflected about their bound of 0 it folds onto the
    // bound ([0, 0] for a guess rate of 0).
    {IntervalMethod::basic, "basic",
     "basic (reverse percentile) for T0, E2 and the width, reflected on the log; percentile for the rates"},
});

/// The methods' names on the command line and in the outputs: "fitted", "catch_trials";
/// "percentile", "bias_corrected", "basic".
constexpr const char* guess_rate_method_name(GuessRateMethod method) { return kind_name(kGuessRateMethods, method); }
/// "percentile", "bias_corrected", "basic".
constexpr const char* interval_method_name(IntervalMethod method) { return kind_name(kIntervalMethods, method); }

/// Whether and how the estimates are corrected for the maximum-likelihood estimator's
/// small-sample bias, from the bootstrap refits (no effect without them).
enum class BiasCorrection { none /**< ML estimate */, mean /**< less the mean bias */, median /**< median-unbiased */ };

/// BiasCorrection's names on the command line (`--bias-correction`) and in the outputs, with one line of help each.
inline constexpr auto kBiasCorrections = kind_table<KindName<BiasCorrection>>({
    {BiasCorrection::none, "none", "the maximum-likelihood estimates"},
    // On the log for T0, E2 and the width (value^2 / the refits' geometric mean), on the
    // value for the rates (2 value - the refits' mean).
    {BiasCorrection::mean, "mean", "the estimate less the refits' mean bias (Efron and Tibshirani 1993, section 10.6)"},
    // z0 is the normal quantile of the share of refits below the estimate: Phi(2 z0) is the
    // point the bias-corrected percentile interval (Efron 1981) puts at its centre, so the
    // estimate and that interval are one construction.
    {BiasCorrection::median, "median", "median-unbiased: the refits' quantile at Phi(2 z0)"},
});

/// "none", "mean", "median".
constexpr const char* bias_correction_name(BiasCorrection correction) {
  return kind_name(kBiasCorrections, correction);
}

/// How fit_psychometric fits. The defaults suit a constant-stimuli yes/no experiment of a
/// few hundred to a few thousand trials (docs/psychophysics.md, "Calibration").
struct FitSettings {
  /// The sigmoid F to fit; fit each and compare deviances to choose.
  PsychometricFunction function = PsychometricFunction::logistic;
  /// Upper bound of lambda: Wichmann and Hill (2001) bound lapses to [0, 0.06]; without a
  /// bound lambda trades off against the width and biases it.
  double max_lapse_rate = 0.06;
  /// false: lambda is held at 0 (one free parameter fewer).
  bool fit_lapse = true;
  /// Parametric-bootstrap data sets for the intervals and deviance_p; each is one refit.
  /// 0: no intervals (ci_low = ci_high = NaN) and deviance_p NaN.
  int bootstrap_samples = 200;
  /// The bootstrap's random stream: the same seed and data give the same intervals.
  std::uint64_t seed = 1;
  /// Coverage of the intervals, in (0, 1).
  double confidence = 0.95;
  /// The defaults are those the calibration at the shipped design chose
  /// (docs/psychophysics.md, "Calibration"): gamma fitted, basic intervals, median-unbiased
  /// estimates.
  GuessRateMethod guess_rate = GuessRateMethod::fitted;
  IntervalMethod interval = IntervalMethod::basic;           ///< how the bootstrap refits become an interval
  BiasCorrection bias_correction = BiasCorrection::median;   ///< how the estimates are corrected from the refits
};

/// A fitted parameter and its parametric-bootstrap interval (FitSettings::interval).
struct ParameterEstimate {
  double value = 0;    ///< the estimate, bias-corrected as FitSettings says; the parameter's unit
  double ci_low = 0;   ///< the interval's lower end; NaN without bootstrap samples
  double ci_high = 0;  ///< its upper end
  /// The estimate lies on one of the fit's bounds (a lapse or guess rate of 0 included):
  /// the data did not pin it inside them.
  bool at_bound = false;
};

/// What fit_psychometric found: the model, the estimates with their intervals, and how
/// well the model describes the data.
struct FitResult {
  /// The estimates as a model, ready for PerceptionModel or fitted_model_yaml (file ""): the
  /// maximum-likelihood model, or with FitSettings::bias_correction its bias-corrected values.
  PerceptionModelSettings model;
  /// The maximum-likelihood model itself, at which log_likelihood, deviance and the
  /// bootstrap's data sets are computed.
  PerceptionModelSettings maximum_likelihood_model;
  ParameterEstimate threshold_deg;           ///< T0, degrees
  ParameterEstimate eccentricity_scale_deg;  ///< E2, degrees
  ParameterEstimate width;                   ///< 5%-to-95% rise in thresholds
  /// lambda; exactly 0 when not fitted. Its interval is the profile-likelihood interval
  /// (ln L, the others refitted at each lambda, within chi-square(1, confidence) / 2 of the
  /// maximum), not the bootstrap's: at the common estimate of 0 the bootstrap's refits all
  /// fall on 0 and its interval on [0, 0] (issue 45).
  ParameterEstimate lapse_rate;
  /// gamma: fitted (GuessRateMethod::fitted, with an interval like the others) or from the
  /// catch trials (catch_trials); 0 without catch trials either way.
  ParameterEstimate guess_rate;
  int catch_trials = 0;  ///< trials with gap 0
  int trials = 0;        ///< all trials, catch trials included
  int bootstrap_samples = 0;  ///< refits behind the intervals and deviance_p (FitSettings')
  double confidence = 0;      ///< coverage of the intervals (FitSettings')
  IntervalMethod interval = IntervalMethod::percentile;       ///< how they were made (FitSettings')
  GuessRateMethod guess_rate_method = GuessRateMethod::fitted;  ///< where gamma came from (FitSettings')
  /// How the estimates were corrected (FitSettings'; none without bootstrap samples).
  BiasCorrection bias_correction = BiasCorrection::none;
  /// ln L of the trials as observed (Bernoulli, no binomial coefficients), catch trials
  /// included, at the maximum-likelihood model.
  double log_likelihood = 0;
  /// 2 (ln L saturated - ln L model) over the distinct (eccentricity, gap) conditions.
  double deviance = 0;
  /// Conditions minus estimated parameters (gamma counts when it comes from catch trials).
  int deviance_dof = 0;
  /// Share of bootstrap deviances >= deviance: small (< 0.05) says the model family does
  /// not describe the data. NaN without bootstrap samples.
  double deviance_p = 0;
  /// true when the best start ended on one of NLopt's success codes.
  bool converged = false;
  /// The bootstrap refits' models, in draw order: intervals of quantities that combine
  /// parameters, such as the threshold T(e) = T0 (1 + e / E2) at one eccentricity, whose T0
  /// and E2 estimates are correlated. Empty without bootstrap samples.
  std::vector<PerceptionModelSettings> bootstrap_models;
  /// What a reader of the fit should know: missing catch trials, parameters at a bound,
  /// bootstrap refits that did not converge. "" when there is nothing to say.
  std::string message;
};

/// The maximum-likelihood fit of f(e, g) to `trials`, gamma from the catch trials, then
/// `settings.bootstrap_samples` parametric-bootstrap refits. Deterministic given the
/// trials and settings. Throws std::invalid_argument for empty trials, no trial with a gap,
/// a non-finite or negative eccentricity or gap, or settings out of range; and for answers
/// that cannot place a threshold, saying why: too few trials (fewer than two with a gap), or
/// no variation in the answers (every trial with a gap answered yes, or every one no: the
/// threshold lies anywhere below the smallest gap, or above the largest). No model is made
/// of such data (docs/psychophysics.md, "A session, step by step", 5).
FitResult fit_psychometric(std::span<const TrialOutcome> trials, const FitSettings& settings);

/// The threshold at one eccentricity on its own: the T that maximises the likelihood of
/// `trials` (all at that eccentricity) with F, the width, gamma and lambda held at `model`'s,
/// and its likelihood-ratio interval (ln L within chi-square(1, confidence) / 2 of the
/// maximum). Each eccentricity's point beside the fitted line T(e) = T0 (1 + e / E2), as in
/// a threshold-versus-eccentricity plot. T is searched from 1e-3 times the smallest gap to
/// 1e3 times the largest: a maximum at either end (every answer yes, or every one no) gives
/// NaN for all three, and an interval end beyond them NaN for that end. Throws
/// std::invalid_argument when no trial has a gap, the trials' eccentricities differ, or
/// `model` or `confidence` (in (0, 1)) is out of range.
ParameterEstimate fit_threshold_alone(const PerceptionModelSettings& model, std::span<const TrialOutcome> trials,
                                      double confidence = 0.95);

/// ln L of `trials` under `model` (as FitResult::log_likelihood: Bernoulli, probabilities
/// clamped to [1e-9, 1 - 1e-9]): to compare a fit with another model, such as the truth.
double psychometric_log_likelihood(const PerceptionModelSettings& model, std::span<const TrialOutcome> trials);

/// The trials of `design` (eccentricities and gaps kept, answers ignored) answered by a
/// simulated observer who says yes with probability f(e, g) of `model`: one uniform draw
/// per trial, in order, from Rng(seed).
std::vector<TrialOutcome> simulate_observer(const PerceptionModelSettings& model,
                                            std::span<const TrialOutcome> design, std::uint64_t seed);

/// The perception-model YAML file of a fit: the keys `perception.model.file` reads
/// (function, threshold_deg, eccentricity_scale_deg, width, guess_rate, lapse_rate) of
/// FitResult::model, with numbers that read back exactly, under a comment header giving
/// the trials, the deviance, the intervals and their method, the bias correction and where
/// gamma came from.
std::string fitted_model_yaml(const FitResult& fit);

/// The standard normal distribution's q-quantile, q in (0, 1), by bisection on erfc (the
/// standard library has no inverse).
double normal_quantile(double q);

/// The q-quantile of `values` (sorted here), interpolating between order statistics
/// (Hyndman and Fan's definition 7, R's default): the bootstrap intervals' percentiles.
double percentile_quantile(std::vector<double>& values, double q);

}  // namespace fovea

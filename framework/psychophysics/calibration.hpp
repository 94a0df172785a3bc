#pragma once

// Simulation-based calibration of the fit of f(e, g) (psychometric_fit.hpp): simulated
// participants, whose true model is known, each run an experiment's design and are fitted
// as `fovea fit` fits a person; over many participants the estimates' bias and the
// intervals' coverage say whether the fit's numbers mean what they claim (Wichmann and
// Hill 2001, "The psychometric function: II. Bootstrap-based confidence intervals and
// sampling", whose simulations this is; Talts et al. 2018, "Validating Bayesian inference
// algorithms with simulation-based calibration", for the name).

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "perception/perception_settings.hpp"
#include "psychophysics/experiment_settings.hpp"
#include "psychophysics/psychometric_fit.hpp"

namespace fovea {

/// The parameters a calibration reports, in this order.
enum class CalibratedParameter {
  threshold_deg,           ///< T0, degrees
  eccentricity_scale_deg,  ///< E2, degrees
  width,                   ///< F's 5 %-to-95 % rise, in thresholds
  lapse_rate,              ///< lambda, probability
  guess_rate               ///< gamma, probability
};
/// How many CalibratedParameter values there are: summarise_calibration's array size.
inline constexpr std::size_t kCalibratedParameters = 5;
/// The name of `p` as a perception-model key: "threshold_deg", ..., "guess_rate".
const char* calibrated_parameter_name(CalibratedParameter p);
/// The parameter of `model` (the truth) or of a fit's estimate.
double parameter_value(const PerceptionModelSettings& model, CalibratedParameter p);
/// `fit`'s estimate of `p`, with its interval (a reference into `fit`).
const ParameterEstimate& parameter_estimate(const FitResult& fit, CalibratedParameter p);

/// One simulated participant's session and fit.
struct CalibrationParticipant {
  int index = 0;              ///< from 0
  std::string name;           ///< "sim0000", ...: the SimulatedObserver's participant
  std::int64_t seed = 0;      ///< the design's seed (the spec's, per participant) and the bootstrap's
  std::vector<TrialOutcome> trials;  ///< the session's answered trials, in the order run
  FitResult fit;              ///< fit_psychometric of `trials`, its bootstrap seeded by `seed`
};

/// Participant `index`'s session: the spec's design through TrialSequence (constant
/// stimuli, staircases, or any other DesignMethod the session runs), answered by a
/// SimulatedObserver of `observer`, then fitted with `fit` (its seed replaced by the
/// participant's; for a two-interval task its guess rate method forced_choice). The participant's seed comes from `seed` and `index` alone, so a
/// participant's result does not depend on which others run or on which thread. Throws
/// std::invalid_argument, naming the participant, when the fit refuses the answers (too few,
/// or all alike: fit_psychometric).
CalibrationParticipant calibrate_participant(const ExperimentSettings& spec, const PerceptionModelSettings& observer,
                                             const FitSettings& fit, std::uint64_t seed, int index);

/// What a fit of `spec`'s sessions answered by `observer` estimates: the observer itself for a
/// yes/no task; for a two-interval one the observer with the forced choice's guess rate of 1/2
/// (the fit holds it there; the observer's own guess rate, its yes/no false alarms, does not
/// enter a forced choice).
PerceptionModelSettings calibration_truth(const ExperimentSettings& spec, const PerceptionModelSettings& observer);

/// A binomial proportion with its Wilson score interval (Wilson 1927, "Probable inference,
/// the law of succession, and statistical inference"; Brown, Cai and DasGupta 2001 recommend
/// it over the Wald interval for the n and p met here).
struct Proportion {
  int successes = 0;  ///< how many of `trials` succeeded (counts)
  int trials = 0;     ///< Bernoulli trials counted
  double value = 0;  ///< successes / trials; NaN without trials
  double low = 0;    ///< the interval's ends at `confidence`
  double high = 0;   ///< upper end; both ends in [0, 1], NaN without trials
};
/// `successes` of `trials` with the Wilson interval at `confidence` (0-1); NaNs for no trials.
Proportion wilson_interval(int successes, int trials, double confidence = 0.95);

/// Over the participants, one parameter: how far the estimates lie from the truth and how
/// often the intervals hold it.
struct ParameterCalibration {
  CalibratedParameter parameter = CalibratedParameter::threshold_deg;  ///< the parameter summarised
  double truth = 0;          ///< the simulated observer's value, in the parameter's unit
  int participants = 0;      ///< with a finite estimate
  double mean = 0;           ///< of the estimates
  double median = 0;         ///< of the estimates; NaN without any
  double mean_bias_percent = 0;    ///< 100 (mean - truth) / truth; NaN when the truth is 0
  double median_bias_percent = 0;  ///< 100 (median - truth) / truth; NaN when the truth is 0
  /// Participants whose interval [ci_low, ci_high] holds the truth, of those with an
  /// interval (none without a bootstrap).
  Proportion coverage;
  double median_interval_width = 0;  ///< median of ci_high - ci_low; NaN without intervals
  int converged = 0;                 ///< fits that reported convergence
  int at_bound = 0;                  ///< estimates on one of the fit's bounds
};

/// What the summary's medians need of one participant's fit once the rest is summed: per
/// CalibratedParameter, its estimate (index 2k) and its interval's width, ci_high - ci_low
/// (2k + 1); NaN for an estimate that is not finite and for a width without an interval.
using CalibrationValues = std::array<double, 2 * kCalibratedParameters>;
/// `fit`'s CalibrationValues.
CalibrationValues calibration_values(const FitResult& fit);

/// Hands every participant's CalibrationValues, in any order, to `each`; called once per pass
/// of the medians' selection (CalibrationSummary::finish), so each time with the same values.
using CalibrationReplay = std::function<void(const std::function<void(const CalibrationValues&)>& each)>;

/// The calibration's summary, kept as participants finish (issue 42: `fovea calibrate
/// --participants 1000000` held every participant's fit, its bootstrap refits included, and
/// ran out of memory). add() sums and counts in the order participants are added (the sums
/// are the same doubles in that order as over a list); finish() finds each median exactly, by
/// selection over eight replays of the values, one byte of the value's bit pattern a pass with
/// 256 counters per median, so what the summary holds does not grow with the participants.
class CalibrationSummary {
 public:
  /// Against the true `observer`.
  explicit CalibrationSummary(const PerceptionModelSettings& observer);
  /// One more participant's fit; the trials and bootstrap refits are not kept.
  void add(const CalibrationParticipant& participant);
  /// Participants added.
  std::int64_t participants() const { return participants_; }
  /// The fewest trials of a participant added (0 before any).
  int trials_min() const { return trials_min_; }
  /// The most trials of a participant added (0 before any).
  int trials_max() const { return trials_max_; }
  /// Per CalibratedParameter, the summary of what was added; `replay` hands back every added
  /// participant's calibration_values() for the medians.
  std::array<ParameterCalibration, kCalibratedParameters> finish(const CalibrationReplay& replay) const;

 private:
  /// One parameter's running sums and counts.
  struct Running {
    double sum = 0;       ///< of the finite estimates, in the order added
    int estimates = 0;    ///< finite estimates
    int covered = 0;      ///< intervals holding the truth
    int with_interval = 0;
    int widths = 0;       ///< interval widths that are numbers (CalibrationValues)
    int converged = 0;
    int at_bound = 0;
  };
  PerceptionModelSettings observer_;
  std::array<Running, kCalibratedParameters> running_{};
  std::int64_t participants_ = 0;
  int trials_min_ = 0, trials_max_ = 0;
};

/// The summary of `participants` against the true `observer`, per CalibratedParameter: a
/// CalibrationSummary of each in order.
std::array<ParameterCalibration, kCalibratedParameters> summarise_calibration(
    const PerceptionModelSettings& observer, const std::vector<CalibrationParticipant>& participants);

/// The k-th smallest (from 0) of the values `series` of CalibrationValues that are not NaN,
/// for each (series, k) asked, found exactly in eight passes over `replay`: the selection
/// CalibrationSummary::finish makes its medians with. Each k must be below the count of
/// such values in its series.
std::vector<double> select_calibration_values(const std::vector<std::pair<std::size_t, std::uint64_t>>& asked,
                                              const CalibrationReplay& replay);

}  // namespace fovea

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"

#include "psychophysics/calibration.hpp"
#include "psychophysics/session.hpp"

using namespace fovea;

namespace {

/// configs/perception/default.yaml's model.
PerceptionModelSettings default_observer() {
  return {.threshold_deg = 0.08, .eccentricity_scale_deg = 1.0, .width = 1.0, .guess_rate = 0.0, .lapse_rate = 0.02};
}

/// configs/experiments/gap_eccentricity.yaml's constant-stimuli design: 520 trials.
ExperimentSettings shipped_design() {
  ExperimentSettings spec;
  spec.constant_stimuli.gaps_deg = {0.02, 0.05, 0.1, 0.2, 0.4, 0.8};
  spec.constant_stimuli.eccentricities_deg = {0, 2, 5, 10};
  spec.constant_stimuli.repetitions = 20;
  spec.constant_stimuli.catch_trials_per_block = 8;
  spec.constant_stimuli.blocks = 5;
  spec.staircase.eccentricities_deg = {0, 2, 5, 10};
  spec.staircase.start_values_deg = {0.5};
  return spec;
}

FitSettings quick_fit() {
  FitSettings s;
  s.bootstrap_samples = 10;
  return s;
}

}  // namespace

TEST_CASE("a calibration participant runs the design's trials through TrialSequence, answered by the simulated "
          "observer",
          "[calibration]") {
  const ExperimentSettings spec = shipped_design();
  const CalibrationParticipant p = calibrate_participant(spec, default_observer(), quick_fit(), 3, 7);
  CHECK(p.index == 7);
  CHECK(p.name == "sim0007");
  REQUIRE(p.trials.size() == 520);
  CHECK(p.fit.trials == 520);
  CHECK(p.fit.catch_trials == 40);

  // The oracle: the session replayed by hand with the participant's seed.
  ExperimentSettings own = spec;
  own.seed = p.seed;
  TrialSequence sequence(own, {});
  const SimulatedObserver observer(default_observer(), static_cast<std::uint64_t>(p.seed), p.name);
  std::size_t i = 0;
  while (const auto trial = sequence.next()) {
    const TrialResponse answer = observer.answer(*trial, 0);
    REQUIRE(i < p.trials.size());
    CHECK(p.trials[i].eccentricity_deg == trial->condition.eccentricity_deg);
    CHECK(p.trials[i].gap_deg == shown_gap_deg(trial->condition));
    CHECK(p.trials[i].yes == (answer == TrialResponse::yes));
    sequence.record(answer);
    ++i;
  }
  CHECK(i == p.trials.size());

  // The fit is fit_psychometric's with the participant's seed, nothing else changed.
  FitSettings settings = quick_fit();
  settings.seed = static_cast<std::uint64_t>(p.seed);
  const FitResult again = fit_psychometric(p.trials, settings);
  CHECK(again.model.threshold_deg == p.fit.model.threshold_deg);
  CHECK(again.width.ci_high == p.fit.width.ci_high);
}

TEST_CASE("a calibration participant depends on the seed and its index only", "[calibration]") {
  const ExperimentSettings spec = shipped_design();
  const CalibrationParticipant a = calibrate_participant(spec, default_observer(), quick_fit(), 3, 2);
  const CalibrationParticipant b = calibrate_participant(spec, default_observer(), quick_fit(), 3, 2);
  const CalibrationParticipant c = calibrate_participant(spec, default_observer(), quick_fit(), 3, 1);
  const CalibrationParticipant d = calibrate_participant(spec, default_observer(), quick_fit(), 4, 2);
  CHECK(a.seed == b.seed);
  CHECK(a.fit.model.width == b.fit.model.width);
  CHECK(a.fit.width.ci_low == b.fit.width.ci_low);
  CHECK(a.seed != c.seed);
  CHECK(a.seed != d.seed);
  CHECK(a.fit.model.width != c.fit.model.width);
}

TEST_CASE("a participant whose answers place no threshold is refused by name, not fitted", "[calibration]") {
  // An observer who sees every gap of the design answers yes to all of them: the fit refuses
  // (issue 42), and the calibration says whose answers.
  PerceptionModelSettings sees_everything = default_observer();
  sees_everything.threshold_deg = 1e-4;
  sees_everything.lapse_rate = 0;
  try {
    (void)calibrate_participant(shipped_design(), sees_everything, quick_fit(), 3, 7);
    FAIL("answers all yes were fitted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()) ==
          "participant sim0007: no variation in the answers: all 480 trials with a gap were answered yes, so the "
          "threshold is not identified: it lies anywhere below the smallest gap shown, 0.02 deg");
  }
}

TEST_CASE("adaptive designs run unchanged: staircases end by their own rule", "[calibration]") {
  ExperimentSettings spec = shipped_design();
  spec.method = DesignMethod::staircase;
  FitSettings settings = quick_fit();
  settings.bootstrap_samples = 0;
  const CalibrationParticipant p = calibrate_participant(spec, default_observer(), settings, 1, 0);
  CHECK(p.fit.catch_trials == 0);
  CHECK(p.trials.size() >= 4 * 40);
  CHECK(std::isnan(p.fit.threshold_deg.ci_low));
}

TEST_CASE("the Wilson interval matches published values", "[calibration]") {
  // 95 of 100 at 95 %: 0.8882 to 0.9785 (Brown, Cai and DasGupta 2001's formula, by hand:
  // centre (0.95 + z^2 / 200) / (1 + z^2 / 100), z = 1.95996).
  const Proportion p = wilson_interval(95, 100);
  CHECK(p.value == 0.95);
  CHECK(p.low == Approx(0.88822).margin(5e-5));
  CHECK(p.high == Approx(0.97847).margin(5e-5));
  // 0 of 10: from 0, and not a zero-width interval.
  const Proportion none = wilson_interval(0, 10);
  CHECK(none.low == 0.0);
  CHECK(none.high == Approx(0.27753).margin(5e-5));
  CHECK(std::isnan(wilson_interval(0, 0).value));
}

TEST_CASE("the calibration summary is the hand computation over its participants", "[calibration]") {
  const PerceptionModelSettings truth = default_observer();
  // Four participants with made-up widths and intervals: 0.8 [0.5, 1.1], 1.2 [1.05, 1.4],
  // 0.9 [0.7, 1.0], 1.0 [0.9, 1.3] (the last at a bound).
  const double values[] = {0.8, 1.2, 0.9, 1.0}, lows[] = {0.5, 1.05, 0.7, 0.9}, highs[] = {1.1, 1.4, 1.0, 1.3};
  std::vector<CalibrationParticipant> participants(4);
  for (int i = 0; i < 4; ++i) {
    participants[i].fit.width = {values[i], lows[i], highs[i], i == 3};
    participants[i].fit.converged = i != 1;
    participants[i].fit.threshold_deg = {0.08, 0.07, 0.09, false};
    participants[i].fit.guess_rate = {0.0, 0.0, 0.01, true};
  }
  const auto summary = summarise_calibration(truth, participants);
  const ParameterCalibration& w = summary[static_cast<std::size_t>(CalibratedParameter::width)];
  CHECK(w.truth == 1.0);
  CHECK(w.participants == 4);
  CHECK(w.mean == Approx(0.975));
  CHECK(w.median == Approx(0.95));
  CHECK(w.mean_bias_percent == Approx(-2.5));
  CHECK(w.median_bias_percent == Approx(-5.0));
  CHECK(w.coverage.successes == 3);  // [1.05, 1.4] misses 1.0; [0.7, 1.0] holds it at its end
  CHECK(w.coverage.trials == 4);
  CHECK(w.median_interval_width == Approx(0.375));  // widths 0.6, 0.35, 0.3, 0.4
  CHECK(w.converged == 3);
  CHECK(w.at_bound == 1);
  const ParameterCalibration& g = summary[static_cast<std::size_t>(CalibratedParameter::guess_rate)];
  CHECK(g.truth == 0.0);
  CHECK(std::isnan(g.mean_bias_percent));
  CHECK(g.coverage.successes == 4);
  CHECK(g.at_bound == 4);
  CHECK(summary[0].coverage.successes == 4);
  CHECK(summary[0].mean_bias_percent == Approx(0.0).margin(1e-12));
}

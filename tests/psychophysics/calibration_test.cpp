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

TEST_CASE("the medians' selection over replays is the sort's, for every rank, without holding the values",
          "[calibration]") {
  // CalibrationSummary keeps sums and counts, not the values: its medians are found by a
  // radix selection over replays of them (issue 42: a million participants held in memory ran
  // out of it). Against std::sort on values with negatives, both zeros, ties, NaN gaps and
  // the largest and smallest doubles.
  Rng rng(42, 1);
  std::vector<CalibrationValues> rows(301);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t s = 0; s < rows[i].size(); ++s) {
      const double u = rng.uniform();
      double v = std::ldexp(rng.uniform(-1.0, 1.0), static_cast<int>(rng.below(200)) - 100);
      if (u < 0.1) v = 0.0;
      else if (u < 0.15) v = -0.0;
      else if (u < 0.25) v = 0.02;  // ties
      else if (u < 0.3) v = std::numeric_limits<double>::quiet_NaN();
      else if (u < 0.31) v = std::numeric_limits<double>::max();
      else if (u < 0.32) v = -std::numeric_limits<double>::denorm_min();
      rows[i][s] = v;
    }
  int passes = 0;
  const CalibrationReplay replay = [&](const std::function<void(const CalibrationValues&)>& each) {
    ++passes;
    for (const CalibrationValues& r : rows) each(r);
  };
  for (std::size_t s = 0; s < std::tuple_size_v<CalibrationValues>; ++s) {
    std::vector<double> sorted;
    for (const CalibrationValues& r : rows)
      if (!std::isnan(r[s])) sorted.push_back(r[s]);
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::pair<std::size_t, std::uint64_t>> asked;
    for (std::size_t k = 0; k < sorted.size(); ++k) asked.push_back({s, k});
    passes = 0;
    const std::vector<double> found = select_calibration_values(asked, replay);
    CHECK(passes == 8);
    REQUIRE(found.size() == sorted.size());
    for (std::size_t k = 0; k < sorted.size(); ++k) CHECK(found[k] == sorted[k]);  // -0 == +0 for the sort too
  }
  CHECK_THROWS_AS(select_calibration_values({{0, rows.size()}}, replay), std::invalid_argument);
}

TEST_CASE("the calibration summary kept as participants finish is the summary of the list", "[calibration]") {
  // summarise_calibration over a list and CalibrationSummary fed one participant at a time
  // with a replay agree to the bit, odd and even counts alike.
  const PerceptionModelSettings truth = default_observer();
  std::vector<CalibrationParticipant> participants;
  for (int i = 0; i < 7; ++i) participants.push_back(calibrate_participant(shipped_design(), truth, quick_fit(), 3, i));
  for (const std::size_t n : {std::size_t{6}, std::size_t{7}}) {
    const std::vector<CalibrationParticipant> some(participants.begin(), participants.begin() + static_cast<std::ptrdiff_t>(n));
    CalibrationSummary running(truth);
    std::vector<CalibrationValues> values;
    for (const CalibrationParticipant& p : some) {
      running.add(p);
      values.push_back(calibration_values(p.fit));
    }
    CHECK(running.participants() == static_cast<std::int64_t>(n));
    CHECK(running.trials_min() == 520);
    CHECK(running.trials_max() == 520);
    const auto kept = running.finish([&](const std::function<void(const CalibrationValues&)>& each) {
      for (const CalibrationValues& v : values) each(v);
    });
    const auto listed = summarise_calibration(truth, some);
    for (std::size_t k = 0; k < kCalibratedParameters; ++k) {
      INFO(calibrated_parameter_name(static_cast<CalibratedParameter>(k)) << ", " << n << " participants");
      std::vector<double> estimates, widths;
      for (const CalibrationParticipant& p : some) {
        const ParameterEstimate& e = parameter_estimate(p.fit, static_cast<CalibratedParameter>(k));
        estimates.push_back(e.value);
        widths.push_back(e.ci_high - e.ci_low);
      }
      std::sort(estimates.begin(), estimates.end());
      std::sort(widths.begin(), widths.end());
      const auto median = [](const std::vector<double>& v) {
        return v.size() % 2 == 1 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
      };
      CHECK(kept[k].median == median(estimates));
      CHECK(kept[k].median_interval_width == median(widths));
      CHECK(kept[k].median == listed[k].median);
      CHECK(kept[k].mean == listed[k].mean);
      CHECK(kept[k].coverage.successes == listed[k].coverage.successes);
      CHECK(kept[k].converged == listed[k].converged);
    }
  }
}

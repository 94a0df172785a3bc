#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "perception/perception_model.hpp"

using namespace fovea;

namespace {

PerceptionModelSettings model_settings(PsychometricFunction function, double width = 1.0, double guess = 0.1,
                                       double lapse = 0.05) {
  PerceptionModelSettings s;
  s.function = function;
  s.threshold_deg = 0.08;
  s.eccentricity_scale_deg = 1.5;
  s.width = width;
  s.guess_rate = guess;
  s.lapse_rate = lapse;
  return s;
}

/// The gap at which F (the model without guesses and lapses) reaches `level`, found by
/// bisection on the model itself: the oracle knows only that F rises.
double gap_at(const PerceptionModel& model, double eccentricity_deg, double level) {
  double lo = 0, hi = model.threshold_deg(eccentricity_deg);
  while (model.probability(eccentricity_deg, hi) < level) hi *= 2;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (model.probability(eccentricity_deg, mid) < level ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

const PsychometricFunction kFunctions[] = {PsychometricFunction::logistic, PsychometricFunction::weibull};

}  // namespace

TEST_CASE("the threshold grows linearly with eccentricity, doubling at E2", "[perception_model]") {
  const PerceptionModel model(model_settings(PsychometricFunction::logistic));
  CHECK(model.threshold_deg(0.0) == Approx(0.08).epsilon(1e-15));
  CHECK(model.threshold_deg(1.5) == Approx(0.16).epsilon(1e-15));
  CHECK(model.threshold_deg(15.0) == Approx(0.88).epsilon(1e-15));
}

TEST_CASE("at the threshold f is halfway between gamma and 1 - lambda", "[perception_model]") {
  for (const PsychometricFunction function : kFunctions) {
    for (const double width : {0.4, 1.0, 3.0}) {
      const PerceptionModel model(model_settings(function, width));
      for (const double e : {0.0, 0.7, 5.0, 30.0})
        CHECK(model.probability(e, model.threshold_deg(e)) == Approx(0.1 + (1 - 0.1 - 0.05) / 2).epsilon(1e-12));
    }
  }
}

TEST_CASE("the rise from 5% to 95% spans width times the threshold", "[perception_model]") {
  // The logistic's 5% point lies at g = T (1 - width / 2), so widths of 2 and more put it
  // at negative gaps, which do not exist; the Weibull's lies above 0 at every width.
  const std::pair<PsychometricFunction, double> cases[] = {
      {PsychometricFunction::logistic, 0.2}, {PsychometricFunction::logistic, 1.0},
      {PsychometricFunction::logistic, 1.9}, {PsychometricFunction::weibull, 0.2},
      {PsychometricFunction::weibull, 1.0},  {PsychometricFunction::weibull, 2.5},
      {PsychometricFunction::weibull, 8.0}};
  for (const auto& [function, width] : cases) {
    {
      const PerceptionModel model(model_settings(function, width, 0.0, 0.0));
      for (const double e : {0.0, 2.0, 20.0}) {
        const double span_deg = gap_at(model, e, 0.95) - gap_at(model, e, 0.05);
        CHECK(span_deg == Approx(width * model.threshold_deg(e)).epsilon(1e-9));
      }
    }
  }
}

TEST_CASE("f rises with the gap and falls with eccentricity", "[perception_model]") {
  for (const PsychometricFunction function : kFunctions) {
    const PerceptionModel model(model_settings(function, 1.3));
    for (double e = 0; e <= 40; e += 0.5) {
      double previous = model.probability(e, 0.0);
      for (double g = 0.001; g <= 5; g *= 1.1) {
        const double f = model.probability(e, g);
        CHECK(f >= previous);
        CHECK(f <= model.probability(e - 0.5, g));  // e - 0.5 < 0 counts as 0
        previous = f;
      }
    }
    // And strictly somewhere: far from both limits the function moves.
    CHECK(model.probability(0.0, 0.1) > model.probability(0.0, 0.06));
    CHECK(model.probability(1.0, 0.1) < model.probability(0.0, 0.1));
  }
}

TEST_CASE("f runs from gamma at no gap to 1 - lambda at an enormous one", "[perception_model]") {
  for (const PsychometricFunction function : kFunctions) {
    const PerceptionModel model(model_settings(function, 1.0, 0.1, 0.05));
    for (const double e : {0.0, 3.0, 50.0}) {
      CHECK(model.probability(e, 0.0) == 0.1);
      CHECK(model.probability(e, -1.0) == 0.1);
      CHECK(model.probability(e, 1e6) == Approx(0.95).epsilon(1e-12));
      CHECK(model.probability(e, 1e6) <= 0.95);
    }
  }
  // The Weibull starts from F(0) = 0, so tiny gaps give barely more than gamma.
  const PerceptionModel weibull(model_settings(PsychometricFunction::weibull, 1.0, 0.1, 0.05));
  CHECK(weibull.probability(0.0, 1e-6) == Approx(0.1).margin(1e-12).epsilon(0));
}

TEST_CASE("parameters out of range are refused by name", "[perception_model]") {
  using Catch::Matchers::Contains;
  const auto refuses = [](PerceptionModelSettings s, const char* name) {
    CHECK_THROWS_AS(PerceptionModel(s), std::invalid_argument);
    CHECK_THROWS_WITH(PerceptionModel(s), Contains(name));
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PerceptionModelSettings s = model_settings(PsychometricFunction::weibull);
  for (const double bad : {0.0, -0.1, nan}) {
    PerceptionModelSettings t = s;
    t.threshold_deg = bad;
    refuses(t, "perception.model.threshold_deg");
    t = s;
    t.eccentricity_scale_deg = bad;
    refuses(t, "perception.model.eccentricity_scale_deg");
    t = s;
    t.width = bad;
    refuses(t, "perception.model.width");
  }
  PerceptionModelSettings t = s;
  t.guess_rate = -0.01;
  refuses(t, "perception.model.guess_rate");
  t = s;
  t.lapse_rate = -0.01;
  refuses(t, "perception.model.lapse_rate");
  t = s;
  t.guess_rate = 0.5;
  t.lapse_rate = 0.5;
  refuses(t, "perception.model.guess_rate + perception.model.lapse_rate");
  CHECK_NOTHROW(PerceptionModel(PerceptionModelSettings{}));
  CHECK_NOTHROW(PerceptionModel(model_settings(PsychometricFunction::weibull, 1e-9, 0.0, 0.0)));
  CHECK_NOTHROW(PerceptionModel(model_settings(PsychometricFunction::weibull, 1e9, 0.0, 0.0)));
}

TEST_CASE("probabilities gives probability's doubles, bit for bit", "[perception_model]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> e, g;
  for (int i = 0; i < 150; ++i) {  // more than one chunk of 64, and a partial one
    e.push_back(i % 9 == 0 ? -0.5 * i : 0.37 * i);
    g.push_back(i % 7 == 0 ? 0.0 : 0.004 * i * (1 + (i % 5)));
  }
  for (const auto& [ee, gg] : {std::pair{0.0, -1.0}, std::pair{nan, 0.1}, std::pair{0.5, nan}, std::pair{inf, 0.1},
                               std::pair{0.5, inf}, std::pair{0.0, 1e-300}, std::pair{-0.0, 0.08}, std::pair{1e300, 1e300}}) {
    e.push_back(ee);
    g.push_back(gg);
  }
  for (const PsychometricFunction function : {PsychometricFunction::logistic, PsychometricFunction::weibull})
    for (const double width : {0.3, 1.0, 2.5}) {
      const PerceptionModel model(model_settings(function, width));
      std::vector<double> out(e.size(), -7.0);
      model.probabilities(e.data(), g.data(), out.data(), e.size());
      for (std::size_t i = 0; i < e.size(); ++i) {
        const double one = model.probability(e[i], g[i]);
        INFO("e " << e[i] << ", g " << g[i]);
        if (std::isnan(one)) CHECK(std::isnan(out[i]));
        else CHECK(std::bit_cast<std::uint64_t>(out[i]) == std::bit_cast<std::uint64_t>(one));
      }
    }
}

// docs/psychophysics.md, "Reading fovea's data in psignifit and Palamedes": fovea's f(e, g)
// written as psignifit 4's and Palamedes' psychometric functions, with the parameters the doc
// maps fovea's to. Each tool's function is written out here as its code defines it (psignifit
// 4's private/getSigmoidHandle.m, Palamedes' PAL_Logistic.m and PAL_Weibull.m), evaluated at
// the mapped parameters, and compared with fovea's own (perception/perception_model.hpp): at
// psignifit's 5 % and 95 % points, where fovea's f must be 5 % and 95 % of its rise, and
// over a range of gaps, where the functions must agree.

#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>

#include "perception/perception_model.hpp"

using namespace fovea;

namespace {

/// psignifit 4's widthalpha and threshPC defaults: the width spans 5 % to 95 % of the
/// sigmoid, the threshold is its 50 % point.
constexpr double kWidthAlpha = 0.05;
constexpr double kThresholdPc = 0.5;

/// psignifit 4's 'logistic' sigmoid at x, threshold m and width w (stimulus units).
double psignifit_logistic(double x, double m, double w) {
  return 1 / (1 + std::exp(-2 * std::log(1 / kWidthAlpha - 1) / w * (x - m) + std::log(1 / kThresholdPc - 1)));
}

/// C of psignifit 4's 'weibull': ln(-ln alpha) - ln(-ln(1 - alpha)).
double psignifit_weibull_c() { return std::log(-std::log(kWidthAlpha)) - std::log(-std::log(1 - kWidthAlpha)); }

/// psignifit 4's 'weibull' sigmoid at x, threshold m and width w, both on the natural log
/// of the stimulus.
double psignifit_weibull(double x, double m, double w) {
  return 1 - std::exp(-std::exp(psignifit_weibull_c() / w * (std::log(x) - m) + std::log(-std::log(1 - kThresholdPc))));
}

/// The x at which psignifit's logistic is p: its inverse, solved from the formula above.
double psignifit_logistic_inverse(double p, double m, double w) {
  return m + w / (2 * std::log(1 / kWidthAlpha - 1)) * (std::log(1 / kThresholdPc - 1) - std::log(1 / p - 1));
}

/// The x at which psignifit's Weibull is p.
double psignifit_weibull_inverse(double p, double m, double w) {
  return std::exp(m + w / psignifit_weibull_c() * (std::log(-std::log(1 - p)) - std::log(-std::log(1 - kThresholdPc))));
}

/// Palamedes' PAL_Logistic and PAL_Weibull with guess rate gamma and lapse rate lambda.
double pal_logistic(double x, double alpha, double beta, double gamma, double lambda) {
  return gamma + (1 - gamma - lambda) / (1 + std::exp(-beta * (x - alpha)));
}
double pal_weibull(double x, double alpha, double beta, double gamma, double lambda) {
  return gamma + (1 - gamma - lambda) * (1 - std::exp(-std::pow(x / alpha, beta)));
}

/// The doc's Weibull shape k for fovea's `width`: (ln 20 / ln 2)^(1/k) - (ln(20/19) /
/// ln 2)^(1/k) = width, solved by plain bisection on k (the left side falls as k grows).
double weibull_shape(double width) {
  const auto span = [](double k) {
    return std::pow(std::log(20.0) / std::numbers::ln2, 1 / k) - std::pow(std::log(20.0 / 19.0) / std::numbers::ln2, 1 / k);
  };
  double lo = 1e-3, hi = 1e3;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (span(mid) > width ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

TEST_CASE("Tool parameters: fovea's f is psignifit's and Palamedes' function at the mapped parameters",
          "[psychophysics][perception][tools]") {
  for (const PsychometricFunction function : {PsychometricFunction::logistic, PsychometricFunction::weibull})
    for (const double width : {0.5, 1.0, 2.5})
      for (const double eccentricity_deg : {0.0, 4.0, 12.5}) {
        const PerceptionModelSettings settings{.function = function, .threshold_deg = 0.08, .eccentricity_scale_deg = 1.0,
                                               .width = width, .guess_rate = 0.03, .lapse_rate = 0.02};
        const PerceptionModel model(settings);
        const double gamma = settings.guess_rate, lambda = settings.lapse_rate;
        const double t = model.threshold_deg(eccentricity_deg);
        INFO((function == PsychometricFunction::logistic ? "logistic" : "weibull") << ", width " << width << ", e "
                                                                                      << eccentricity_deg);
        // The share of the rise from gamma to 1 - lambda that f reaches at gap g.
        const auto rise = [&](double g) { return (model.probability(eccentricity_deg, g) - gamma) / (1 - gamma - lambda); };
        double m = 0, w = 0, low = 0, high = 0;
        if (function == PsychometricFunction::logistic) {
          // The doc's map: psignifit threshold T(e) and width width * T(e), degrees; Palamedes
          // alpha T(e), beta 2 ln 19 / (width T(e)) per degree.
          m = t;
          w = width * t;
          low = psignifit_logistic_inverse(kWidthAlpha, m, w);
          high = psignifit_logistic_inverse(1 - kWidthAlpha, m, w);
          CHECK(low == Approx(t - w / 2).epsilon(1e-12));
          const double beta = 2 * std::log(19.0) / (width * t);
          for (double g = t / 20; g < 6 * t; g *= 1.07) {
            CHECK(rise(g) == Approx(psignifit_logistic(g, m, w)).margin(1e-12));
            CHECK(model.probability(eccentricity_deg, g) == Approx(pal_logistic(g, t, beta, gamma, lambda)).margin(1e-12));
          }
        } else {
          // psignifit threshold ln T(e) and width C / k (natural-log units); Palamedes alpha
          // T(e) / (ln 2)^(1/k), beta k.
          const double k = weibull_shape(width);
          m = std::log(t);
          w = psignifit_weibull_c() / k;
          low = psignifit_weibull_inverse(kWidthAlpha, m, w);
          high = psignifit_weibull_inverse(1 - kWidthAlpha, m, w);
          CHECK(w == Approx(std::log(high / low)).epsilon(1e-12));  // the width is ln(g95 / g05)
          CHECK(high - low == Approx(width * t).epsilon(1e-9));      // fovea's width, in thresholds
          const double alpha = t / std::pow(std::numbers::ln2, 1 / k);
          for (double g = t / 20; g < 6 * t; g *= 1.07) {
            CHECK(rise(g) == Approx(psignifit_weibull(g, m, w)).margin(1e-9));
            CHECK(model.probability(eccentricity_deg, g) == Approx(pal_weibull(g, alpha, k, gamma, lambda)).margin(1e-9));
          }
        }
        // fovea's f at psignifit's two points: 5 % and 95 % of its rise, and half at T(e). A
        // logistic wider than 2 thresholds puts its 5 % point below a gap of 0, where fovea's
        // f is gamma (no gap, nothing to see): the doc says so.
        if (low > 0)
          CHECK(rise(low) == Approx(0.05).margin(1e-9));
        else
          CHECK((function == PsychometricFunction::logistic && width > 2));
        CHECK(rise(high) == Approx(0.95).margin(1e-9));
        CHECK(rise(t) == Approx(0.5).margin(1e-12));
        CHECK(high - low == Approx(width * t).epsilon(1e-9));
      }
}

TEST_CASE("Tool parameters: the doc's worked example, the default model at 4 degrees", "[psychophysics][perception][tools]") {
  // configs/perception/default.yaml: logistic, T0 0.08, E2 1, width 1, gamma 0, lambda 0.02.
  const PerceptionModel model(PerceptionModelSettings{.function = PsychometricFunction::logistic, .threshold_deg = 0.08,
                                                      .eccentricity_scale_deg = 1.0, .width = 1.0, .guess_rate = 0.0,
                                                      .lapse_rate = 0.02});
  CHECK(model.threshold_deg(4) == Approx(0.4).epsilon(1e-15));
  // psignifit: threshold 0.4, width 0.4, so its 5 % and 95 % points are 0.2 and 0.6 degrees,
  // where f is 0.05 x 0.98 = 0.049 and 0.95 x 0.98 = 0.931.
  CHECK(model.probability(4, 0.2) == Approx(0.049).margin(1e-12));
  CHECK(model.probability(4, 0.6) == Approx(0.931).margin(1e-12));
  // Palamedes: alpha 0.4, beta 2 ln 19 / 0.4 = 14.72 per degree.
  CHECK(2 * std::log(19.0) / 0.4 == Approx(14.7222).margin(5e-5));
  CHECK(model.probability(4, 0.5) == Approx(pal_logistic(0.5, 0.4, 2 * std::log(19.0) / 0.4, 0, 0.02)).margin(1e-12));
  // The same model with function: weibull: k 3.663; psignifit threshold ln 0.4 = -0.916 and
  // width C / k = 4.0674 / 3.663 = 1.110; Palamedes alpha 0.442, beta 3.663.
  const double k = weibull_shape(1.0);
  CHECK(k == Approx(3.663).margin(5e-4));
  CHECK(psignifit_weibull_c() == Approx(4.0674).margin(5e-5));
  CHECK(std::log(0.4) == Approx(-0.916).margin(5e-4));
  CHECK(psignifit_weibull_c() / k == Approx(1.110).margin(5e-4));
  CHECK(0.4 / std::pow(std::numbers::ln2, 1 / k) == Approx(0.442).margin(5e-4));
}

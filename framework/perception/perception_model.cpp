#include "perception/perception_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

#include "core/format.hpp"

namespace fovea {
namespace {

/// F at the ends of the rise that `width` spans.
constexpr double kLowF = 0.05;
constexpr double kHighF = 0.95;

[[noreturn]] void out_of_range(const char* key, const char* range, double value) {
  throw std::invalid_argument(std::string("perception.model.") + key + " must be " + range + ", not " +
                              format_number(value));
}

/// (g95 - g05) / T of the Weibull 1 - exp(-ln 2 * (g / T)^k): the g at which F = p is
/// T * (-ln(1 - p) / ln 2)^(1 / k). Written as exp(lb / k) * expm1((la - lb) / k) so that
/// it stays accurate when k is large and the two roots nearly coincide.
double weibull_width(double shape) {
  const double la = std::log(-std::log1p(-kHighF) / std::numbers::ln2);
  const double lb = std::log(-std::log1p(-kLowF) / std::numbers::ln2);
  return std::exp(lb / shape) * std::expm1((la - lb) / shape);
}

/// The Weibull shape k whose 5%-to-95% rise spans `width` thresholds. weibull_width falls
/// strictly from infinity (k -> 0) to 0 (k -> infinity), so one k fits any finite width
/// > 0; bisection on log k finds it to the last bits (k is about 3.66 at width 1).
double weibull_shape_for_width(double width) {
  double lo = 1.0, hi = 1.0;
  while (weibull_width(lo) < width) lo *= 0.5;
  while (weibull_width(hi) > width) hi *= 2.0;
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-15; ++i) {
    const double mid = lo * std::sqrt(hi / lo);  // the geometric mean, without overflowing
    (weibull_width(mid) > width ? lo : hi) = mid;
  }
  return lo * std::sqrt(hi / lo);
}

}  // namespace

PerceptionModel::PerceptionModel(const PerceptionModelSettings& settings) : settings_(settings) {
  const PerceptionModelSettings& s = settings;
  if (!(std::isfinite(s.threshold_deg) && s.threshold_deg > 0))
    out_of_range("threshold_deg", "a finite number > 0", s.threshold_deg);
  if (!(std::isfinite(s.eccentricity_scale_deg) && s.eccentricity_scale_deg > 0))
    out_of_range("eccentricity_scale_deg", "a finite number > 0", s.eccentricity_scale_deg);
  if (!(std::isfinite(s.width) && s.width > 0)) out_of_range("width", "a finite number > 0", s.width);
  if (!(s.guess_rate >= 0 && s.guess_rate < 1)) out_of_range("guess_rate", "in [0, 1)", s.guess_rate);
  if (!(s.lapse_rate >= 0 && s.lapse_rate < 1)) out_of_range("lapse_rate", "in [0, 1)", s.lapse_rate);
  if (!(s.guess_rate + s.lapse_rate < 1))
    throw std::invalid_argument("perception.model.guess_rate + perception.model.lapse_rate must be < 1, not " +
                                format_number(s.guess_rate + s.lapse_rate));

  threshold_slope_ = s.threshold_deg / s.eccentricity_scale_deg;
  range_ = 1 - s.guess_rate - s.lapse_rate;
  // Logistic: F = 0.05 and 0.95 where (g / T - 1) * scale = -+ln 19, so the span is
  // 2 ln 19 / scale thresholds.
  logistic_scale_ = 2 * std::log(19.0) / s.width;
  // Only the Weibull reads its shape; the bisection is most of a construction, and the fit
  // constructs a model for every likelihood it evaluates.
  if (s.function == PsychometricFunction::weibull) weibull_shape_ = weibull_shape_for_width(s.width);
}

PerceptionModel PerceptionModel::without_eccentricity() const {
  // T(e) = T0 + 0 * max(e, 0) is T0 itself for every finite e, so below the cap f_blind(e, g)
  // and f(0, g) are the same expressions on the same doubles (probabilities() calls
  // probability() for the blind model).
  PerceptionModel blind = *this;
  blind.threshold_slope_ = 0.0;
  blind.blind_ = true;
  return blind;
}

namespace {

/// The blind model's cap below the ceiling: strictly increasing in g, within 1e-9 of it.
inline double blind_cap(double ceiling, double gap_deg, double threshold_deg) {
  return ceiling - 1e-9 / (1 + gap_deg / threshold_deg);
}

}  // namespace

double PerceptionModel::threshold_deg(double eccentricity_deg) const {
  return settings_.threshold_deg + threshold_slope_ * std::max(eccentricity_deg, 0.0);
}

double PerceptionModel::probability(double eccentricity_deg, double gap_deg) const {
  // 004 section 3.4.2: f(e, g) weights each collision by how likely its gap is seen.
  // No gap, nothing to notice: exactly gamma, also for the logistic, whose F(0) is small
  // but not 0 (1 / (1 + 19^(2 / width)), 0.0028 at width 1).
  if (!(gap_deg > 0)) return settings_.guess_rate;
  const double ratio = gap_deg / threshold_deg(eccentricity_deg);
  double rise;
  if (settings_.function == PsychometricFunction::logistic) {
    rise = 1 / (1 + std::exp(-(ratio - 1) * logistic_scale_));
  } else {
    // The Weibull's F(0) = 0 exactly, so it meets gamma at g = 0 without the jump.
    rise = -std::expm1(-std::numbers::ln2 * std::pow(ratio, weibull_shape_));
  }
  const double f = settings_.guess_rate + range_ * rise;
  return blind_ ? std::min(f, blind_cap(settings_.guess_rate + range_, gap_deg, settings_.threshold_deg)) : f;
}

void PerceptionModel::probabilities(const double* eccentricity_deg, const double* gap_deg, double* out,
                                    std::size_t n) const {
  if (settings_.function != PsychometricFunction::logistic || blind_) {
    for (std::size_t i = 0; i < n; ++i) out[i] = probability(eccentricity_deg[i], gap_deg[i]);
    return;
  }
  // probability()'s expressions in three passes: the exponent, exp, the rise. No gap (or
  // NaN) is gamma, as there; its exp is skipped.
  constexpr std::size_t kChunk = 64;
  const double t0 = settings_.threshold_deg, slope = threshold_slope_, scale = logistic_scale_;
  const double guess = settings_.guess_rate, range = range_;
  double x[kChunk];
  for (std::size_t begin = 0; begin < n; begin += kChunk) {
    const std::size_t m = std::min(kChunk, n - begin);
    const double* __restrict e = eccentricity_deg + begin;
    const double* __restrict g = gap_deg + begin;
    double* __restrict f = out + begin;
    for (std::size_t i = 0; i < m; ++i) {
      const double threshold = t0 + slope * (e[i] < 0.0 ? 0.0 : e[i]);  // std::max(e, 0.0)
      x[i] = -(g[i] / threshold - 1) * scale;
    }
    for (std::size_t i = 0; i < m; ++i) x[i] = g[i] > 0 ? std::exp(x[i]) : 0.0;
    for (std::size_t i = 0; i < m; ++i) {
      const double p = guess + range * (1 / (1 + x[i]));
      f[i] = g[i] > 0 ? p : guess;
    }
  }
}

}  // namespace fovea

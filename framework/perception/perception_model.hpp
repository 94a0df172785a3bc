#pragma once

#include <cstddef>

#include "perception/perception_settings.hpp"

namespace fovea {

/// f(e, g): the probability that a viewer notices a gap of g degrees at an eccentricity of
/// e degrees from the fixation point (004 section 3.4.2, figure 3), as a psychometric
/// function whose threshold grows linearly with eccentricity:
///
///   f = gamma + (1 - gamma - lambda) * F(g; T(e), width),   T(e) = T0 * (1 + e / E2)
///
/// F is a logistic or a Weibull with F(T) = 0.5 and a 5%-to-95% rise spanning width * T.
/// docs/perception.md gives the parameters' defaults and where they come from.
class PerceptionModel {
 public:
  /// Throws std::invalid_argument when a parameter is out of its range (the config checks
  /// ranges first; this guards other callers).
  explicit PerceptionModel(const PerceptionModelSettings& settings);

  /// T(e) in degrees. A negative eccentricity counts as 0.
  double threshold_deg(double eccentricity_deg) const;
  /// f(e, g), in [gamma, 1 - lambda]; non-decreasing in g, non-increasing in e. A gap of
  /// 0 (or less) gives gamma. One exp (logistic) or one pow and one exp (Weibull), no
  /// allocation: called for every collision every frame.
  double probability(double eccentricity_deg, double gap_deg) const;
  /// f(e, g) of `n` gaps: out[i] = probability(eccentricity_deg[i], gap_deg[i]), the same
  /// doubles, with the logistic's arithmetic around each exp done over the whole arrays
  /// (vectorised) and only exp called one at a time. The Weibull calls probability().
  void probabilities(const double* eccentricity_deg, const double* gap_deg, double* out, std::size_t n) const;

  /// The parameters as given (after the file, if any, was read by config/).
  const PerceptionModelSettings& settings() const { return settings_; }

  /// The gaze-blind control's model (schedule.gaze: blind; docs/gaze.md, "The gaze-blind
  /// control"): f with its eccentricity term removed, as if every gap lay at the fixation
  /// point: f_blind(e, g) = min(f(0, g), ceiling - 1e-9 / (1 + g / T0)), ceiling = 1 - lambda.
  /// The second term keeps it strictly increasing in g where f(0, g) rounds to its ceiling
  /// (beyond about 7 thresholds for the logistic), so that its order is the gap's order
  /// everywhere; it moves no value by more than 1e-9.
  PerceptionModel without_eccentricity() const;
  /// Whether this is a without_eccentricity() model: f does not depend on e.
  bool ignores_eccentricity() const { return blind_; }

 private:
  PerceptionModelSettings settings_;
  double logistic_scale_ = 1.0;  ///< logistic: F = 1 / (1 + exp(-(g / T - 1) * scale))
  double weibull_shape_ = 1.0;   ///< Weibull: F = 1 - exp(-ln 2 * (g / T)^shape)
  double threshold_slope_ = 1.0; ///< T0 / E2, degrees of threshold per degree of eccentricity
  double range_ = 1.0;           ///< 1 - gamma - lambda, the height of the rise
  bool blind_ = false;           ///< without_eccentricity(): e ignored, the ceiling kept strictly increasing
};

}  // namespace fovea

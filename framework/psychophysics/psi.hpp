#pragma once

// The psi method: a Bayesian adaptive procedure that estimates a psychometric function's
// threshold and slope together (Kontsevich and Tyler 1999, "Bayesian adaptive estimation of
// psychometric slope and threshold", Vision Research 39), here with the lapse rate as a
// nuisance parameter as in the psi-marginal method (Prins 2013, "The psi-marginal adaptive
// method: how to give nuisance parameters the attention they deserve (no more, no less)",
// Journal of Vision 13(7):3). docs/psychophysics.md, "Psi", explains it for a researcher.
//
// The psychometric function is fovea's own (perception/perception_model.hpp): the same F,
// the same width (the 5 %-to-95 % rise, in thresholds), guess and lapse, so a psi estimate
// of the threshold at one eccentricity means what `fovea fit` fits there.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "perception/perception_settings.hpp"
#include "psychophysics/trial_design.hpp"

namespace fovea {

/// The grids of one psi procedure: the gaps it may show and the parameters it weighs, each
/// on a grid between a minimum and a maximum. Gaps, thresholds and widths are log-spaced
/// (they are scales: a tenth of a degree is as far from a fifth as a fifth from 0.4), lapse
/// rates linear. A grid of one point needs its minimum equal to its maximum.
struct PsiSettings {
  PsychometricFunction function = PsychometricFunction::logistic;  ///< F, as the fit's
  /// gamma assumed for every trial: the rate of "yes" with no gap, held fixed here; catch
  /// trials (InterleavedPsiSettings) let the fit estimate it afterwards.
  double guess_rate = 0.0;
  double min_gap_deg = 0.005;  ///< the smallest gap a trial may show, degrees
  double max_gap_deg = 3.0;    ///< the largest
  int gap_points = 41;         ///< gaps on the log grid between them
  double min_threshold_deg = 0.005;  ///< the threshold grid (F = 0.5), degrees
  double max_threshold_deg = 3.0;    ///< the threshold grid's largest, degrees
  int threshold_points = 101;        ///< thresholds on the log grid between them
  double min_width = 0.25;  ///< the width grid: 5 %-to-95 % rise, in thresholds
  double max_width = 4.0;   ///< the width grid's largest, in thresholds
  int width_points = 13;    ///< widths on the log grid between them
  double min_lapse_rate = 0.0;  ///< the lapse grid, lambda
  double max_lapse_rate = 0.06; ///< Wichmann and Hill's (2001) bound, the fit's too
  int lapse_points = 4;         ///< lapse rates on the linear grid between them
  /// true: psi-marginal (Prins 2013), each gap chosen to minimise the expected entropy of the
  /// threshold and width alone, the lapse marginalised out; false: of all three parameters
  /// (Kontsevich and Tyler 1999).
  bool marginal = true;
};

/// The one check of a psi's grids. Throws SettingError (core/setting_error.hpp) naming the
/// field at fault, preceded by `key_prefix`.
void validate(const PsiSettings& settings, std::string_view key_prefix = {});

/// `points` values from `min` to `max` (both included), evenly spaced in log when `log`,
/// else linearly; {min} for one point. The psi's grids.
std::vector<double> psi_grid(double min, double max, int points, bool log);

/// The grids and the likelihood table of a psi, immutable once built and shared by every
/// procedure that uses the same settings. A parameter cell is (threshold t, width w, lapse l)
/// at index (t * widths + w) * lapses + l: a cell's lapses are contiguous, so the marginal
/// over the lapse sums a run of the array.
class PsiGrid {
 public:
  /// Throws SettingError (see validate()).
  explicit PsiGrid(const PsiSettings& settings);

  /// The settings the grids were built from.
  const PsiSettings& settings() const { return settings_; }
  /// The gaps a trial may show, ascending, degrees (gap_points of them, log-spaced).
  std::span<const double> gaps_deg() const { return gaps_deg_; }
  /// The thresholds weighed, ascending, degrees (log-spaced).
  std::span<const double> thresholds_deg() const { return thresholds_deg_; }
  /// The widths weighed, ascending, in thresholds (log-spaced).
  std::span<const double> widths() const { return widths_; }
  /// The lapse rates weighed, ascending, probability (linear).
  std::span<const double> lapse_rates() const { return lapse_rates_; }
  /// Parameter cells: thresholds x widths x lapse rates.
  int cells() const { return static_cast<int>(thresholds_deg_.size() * widths_.size() * lapse_rates_.size()); }
  /// P(yes | gap, cell): fovea's f at eccentricity 0 with the cell's threshold, width and
  /// lapse and the assumed guess rate, clamped to [1e-9, 1 - 1e-9] as the fit's likelihood
  /// is (psychometric_log_likelihood), so no answer makes a cell impossible.
  std::span<const double> p_yes(int gap) const {
    return std::span<const double>(p_yes_).subspan(static_cast<std::size_t>(gap) * cells(), cells());
  }

 private:
  PsiSettings settings_;
  std::vector<double> gaps_deg_, thresholds_deg_, widths_, lapse_rates_;
  std::vector<double> p_yes_;  ///< gaps x cells
};

/// A psi procedure's estimate: the posterior's means, of log threshold and log width (they
/// were log-spaced with a flat prior on the log scale), and its spreads.
struct PsiEstimate {
  double threshold_deg = 0;       ///< exp(E[ln T]), degrees
  double threshold_sd_log10 = 0;  ///< the posterior SD of log10 T
  double width = 0;               ///< exp(E[ln width])
  double width_sd_log10 = 0;      ///< the posterior SD of log10 width
  double lapse_rate = 0;          ///< E[lambda]
  double lapse_rate_sd = 0;       ///< the posterior SD of lambda
};

/// One psi procedure: a posterior over the grid's cells, flat to start with, updated by
/// Bayes' rule with each answer, and the next gap, the one whose answer is expected to leave
/// the least entropy (Kontsevich and Tyler 1999). Deterministic: a function of the
/// grid and the answers. Its storage is sized when built; trials allocate nothing.
class Psi {
 public:
  /// A flat posterior over `grid`'s cells (shared, not copied), the first gap already chosen.
  explicit Psi(std::shared_ptr<const PsiGrid> grid);

  /// The grid index of the gap the next trial should show: the first of the smallest
  /// expected entropies.
  int next_gap() const { return next_gap_; }
  /// The gap of next_gap(), degrees.
  double next_gap_deg() const { return grid_->gaps_deg()[static_cast<std::size_t>(next_gap_)]; }
  /// Bayes' rule for an answer to a trial at grid gap `gap` (any gap, not only next_gap()),
  /// then the next gap chosen. Throws std::out_of_range for a gap off the grid.
  void add_response(int gap, bool yes);
  /// The expected entropy (nats) of the posterior after a trial at each grid gap, as computed
  /// for next_gap(): of the threshold x width marginal with PsiSettings::marginal, else of
  /// the whole posterior.
  std::span<const double> expected_entropies() const { return expected_entropy_; }
  /// The posterior over the grid's cells (PsiGrid's order), summing to 1.
  std::span<const double> posterior() const { return posterior_; }
  /// The posterior's means and spreads, as PsiEstimate says.
  PsiEstimate estimate() const;
  /// Answers added so far.
  int trials() const { return trials_; }
  /// The grids and likelihoods it weighs.
  const PsiGrid& grid() const { return *grid_; }

 private:
  /// Fills expected_entropy_ and next_gap_ from the posterior.
  void choose_next_gap();

  std::shared_ptr<const PsiGrid> grid_;
  std::vector<double> posterior_;
  std::vector<double> expected_entropy_;  ///< per gap
  std::vector<double> after_yes_, after_no_;  ///< scratch: unnormalised posteriors (or marginals) after each answer
  int next_gap_ = 0;
  int trials_ = 0;
};

/// An experiment spec's psi section: one psi procedure per eccentricity, all on the same
/// grids, interleaved, with catch trials (no gap) so that the fit can estimate the guess rate.
struct InterleavedPsiSettings {
  /// One procedure each, in this order; required, each >= 0. The same eccentricity may come
  /// twice (two independent procedures there).
  std::vector<double> eccentricities_deg;
  int n_trials = 50;     ///< trials each procedure chooses the gap of
  int catch_trials = 5;  ///< trials with no gap at each eccentricity, spread evenly; at most n_trials
  PsiSettings grid;      ///< every procedure's grids
};

/// The one check of interleaved psi procedures, made by InterleavedPsi's constructor and by
/// config/ before a session. Throws SettingError naming the field at fault as a path in this
/// struct ("eccentricities_deg", "catch_trials", "grid.max_gap_deg").
void validate(const InterleavedPsiSettings& settings);

/// Runs the psi procedures interleaved: trials go in n_trials passes, each pass taking
/// every procedure once plus the catch trials that fall in it (the c-th catch trial of an
/// eccentricity in pass floor((2c + 1) n_trials / (2 catch_trials))), in an order shuffled
/// by the pass's own seeded stream, as InterleavedStaircases' passes are. Which slot each trial
/// fills is fixed by the settings and the seed; only the gaps depend on the answers. Every
/// trial's direction is drawn from its own stream, as the staircases' are. Replaying a killed
/// session's answers rebuilds it exactly.
class InterleavedPsi {
 public:
  /// Throws SettingError naming the field at fault (see validate()).
  InterleavedPsi(const InterleavedPsiSettings& settings, std::uint64_t seed);

  /// The next trial: a psi trial (condition index and staircase = the procedure) or a catch
  /// trial (condition index = procedures + the procedure, staircase -1, gap 0). Calling it
  /// again before add_response() returns the same trial. Throws std::logic_error once
  /// finished().
  PlannedTrial next();
  /// The answer to the trial next() returned. Throws std::logic_error when no trial waits.
  void add_response(bool yes);
  /// True once every planned trial has its answer.
  bool finished() const { return trials() == planned(); }
  /// Trials answered so far, catch trials included.
  int trials() const { return passes_.trials(); }
  /// Every trial of the session: procedures x (n_trials + catch_trials).
  int planned() const;
  /// Psi procedures: one per entry of eccentricities_deg.
  int procedure_count() const { return static_cast<int>(procedures_.size()); }
  /// Procedure `index`, that of eccentricities_deg[index]; unchecked.
  const Psi& procedure(int index) const { return procedures_[static_cast<std::size_t>(index)]; }
  /// The settings it was built from.
  const InterleavedPsiSettings& settings() const { return settings_; }

 private:
  /// Lays out the next pass's slots, shuffled.
  void start_pass();

  InterleavedPsiSettings settings_;
  std::vector<Psi> procedures_;
  InterleavedPasses passes_;  ///< the passes' slots: a procedure i, or -(i + 1) for its catch trial
};

}  // namespace fovea

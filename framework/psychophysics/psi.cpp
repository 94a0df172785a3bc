#include "psychophysics/psi.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/format.hpp"
#include "core/rng.hpp"
#include "core/setting_error.hpp"
#include "perception/perception_model.hpp"

namespace fovea {
namespace {

/// A likelihood never quite 0 or 1, as the fit's (psychometric_fit.cpp): one answer against
/// a cell lowers it, never rules it out.
constexpr double kMinLikelihood = 1e-9;

/// Gaps x cells beyond this is a config mistake: 10 million doubles are 80 MB, for each
/// distinct grid, and every trial would sum them all.
constexpr double kMaxTableSize = 1e7;

/// Parameter cells beyond this are a config mistake: each procedure keeps three arrays of
/// them (1.6 MB each here), and a spec may hold 64 procedures.
constexpr double kMaxCells = 2e5;

/// A session longer than this is a config mistake, as trial_design.cpp's bound.
constexpr double kMaxTrials = 1e6;

[[noreturn]] void bad(std::string_view prefix, const std::string& key, const std::string& detail) {
  throw SettingError(std::string(prefix) + key, detail);
}

/// One grid's keys: min and max finite, > 0 when `log` (>= 0 otherwise), points >= 1, one
/// point only with min == max and more only with min < max.
void check_grid(std::string_view prefix, const std::string& min_key, double min, const std::string& max_key,
                double max, const std::string& points_key, int points, bool log) {
  if (!(std::isfinite(min) && (log ? min > 0 : min >= 0)))
    bad(prefix, min_key, std::string("must be finite and ") + (log ? "> 0" : ">= 0") + ", not " + format_number(min));
  if (!std::isfinite(max)) bad(prefix, max_key, "must be finite, not " + format_number(max));
  if (points < 1) bad(prefix, points_key, "must be >= 1, not " + std::to_string(points));
  if (points == 1 && min != max)
    bad(prefix, max_key, "must equal " + min_key + " (" + format_number(min) + ") with one point, not " +
                             format_number(max));
  if (points > 1 && !(min < max))
    bad(prefix, min_key, "must be below " + max_key + " (" + format_number(max) + "), not " + format_number(min) +
                             ": a grid of " + std::to_string(points) + " points needs room");
}

/// -sum q ln(q / z) / z over q > 0: the entropy (nats) of the distribution q / z.
double entropy(std::span<const double> q, double z) {
  double sum = 0;
  for (const double x : q)
    if (x > 0) sum += x * std::log(x);
  return std::log(z) - sum / z;
}

}  // namespace

void validate(const PsiSettings& s, std::string_view prefix) {
  if (!(s.guess_rate >= 0 && s.guess_rate < 1)) bad(prefix, "guess_rate", "must be in [0, 1), not " + format_number(s.guess_rate));
  check_grid(prefix, "min_gap_deg", s.min_gap_deg, "max_gap_deg", s.max_gap_deg, "gap_points", s.gap_points, true);
  check_grid(prefix, "min_threshold_deg", s.min_threshold_deg, "max_threshold_deg", s.max_threshold_deg,
             "threshold_points", s.threshold_points, true);
  check_grid(prefix, "min_width", s.min_width, "max_width", s.max_width, "width_points", s.width_points, true);
  check_grid(prefix, "min_lapse_rate", s.min_lapse_rate, "max_lapse_rate", s.max_lapse_rate, "lapse_points",
             s.lapse_points, false);
  if (!(s.guess_rate + s.max_lapse_rate < 1))
    bad(prefix, "max_lapse_rate", "plus guess_rate (" + format_number(s.guess_rate) + ") must be < 1, not " +
                                      format_number(s.guess_rate + s.max_lapse_rate));
  const double cells = double{1} * s.threshold_points * s.width_points * s.lapse_points;
  if (cells > kMaxCells)
    bad(prefix, "threshold_points", "x width_points x lapse_points make " + format_number(cells) +
                                        " parameter cells, more than " + format_number(kMaxCells));
  const double size = double{1} * s.gap_points * s.threshold_points * s.width_points * s.lapse_points;
  if (size > kMaxTableSize)
    bad(prefix, "gap_points", "x threshold_points x width_points x lapse_points make a table of " +
                                  format_number(size) + " likelihoods, more than " + format_number(kMaxTableSize));
}

std::vector<double> psi_grid(double min, double max, int points, bool log) {
  std::vector<double> values(static_cast<std::size_t>(std::max(points, 1)), min);
  if (points < 2) return values;
  const double n = points - 1;
  for (int i = 1; i < points - 1; ++i)
    values[static_cast<std::size_t>(i)] =
        log ? std::exp(std::log(min) + (std::log(max) - std::log(min)) * (i / n)) : min + (max - min) * (i / n);
  values.back() = max;
  return values;
}

PsiGrid::PsiGrid(const PsiSettings& settings) : settings_(settings) {
  validate(settings_);
  const PsiSettings& s = settings_;
  gaps_deg_ = psi_grid(s.min_gap_deg, s.max_gap_deg, s.gap_points, true);
  thresholds_deg_ = psi_grid(s.min_threshold_deg, s.max_threshold_deg, s.threshold_points, true);
  widths_ = psi_grid(s.min_width, s.max_width, s.width_points, true);
  lapse_rates_ = psi_grid(s.min_lapse_rate, s.max_lapse_rate, s.lapse_points, false);
  p_yes_.resize(gaps_deg_.size() * static_cast<std::size_t>(cells()));
  // fovea's f at eccentricity 0, where T(0) = T0: one model per cell, each asked every gap.
  std::size_t cell = 0;
  for (const double threshold : thresholds_deg_)
    for (const double width : widths_)
      for (const double lapse : lapse_rates_) {
        PerceptionModelSettings f;
        f.function = s.function;
        f.threshold_deg = threshold;
        f.width = width;
        f.guess_rate = s.guess_rate;
        f.lapse_rate = lapse;
        const PerceptionModel model(f);
        for (std::size_t g = 0; g < gaps_deg_.size(); ++g)
          p_yes_[g * static_cast<std::size_t>(cells()) + cell] =
              std::clamp(model.probability(0.0, gaps_deg_[g]), kMinLikelihood, 1 - kMinLikelihood);
        ++cell;
      }
}

Psi::Psi(std::shared_ptr<const PsiGrid> grid) : grid_(std::move(grid)) {
  const auto cells = static_cast<std::size_t>(grid_->cells());
  // Kontsevich and Tyler's prior is flat over the grid: flat in log threshold and log width
  // (their grids are log-spaced), and in the lapse rate.
  posterior_.assign(cells, 1.0 / static_cast<double>(cells));
  expected_entropy_.resize(grid_->gaps_deg().size());
  after_yes_.resize(cells);
  after_no_.resize(cells);
  choose_next_gap();
}

void Psi::add_response(int gap, bool yes) {
  if (gap < 0 || gap >= static_cast<int>(grid_->gaps_deg().size()))
    throw std::out_of_range("Psi::add_response: gap " + std::to_string(gap) + " is off the grid of " +
                            std::to_string(grid_->gaps_deg().size()));
  // Bayes' rule: the posterior times the answer's likelihood, normalised.
  const std::span<const double> p = grid_->p_yes(gap);
  double z = 0;
  for (std::size_t c = 0; c < posterior_.size(); ++c) {
    posterior_[c] *= yes ? p[c] : 1 - p[c];
    z += posterior_[c];
  }
  for (double& x : posterior_) x /= z;
  ++trials_;
  choose_next_gap();
}

void Psi::choose_next_gap() {
  // Kontsevich and Tyler 1999's choice: for each gap, the probability of a yes, the
  // posteriors after a yes and after a no, their entropies, and the entropy expected over the
  // two answers; the gap with the least comes next. Psi-marginal (Prins 2013) takes the
  // entropies of the threshold x width marginal instead, so trials go to learning the lapse
  // only as far as it blurs the threshold and width. The posteriors stay unnormalised: their
  // sums are the answers' probabilities.
  const bool marginal = grid_->settings().marginal;
  const std::size_t lapses = grid_->lapse_rates().size();
  const std::size_t groups = marginal ? posterior_.size() / lapses : posterior_.size();
  const std::size_t per_group = marginal ? lapses : 1;
  for (std::size_t g = 0; g < expected_entropy_.size(); ++g) {
    const std::span<const double> p = grid_->p_yes(static_cast<int>(g));
    double z_yes = 0, z_no = 0;
    for (std::size_t m = 0, c = 0; m < groups; ++m) {
      double yes = 0, no = 0;
      for (std::size_t k = 0; k < per_group; ++k, ++c) {
        yes += posterior_[c] * p[c];
        no += posterior_[c] * (1 - p[c]);
      }
      after_yes_[m] = yes;
      after_no_[m] = no;
      z_yes += yes;
      z_no += no;
    }
    const std::span<const double> yes(after_yes_.data(), groups), no(after_no_.data(), groups);
    expected_entropy_[g] = z_yes * entropy(yes, z_yes) + z_no * entropy(no, z_no);
  }
  next_gap_ = static_cast<int>(std::min_element(expected_entropy_.begin(), expected_entropy_.end()) -
                               expected_entropy_.begin());
}

PsiEstimate Psi::estimate() const {
  const std::span<const double> thresholds = grid_->thresholds_deg(), widths = grid_->widths(),
                                lapses = grid_->lapse_rates();
  double m_t = 0, m_t2 = 0, m_w = 0, m_w2 = 0, m_l = 0, m_l2 = 0;
  std::size_t c = 0;
  for (const double t : thresholds)
    for (const double w : widths)
      for (const double l : lapses) {
        const double p = posterior_[c++];
        const double lt = std::log10(t), lw = std::log10(w);
        m_t += p * lt;
        m_t2 += p * lt * lt;
        m_w += p * lw;
        m_w2 += p * lw * lw;
        m_l += p * l;
        m_l2 += p * l * l;
      }
  const auto sd = [](double mean, double mean_square) { return std::sqrt(std::max(mean_square - mean * mean, 0.0)); };
  return PsiEstimate{.threshold_deg = std::pow(10.0, m_t),
                     .threshold_sd_log10 = sd(m_t, m_t2),
                     .width = std::pow(10.0, m_w),
                     .width_sd_log10 = sd(m_w, m_w2),
                     .lapse_rate = m_l,
                     .lapse_rate_sd = sd(m_l, m_l2)};
}

void validate(const InterleavedPsiSettings& s) {
  if (s.eccentricities_deg.empty())
    throw SettingError("eccentricities_deg", "an empty list: the psi method needs at least one eccentricity");
  for (const double e : s.eccentricities_deg)
    if (!(std::isfinite(e) && e >= 0))
      throw SettingError("eccentricities_deg", "must each be >= 0 and finite, not " + format_number(e));
  if (s.n_trials < 1) throw SettingError("n_trials", "must be >= 1, not " + std::to_string(s.n_trials));
  if (s.catch_trials < 0 || s.catch_trials > s.n_trials)
    throw SettingError("catch_trials", "must be in [0, n_trials (" + std::to_string(s.n_trials) + ")], not " +
                                           std::to_string(s.catch_trials));
  const double total = double{1} * static_cast<double>(s.eccentricities_deg.size()) * (s.n_trials + s.catch_trials);
  if (total > kMaxTrials)
    throw SettingError("n_trials", "make a session of " + format_number(total) + " trials, more than " +
                                       format_number(kMaxTrials));
  validate(s.grid, "grid.");
}

InterleavedPsi::InterleavedPsi(const InterleavedPsiSettings& settings, std::uint64_t seed)
    : settings_(settings), passes_(seed) {
  validate(settings_);
  // One grid for all: the table is the same at every eccentricity (it is in thresholds).
  const Psi first(std::make_shared<const PsiGrid>(settings_.grid));
  procedures_.assign(settings_.eccentricities_deg.size(), first);
}

int InterleavedPsi::planned() const {
  return procedure_count() * (settings_.n_trials + settings_.catch_trials);
}

void InterleavedPsi::start_pass() {
  const int n = settings_.n_trials, catches = settings_.catch_trials;
  const int pass_number = passes_.next_pass_number();
  // The pass of each catch trial, floor((2c + 1) n / (2 C)): spread evenly, at most one per
  // pass and eccentricity (the passes of consecutive ones are n / C >= 1 apart).
  bool catch_here = false;
  for (int c = 0; c < catches && !catch_here; ++c)
    catch_here = (2 * std::int64_t{c} + 1) * n / (2 * std::int64_t{catches}) == pass_number;
  std::vector<int> slots;
  for (int i = 0; i < procedure_count(); ++i) {
    slots.push_back(i);
    if (catch_here) slots.push_back(-(i + 1));
  }
  passes_.start_pass(std::move(slots));
}

PlannedTrial InterleavedPsi::next() {
  if (passes_.pending()) return passes_.pending_trial();
  if (finished()) throw std::logic_error("InterleavedPsi::next: every psi procedure has finished");
  if (passes_.pass_done()) start_pass();
  const int slot = passes_.slot();
  const int procedure = slot >= 0 ? slot : -slot - 1;
  const double eccentricity_deg = settings_.eccentricities_deg[static_cast<std::size_t>(procedure)];
  if (slot < 0)
    return passes_.hand_out(Condition{.index = procedure_count() + procedure,
                                      .gap_deg = 0.0,
                                      .eccentricity_deg = eccentricity_deg,
                                      .catch_trial = true,
                                      .staircase = -1});
  return passes_.hand_out(Condition{.index = procedure,
                                    .gap_deg = procedures_[static_cast<std::size_t>(procedure)].next_gap_deg(),
                                    .eccentricity_deg = eccentricity_deg,
                                    .catch_trial = false,
                                    .staircase = procedure});
}

void InterleavedPsi::add_response(bool yes) {
  if (!passes_.pending()) throw std::logic_error("InterleavedPsi::add_response: no trial from next() waits for one");
  // A catch trial says nothing of a procedure's threshold, width or lapse (every cell
  // predicts the guess rate there); only the fit reads it.
  const Condition& condition = passes_.pending_trial().condition;
  if (!condition.catch_trial) {
    Psi& psi = procedures_[static_cast<std::size_t>(condition.staircase)];
    psi.add_response(psi.next_gap(), yes);
  }
  passes_.answered();
}

}  // namespace fovea

#include "psychophysics/session.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <span>
#include <stdexcept>
#include <utility>

#include "core/format.hpp"
#include "core/hash.hpp"
#include "core/rng.hpp"
#include "psychophysics/psi.hpp"
#include "psychophysics/stimulus.hpp"

namespace fovea {
namespace {

/// The psi columns of trials.csv, by name, as the resume check names them.
constexpr std::pair<const char*, double TrialRecord::*> kPsiColumns[] = {
    {"psi_threshold_deg", &TrialRecord::psi_threshold_deg}, {"psi_threshold_sd_log10", &TrialRecord::psi_threshold_sd_log10},
    {"psi_width", &TrialRecord::psi_width},                 {"psi_width_sd_log10", &TrialRecord::psi_width_sd_log10},
    {"psi_lapse_rate", &TrialRecord::psi_lapse_rate},       {"psi_lapse_rate_sd", &TrialRecord::psi_lapse_rate_sd},
    {"psi_entropy_nats", &TrialRecord::psi_entropy_nats},
};

/// The entropy (nats) of the posterior `psi` minimises: the threshold x width marginal (a
/// cell's lapses are contiguous, PsiGrid) under psi-marginal, else the whole posterior.
double posterior_entropy_nats(const Psi& psi) {
  const std::span<const double> posterior = psi.posterior();
  const std::size_t lapses = psi.grid().settings().marginal ? psi.grid().lapse_rates().size() : 1;
  double entropy = 0;
  for (std::size_t start = 0; start < posterior.size(); start += lapses) {
    double p = 0;
    for (std::size_t l = 0; l < lapses; ++l) p += posterior[start + l];
    if (p > 0) entropy -= p * std::log(p);
  }
  return entropy;
}

/// An adaptive column whose value in the file is not the replayed design's.
struct ColumnDifference {
  const char* column;
  std::string in_file, in_design;
};

/// The first adaptive column (reversal, psi_*) where `in_file` holds a value and `replayed`
/// another: the reversal exactly, a psi number beyond 1e-9 relative (the last bits of exp and
/// log may differ between machines). Empty cells in the file are not compared.
std::optional<ColumnDifference> adaptive_difference(const TrialRecord& in_file, const TrialRecord& replayed) {
  const auto flag = [](const std::optional<bool>& f) { return f ? std::string(*f ? "1" : "0") : std::string("empty"); };
  if (in_file.reversal && in_file.reversal != replayed.reversal)
    return ColumnDifference{"reversal", flag(in_file.reversal), flag(replayed.reversal)};
  for (const auto& [name, member] : kPsiColumns) {
    const double file = in_file.*member, design = replayed.*member;
    if (std::isnan(file) || std::abs(file - design) <= 1e-9 * std::max(std::abs(file), std::abs(design))) continue;
    return ColumnDifference{name, format_number(file), std::isnan(design) ? "empty" : format_number(design)};
  }
  return std::nullopt;
}

}  // namespace

TrialSequence::TrialSequence(const ExperimentSettings& spec, const std::vector<TrialRecord>& done,
                             const std::string& records)
    : method_(spec.method),
      directions_(spec.stimulus.directions),
      two_interval_(spec.task.kind == TaskKind::two_interval),
      seed_(static_cast<std::uint64_t>(spec.seed)) {
  const auto seed = static_cast<std::uint64_t>(spec.seed);
  if (method_ == DesignMethod::constant_stimuli) {
    plan_ = plan_constant_stimuli(spec.constant_stimuli, seed);
    for (std::size_t i = 0; i < plan_.size(); ++i) {
      const auto block = static_cast<std::size_t>(plan_[i].block);
      if (queue_.size() <= block) queue_.resize(block + 1);
      queue_[block].push_back(static_cast<int>(i));
    }
    planned_ = static_cast<int>(plan_.size());
  } else if (method_ == DesignMethod::psi) {
    psi_.emplace(spec.psi, seed);
    planned_ = psi_->planned();
  } else if (method_ == DesignMethod::staircase) {
    staircases_.emplace(spec.staircase, seed);
    planned_ = static_cast<int>(spec.staircase.eccentricities_deg.size()) * spec.staircase.rules.n_trials;
  } else {
    throw std::invalid_argument(
        "TrialSequence: a clip comparison's trials come from its own design (psychophysics/clip_design.hpp), not a gap "
        "x eccentricity sequence");
  }
  // Replay: the design must hand out, in order, the trials the records say were run.
  for (std::size_t i = 0; i < done.size(); ++i) {
    const std::optional<PlannedTrial> due = next();
    const TrialRecord& r = done[i];
    const std::string at = records + ":" + std::to_string(r.line) + ": ";
    if (!due)
      throw ResumeMismatch(at + "trial " + std::to_string(r.trial) + ", but this spec's design has no trial left: it ends "
                           "after " + std::to_string(i) + " rows (the trials were not run with this spec and seed)");
    // The same trial: each field the row holds of the design, compared exactly (numbers read
    // back exactly; a catch trial's row holds the gap it showed, 0, as read_trial_records
    // makes sure). The first that differs is named, with the file's value and the design's.
    const auto differs = [&](const char* field, const std::string& in_file, const std::string& in_design) {
      throw ResumeMismatch(at + field + " is " + in_file + " in the file, " + in_design +
                           " in this spec's design for trial " + std::to_string(due->trial) + " (condition " +
                           std::to_string(due->condition.index) + ")");
    };
    const auto integer = [&](const char* field, std::int64_t in_file, std::int64_t in_design) {
      if (in_file != in_design) differs(field, format_number(in_file), format_number(in_design));
    };
    const auto number = [&](const char* field, double in_file, double in_design) {
      if (!(in_file == in_design)) differs(field, std::isnan(in_file) ? "empty" : format_number(in_file), format_number(in_design));
    };
    integer("trial", r.trial, due->trial);
    integer("block", r.block, due->block);
    integer("trial_in_block", r.trial_in_block, due->trial_in_block);
    integer("condition", r.condition, due->condition.index);
    integer("staircase", r.staircase, due->condition.staircase);
    integer("catch_trial", r.catch_trial ? 1 : 0, due->condition.catch_trial ? 1 : 0);
    number("gap_deg", r.gap_deg, shown_gap_deg(due->condition));
    number("eccentricity_deg", r.eccentricity_deg, due->condition.eccentricity_deg);
    number("direction_deg", r.direction_deg, due->direction_deg);
    if (two_interval_) {
      integer("gap_interval", r.gap_interval, due->gap_interval);
      number("other_direction_deg", r.other_direction_deg, due->other_direction_deg);
    }
    // The answer replayed, and the columns it decides compared where the row has them.
    TrialRecord replayed = r;
    record(replayed);
    if (const std::optional<ColumnDifference> d = adaptive_difference(r, replayed))
      differs(d->column, d->in_file, d->in_design);
  }
}

std::optional<PlannedTrial> TrialSequence::next() {
  if (pending_) return pending_;
  if (method_ == DesignMethod::constant_stimuli) {
    while (block_ < static_cast<int>(queue_.size()) && queue_[static_cast<std::size_t>(block_)].empty()) ++block_;
    if (block_ == static_cast<int>(queue_.size())) return std::nullopt;
    pending_ = plan_[static_cast<std::size_t>(queue_[static_cast<std::size_t>(block_)].front())];
  } else if (psi_) {
    if (psi_->finished()) return std::nullopt;
    pending_ = psi_->next();
  } else {
    if (staircases_->finished()) return std::nullopt;
    pending_ = staircases_->next();
  }
  pending_->direction_deg = stimulus_direction_deg(directions_, pending_->direction_deg);
  pending_->other_direction_deg = pending_->direction_deg;
  if (two_interval_) {
    // Which interval has the gap, and the other's direction, from the trial's own stream: an
    // aborted trial shown again is the same pair of animations.
    Rng rng(seed_, rng_stream(RngStream::gap_interval, static_cast<std::uint64_t>(pending_->trial)));
    pending_->gap_interval = rng.uniform() < 0.5 ? 1 : 2;
    pending_->other_direction_deg = stimulus_direction_deg(directions_, rng.uniform(0.0, 360.0));
  }
  return pending_;
}

void TrialSequence::record(TrialResponse response) {
  if (!pending_) throw std::logic_error("TrialSequence::record without a trial from next()");
  if (method_ == DesignMethod::constant_stimuli) {
    std::vector<int>& queue = queue_[static_cast<std::size_t>(block_)];
    const int index = queue.front();
    queue.erase(queue.begin());
    // Requeued at the end of its block, as the gaze contingency asks.
    if (response == TrialResponse::aborted) queue.push_back(index);
  } else if (response != TrialResponse::aborted) {
    // An aborted trial is not a response: the staircase or psi shows the same trial again.
    const bool positive = positive_answer(response, pending_->gap_interval);
    if (psi_)
      psi_->add_response(positive);
    else
      staircases_->add_response(positive);
  }
  if (response != TrialResponse::aborted) ++answered_;
  pending_.reset();
}

void TrialSequence::record(TrialRecord& r) {
  if (!pending_) throw std::logic_error("TrialSequence::record without a trial from next()");
  const int procedure = pending_->condition.staircase;  // -1: constant stimuli, or a psi's catch trial
  record(r.response);
  r.reversal.reset();
  for (const auto& [name, member] : kPsiColumns) r.*member = std::numeric_limits<double>::quiet_NaN();
  if (r.response == TrialResponse::aborted || procedure < 0) return;
  if (staircases_) {
    const Staircase& stair = staircases_->staircase(procedure);
    const std::span<const int> reversals = stair.reversal_trials();
    r.reversal = !reversals.empty() && reversals.back() == stair.trials() - 1;
  } else if (psi_) {
    const Psi& psi = psi_->procedure(procedure);
    const PsiEstimate e = psi.estimate();
    r.psi_threshold_deg = e.threshold_deg;
    r.psi_threshold_sd_log10 = e.threshold_sd_log10;
    r.psi_width = e.width;
    r.psi_width_sd_log10 = e.width_sd_log10;
    r.psi_lapse_rate = e.lapse_rate;
    r.psi_lapse_rate_sd = e.lapse_rate_sd;
    r.psi_entropy_nats = posterior_entropy_nats(psi);
  }
}

namespace {

/// `model` with its guess rate replaced: a forced choice's guess rate is the design's, not the
/// observer's false-alarm rate.
PerceptionModelSettings with_guess_rate(PerceptionModelSettings model, double guess_rate) {
  model.guess_rate = guess_rate;
  return model;
}

/// A participant's name as a number, the same on every machine.
std::uint64_t name_hash(const std::string& name) {
  ByteHash h;
  h.add(name);
  return h.value();
}

}  // namespace

SimulatedObserver::SimulatedObserver(const PerceptionModelSettings& model, std::uint64_t seed, const std::string& participant)
    : model_(model), forced_choice_model_(with_guess_rate(model, 0.5)), seed_(seed ^ name_hash(participant)) {}

TrialResponse SimulatedObserver::answer(const PlannedTrial& trial, int attempt) const {
  Rng rng(seed_, rng_stream(RngStream::observer, (static_cast<std::uint64_t>(trial.trial) << 8) | static_cast<std::uint64_t>(attempt & 0xff)));
  if (trial.gap_interval != 0) {
    const double p = forced_choice_model_.probability(trial.condition.eccentricity_deg, shown_gap_deg(trial.condition));
    const bool correct = rng.uniform() < p;
    return (trial.gap_interval == 1) == correct ? TrialResponse::first : TrialResponse::second;
  }
  const double p = model_.probability(trial.condition.eccentricity_deg, shown_gap_deg(trial.condition));
  return rng.uniform() < p ? TrialResponse::yes : TrialResponse::no;
}

}  // namespace fovea

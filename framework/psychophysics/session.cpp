#include "psychophysics/session.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "core/format.hpp"
#include "core/hash.hpp"
#include "core/rng.hpp"
#include "psychophysics/stimulus.hpp"

namespace fovea {

TrialSequence::TrialSequence(const ExperimentSettings& spec, const std::vector<TrialRecord>& done,
                             const std::string& records)
    : method_(spec.method), directions_(spec.stimulus.directions) {
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
    record(done[i].response);
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
    if (psi_)
      psi_->add_response(response == TrialResponse::yes);
    else
      staircases_->add_response(response == TrialResponse::yes);
  }
  if (response != TrialResponse::aborted) ++answered_;
  pending_.reset();
}

namespace {

/// A participant's name as a number, the same on every machine.
std::uint64_t name_hash(const std::string& name) {
  ByteHash h;
  h.add(name);
  return h.value();
}

}  // namespace

SimulatedObserver::SimulatedObserver(const PerceptionModelSettings& model, std::uint64_t seed, const std::string& participant)
    : model_(model), seed_(seed ^ name_hash(participant)) {}

TrialResponse SimulatedObserver::answer(const PlannedTrial& trial, int attempt) const {
  Rng rng(seed_, rng_stream(RngStream::observer, (static_cast<std::uint64_t>(trial.trial) << 8) | static_cast<std::uint64_t>(attempt & 0xff)));
  const double p = model_.probability(trial.condition.eccentricity_deg, shown_gap_deg(trial.condition));
  return rng.uniform() < p ? TrialResponse::yes : TrialResponse::no;
}

}  // namespace fovea

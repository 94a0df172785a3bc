#include "psychophysics/session.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "core/format.hpp"
#include "core/rng.hpp"

namespace fovea {

const char* answer_name(Answer answer) {
  switch (answer) {
    case Answer::yes: return "yes";
    case Answer::no: return "no";
    case Answer::aborted: return "aborted";
  }
  return "no";
}

const std::vector<std::string>& trial_columns() {
  static const std::vector<std::string> columns = {
      "participant", "session",          "block",           "trial",       "trial_in_block",
      "condition",   "staircase",        "catch_trial",     "gap_deg",     "eccentricity_deg",
      "direction_deg", "gap_px",         "eccentricity_px", "response",    "reaction_time_ms",
      "fixation_kept", "gaze_samples",   "gaze_max_deviation_deg", "observer", "started_utc",
      "ended_utc"};
  return columns;
}

namespace {

/// Splits one CSV line (RFC 4180 quoting, no newlines inside fields).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::string number_text(double value) {
  if (std::isnan(value)) return "";
  std::string out;
  append_number(out, value);
  return out;
}

}  // namespace

std::vector<std::string> trial_cells(const TrialRecord& r) {
  const auto i = [](std::int64_t v) { return std::to_string(v); };
  return {r.participant,      i(r.session),          i(r.block),
          i(r.trial),         i(r.trial_in_block),   i(r.condition),
          i(r.staircase),     i(r.catch_trial ? 1 : 0), number_text(r.gap_deg),
          number_text(r.eccentricity_deg), number_text(r.direction_deg), number_text(r.gap_px),
          number_text(r.eccentricity_px), answer_name(r.response), number_text(r.reaction_time_ms),
          i(r.fixation_kept ? 1 : 0), i(r.gaze_samples), number_text(r.gaze_max_deviation_deg),
          r.observer,         r.started_utc,         r.ended_utc};
}

std::vector<TrialRecord> read_trial_records(const std::string& path) {
  std::vector<TrialRecord> records;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return records;
  std::string text;
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  std::fclose(file);
  const std::vector<std::string>& columns = trial_columns();
  std::size_t start = 0;
  int line_number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;  // a last line without its newline never finished
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    const std::vector<std::string> f = csv_fields(line);
    const auto fail = [&](std::size_t column, const std::string& what) {
      throw std::runtime_error(path + ":" + std::to_string(line_number) + ": column " + std::to_string(column + 1) +
                               (column < columns.size() ? " (" + columns[column] + ")" : std::string()) + ": " + what);
    };
    if (line_number == 1) {
      if (f != columns) fail(0, "the header is not trials.csv's columns");
      continue;
    }
    if (f.size() != columns.size())
      fail(std::min(f.size(), columns.size()), "expected " + std::to_string(columns.size()) + " cells, found " + std::to_string(f.size()));
    const auto number = [&](std::size_t c, bool empty_is_nan) {
      if (empty_is_nan && f[c].empty()) return std::numeric_limits<double>::quiet_NaN();
      const std::optional<double> v = parse_finite_number(f[c]);
      if (!v) fail(c, "expected a number, found \"" + f[c] + "\"");
      return *v;
    };
    const auto integer = [&](std::size_t c) {
      const double v = number(c, false);
      if (v != std::floor(v) || std::abs(v) > 1e15) fail(c, "expected an integer, found \"" + f[c] + "\"");
      return static_cast<std::int64_t>(v);
    };
    TrialRecord r;
    r.participant = f[0];
    r.session = static_cast<int>(integer(1));
    r.block = static_cast<int>(integer(2));
    r.trial = static_cast<int>(integer(3));
    r.trial_in_block = static_cast<int>(integer(4));
    r.condition = static_cast<int>(integer(5));
    r.staircase = static_cast<int>(integer(6));
    r.catch_trial = integer(7) != 0;
    r.gap_deg = number(8, false);
    r.eccentricity_deg = number(9, false);
    r.direction_deg = number(10, false);
    r.gap_px = number(11, false);
    r.eccentricity_px = number(12, false);
    if (f[13] == "yes") r.response = Answer::yes;
    else if (f[13] == "no") r.response = Answer::no;
    else if (f[13] == "aborted") r.response = Answer::aborted;
    else fail(13, "expected yes, no or aborted, found \"" + f[13] + "\"");
    r.reaction_time_ms = number(14, true);
    r.fixation_kept = integer(15) != 0;
    r.gaze_samples = integer(16);
    r.gaze_max_deviation_deg = number(17, true);
    r.observer = f[18];
    r.started_utc = f[19];
    r.ended_utc = f[20];
    records.push_back(std::move(r));
  }
  return records;
}

ScreenPlacement place_on_screen(const ScreenSettings& screen, double eccentricity_deg, double gap_deg) {
  // A flat screen at distance d, the fixation at its centre: a point at angle a from the
  // line of sight lies d tan(a) from the centre. The gap's ends are at e -+ g/2 along the
  // radius (on either side of fixation when g/2 > e).
  const double to_rad = std::numbers::pi / 180.0;
  const double px_per_cm = screen.width_px / screen.width_cm;
  const double d = screen.viewing_distance_cm;
  ScreenPlacement p;
  p.eccentricity_px = d * std::tan(eccentricity_deg * to_rad) * px_per_cm;
  p.gap_px = d * (std::tan((eccentricity_deg + 0.5 * gap_deg) * to_rad) - std::tan((eccentricity_deg - 0.5 * gap_deg) * to_rad)) *
             px_per_cm;
  return p;
}

TrialSequence::TrialSequence(const ExperimentSettings& spec, const std::vector<TrialRecord>& done) : method_(spec.method) {
  const auto seed = static_cast<std::uint64_t>(spec.seed);
  if (method_ == DesignMethod::constant_stimuli) {
    plan_ = plan_constant_stimuli(spec.constant_stimuli, seed);
    for (std::size_t i = 0; i < plan_.size(); ++i) {
      const auto block = static_cast<std::size_t>(plan_[i].block);
      if (queue_.size() <= block) queue_.resize(block + 1);
      queue_[block].push_back(static_cast<int>(i));
    }
    planned_ = static_cast<int>(plan_.size());
  } else {
    const InterleavedStaircaseSettings settings = interleaved_staircases(spec.staircase);
    staircases_.emplace(settings, seed);
    planned_ = static_cast<int>(settings.eccentricities_deg.size()) * settings.staircase.n_trials;
  }
  // Replay: the design must hand out, in order, the trials the records say were run.
  for (std::size_t i = 0; i < done.size(); ++i) {
    const std::optional<PlannedTrial> due = next();
    const TrialRecord& r = done[i];
    // The same trial: its index, condition and stimulus (numbers read back exactly).
    const bool same = due && due->trial == r.trial && due->condition.index == r.condition &&
                      due->condition.staircase == r.staircase && due->condition.catch_trial == r.catch_trial &&
                      (due->condition.catch_trial || due->condition.gap_deg == r.gap_deg) &&
                      due->condition.eccentricity_deg == r.eccentricity_deg && due->direction_deg == r.direction_deg;
    if (!same)
      throw std::runtime_error("row " + std::to_string(i + 1) + " of the trials is trial " + std::to_string(r.trial) +
                               " (condition " + std::to_string(r.condition) + "), but this spec's design has " +
                               (due ? "trial " + std::to_string(due->trial) + " (condition " +
                                          std::to_string(due->condition.index) + ")"
                                    : std::string("no trial left")) +
                               " there: the trials were not run with this spec and seed");
    record(done[i].response);
  }
}

std::optional<PlannedTrial> TrialSequence::next() {
  if (pending_) return pending_;
  if (method_ == DesignMethod::constant_stimuli) {
    while (block_ < static_cast<int>(queue_.size()) && queue_[static_cast<std::size_t>(block_)].empty()) ++block_;
    if (block_ == static_cast<int>(queue_.size())) return std::nullopt;
    pending_ = plan_[static_cast<std::size_t>(queue_[static_cast<std::size_t>(block_)].front())];
    return pending_;
  }
  if (staircases_->finished()) return std::nullopt;
  pending_ = staircases_->next();
  return pending_;
}

void TrialSequence::record(Answer response) {
  if (!pending_) throw std::logic_error("TrialSequence::record without a trial from next()");
  if (method_ == DesignMethod::constant_stimuli) {
    std::vector<int>& queue = queue_[static_cast<std::size_t>(block_)];
    const int index = queue.front();
    queue.erase(queue.begin());
    // Requeued at the end of its block, as the gaze contingency asks.
    if (response == Answer::aborted) queue.push_back(index);
  } else if (response != Answer::aborted) {
    // An aborted trial is not a response: the staircase shows the same trial again.
    staircases_->add_response(response == Answer::yes);
  }
  if (response != Answer::aborted) ++answered_;
  pending_.reset();
}

namespace {

/// FNV-1a: a participant's name as a number, the same on every machine.
std::uint64_t name_hash(const std::string& name) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

SimulatedObserver::SimulatedObserver(const PerceptionModelSettings& model, std::uint64_t seed, const std::string& participant)
    : model_(model), seed_(seed ^ name_hash(participant)) {}

Answer SimulatedObserver::answer(const PlannedTrial& trial, int attempt) const {
  Rng rng(seed_, rng_stream(RngStream::observer, (static_cast<std::uint64_t>(trial.trial) << 8) | static_cast<std::uint64_t>(attempt & 0xff)));
  const double p = model_.probability(trial.condition.eccentricity_deg, trial.condition.catch_trial ? 0.0 : trial.condition.gap_deg);
  return rng.uniform() < p ? Answer::yes : Answer::no;
}

}  // namespace fovea

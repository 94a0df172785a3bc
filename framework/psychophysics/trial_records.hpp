#pragma once

// The trials.csv of a `fovea experiment` session, one row per trial shown (docs/cli.md,
// `fovea fit`): read back into plain structs for the fit, and for anything else that needs
// a session's trials (a resumed session replaying its responses).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fovea {

/// What the observer answered on a trial.
enum class TrialResponse {
  yes,      ///< "I saw a gap"
  no,       ///< "I did not"
  aborted,  ///< no answer counts: fixation left the target region and the trial was requeued
  first,    ///< two-interval task: "the first animation had the gap"
  second,   ///< two-interval task: "the second"
};

/// What an answer tells the design and the fit: for yes/no, whether it was yes; for a
/// two-interval trial (`gap_interval` 1 or 2), whether it named the interval with the gap
/// (correct). False for aborted, and for first or second without a gap interval.
inline bool positive_answer(TrialResponse response, std::int64_t gap_interval) {
  switch (response) {
    case TrialResponse::yes: return true;
    case TrialResponse::first: return gap_interval == 1;
    case TrialResponse::second: return gap_interval == 2;
    default: return false;
  }
}

/// One row of trials.csv. Numeric columns a file leaves empty (a reaction time on an aborted
/// trial, gaze columns without a tracker) read as NaN, or -1 for the integer ones; so do
/// columns the file does not have, when the reader was not told to require them.
struct TrialRecord {
  std::size_t line = 0;         ///< where the row starts in its file, from 1 (the header's line)
  std::string participant;      ///< the experimenter's id for the observer, as typed
  std::string session;          ///< the session's id within the participant
  std::int64_t block = -1;      ///< constant stimuli: the block; staircases: the pass
  std::int64_t trial = -1;      ///< index in the session, from 0
  std::int64_t trial_in_block = -1;  ///< index inside the block or pass, from 0
  std::int64_t condition = -1;  ///< Condition::index (psychophysics/trial_design.hpp)
  std::int64_t staircase = -1;  ///< the staircase that chose the gap, -1 for constant stimuli
  bool catch_trial = false;     ///< no gap shown (gap_deg is then 0): measures false alarms
  double gap_deg = 0;           ///< >= 0, degrees of visual angle
  double eccentricity_deg = 0;  ///< >= 0, degrees from fixation
  double direction_deg = std::numeric_limits<double>::quiet_NaN();  ///< of the target from fixation
  double gap_px = std::numeric_limits<double>::quiet_NaN();         ///< the gap on this screen
  double eccentricity_px = std::numeric_limits<double>::quiet_NaN();  ///< eccentricity_deg on this screen
  /// Two-interval task: the interval (1 or 2) that showed the gap; 0 on a yes/no trial, -1
  /// when the file has no such column (before issue 45: yes/no).
  std::int64_t gap_interval = -1;
  /// Two-interval task: the other interval's direction of the (touching) pair; NaN on yes/no.
  double other_direction_deg = std::numeric_limits<double>::quiet_NaN();
  TrialResponse response = TrialResponse::aborted;  ///< yes, no, first, second, or aborted (requeued)
  /// Two-interval task: 1 when the answer named the gap's interval, 0 when not; -1 on a yes/no
  /// or an aborted trial.
  std::int64_t correct = -1;
  double reaction_time_ms = std::numeric_limits<double>::quiet_NaN();  ///< from the stimulus's end
  bool fixation_kept = true;    ///< false: gaze left the fixation region during the trial
  std::int64_t gaze_samples = -1;  ///< tracker samples during the trial
  /// The gaze's largest distance from the cross during the stimulus, degrees; NaN without samples.
  double gaze_max_deviation_deg = std::numeric_limits<double>::quiet_NaN();
  /// The stimulus as shown, first swap to the first swap after it; NaN when not shown.
  double stimulus_duration_s = std::numeric_limits<double>::quiet_NaN();
  std::int64_t stimulus_frames = -1;  ///< frames drawn during the stimulus
  std::int64_t dropped_frames = -1;   ///< refreshes missed during it (psychophysics/frame_timing.hpp)
  std::string observer;         ///< who answered: a person, or a simulated observer's name
  std::string started_utc;      ///< ISO 8601
  std::string ended_utc;        ///< when the answer came, ISO 8601
  // The adaptive procedure's state after this trial's answer (TrialSequence::record(TrialRecord&)),
  // columns added at the end of the row: a file without them reads them as empty.
  /// psi: the posterior's threshold after this answer, exp(E[ln T]) (PsiEstimate,
  /// psychophysics/psi.hpp), degrees; NaN on a trial no psi procedure took an answer from.
  double psi_threshold_deg = std::numeric_limits<double>::quiet_NaN();
  double psi_threshold_sd_log10 = std::numeric_limits<double>::quiet_NaN();  ///< psi: the posterior SD of log10 T
  double psi_width = std::numeric_limits<double>::quiet_NaN();  ///< psi: exp(E[ln width]), in thresholds
  double psi_width_sd_log10 = std::numeric_limits<double>::quiet_NaN();  ///< psi: the posterior SD of log10 width
  double psi_lapse_rate = std::numeric_limits<double>::quiet_NaN();      ///< psi: E[lambda]
  double psi_lapse_rate_sd = std::numeric_limits<double>::quiet_NaN();   ///< psi: the posterior SD of lambda
  /// psi: the entropy (nats) of the posterior the procedure minimises, the threshold x width
  /// marginal under psi-marginal (PsiSettings::marginal), else all of it.
  double psi_entropy_nats = std::numeric_limits<double>::quiet_NaN();
  /// Staircases: whether this trial's answer reversed its staircase's direction (one of
  /// Staircase::reversal_trials()); none on a trial no staircase took an answer from.
  std::optional<bool> reversal;
};

/// The participant name `fovea fit` gives the fit over all participants: no participant has it.
inline constexpr std::string_view kPooledParticipant = "pooled";

/// trials.csv's columns in the order `fovea experiment` writes them.
std::span<const std::string_view> trial_record_columns();

/// The columns `fovea fit` needs: participant, catch_trial, gap_deg, eccentricity_deg,
/// response and fixation_kept (and gap_interval, read when there: a two-interval session's).
std::span<const std::string_view> trial_record_fit_columns();

/// Reads a trials.csv. Columns are found by name, in any order; unknown columns are
/// ignored; each of `required` must be there, but for trial_record_added_columns() (an
/// older file has none of them: they read as empty). Every cell of a known column is checked: a
/// required cell is not empty (except reaction_time_ms and gaze_max_deviation_deg, empty
/// when not measured), numbers parse (integers where an index is meant), catch_trial
/// and fixation_kept are 0 or 1, response is yes, no, first, second or aborted, gap_deg and
/// eccentricity_deg are finite and >= 0, and a catch trial's gap is 0. Throws
/// std::runtime_error with one line naming the place, "<path>:<line>: <column>: <what>"
/// (the header's line for a missing or repeated column), or the CSV reader's
/// (record/csv_reader.hpp: cannot read, an unclosed quote, a row of the wrong length). A
/// last line without its newline (a row cut off by a power cut) is not read.
std::vector<TrialRecord> read_trial_records(const std::string& path,
                                            std::span<const std::string_view> required = trial_record_columns());
/// The same from the file's text; `name` stands for the path in messages.
std::vector<TrialRecord> parse_trial_records(std::string text, const std::string& name,
                                             std::span<const std::string_view> required = trial_record_columns());

/// The word trials.csv writes for `response`.
std::string_view response_name(TrialResponse response);
/// trial_record_columns() as the strings a CsvWriter takes.
std::vector<std::string> trial_record_header();
/// trials.json, the data dictionary written beside trials.csv (BIDS's tabular-file sidecar:
/// one object per column with its Description, and Units or Levels where it has them), so a
/// lab's pipeline reads the columns without the docs. One list gives the columns and it.
std::string trial_records_sidecar_json();
/// One record as its trials.csv cells, in trial_record_columns() order: numbers in their
/// shortest exact form (they read back as the very doubles), NaN as an empty cell.
std::vector<std::string> trial_record_cells(const TrialRecord& record);

/// The columns added after sessions had been recorded without them (issue 45: the
/// two-interval task's, and psi_threshold_deg ... psi_entropy_nats, reversal at the end of
/// the row): read_trial_records never requires them, and a file without them reads them as
/// empty.
std::span<const std::string_view> trial_record_added_columns();
/// The columns a session appends to the trials.csv at `path` under: trial_record_header(),
/// or, for a file an older fovea began (its header is trial_record_header() without some of
/// trial_record_added_columns()), that file's own columns, so a resumed session goes on in
/// the layout its file has rather than being refused. A missing or empty file, or a header
/// of any other layout, gives trial_record_header() (CsvWriter then refuses the latter).
/// Throws std::runtime_error when the file exists and cannot be read.
std::vector<std::string> trial_record_layout(const std::string& path);
/// `record`'s cells for `columns` (names of trial_record_header(), such as
/// trial_record_layout() gives), in that order, each as trial_record_cells() writes it.
/// Throws std::invalid_argument for a name trials.csv does not have.
std::vector<std::string> trial_record_cells(const TrialRecord& record, std::span<const std::string> columns);

}  // namespace fovea

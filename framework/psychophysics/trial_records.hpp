#pragma once

// The trials.csv of a `fovea experiment` session, one row per trial shown (docs/cli.md,
// `fovea fit`): read back into plain structs for the fit, and for anything else that needs
// a session's trials (a resumed session replaying its responses).

#include <cstddef>
#include <cstdint>
#include <limits>
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
};

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
  TrialResponse response = TrialResponse::aborted;  ///< yes, no, or aborted (requeued)
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
};

/// The participant name `fovea fit` gives the fit over all participants: no participant has it.
inline constexpr std::string_view kPooledParticipant = "pooled";

/// trials.csv's columns in the order `fovea experiment` writes them.
std::span<const std::string_view> trial_record_columns();

/// The columns `fovea fit` needs: participant, catch_trial, gap_deg, eccentricity_deg,
/// response and fixation_kept.
std::span<const std::string_view> trial_record_fit_columns();

/// Reads a trials.csv. Columns are found by name, in any order; unknown columns are
/// ignored; each of `required` must be there. Every cell of a known column is checked: a
/// required cell is not empty (except reaction_time_ms and gaze_max_deviation_deg, empty
/// when not measured), numbers parse (integers where an index is meant), catch_trial
/// and fixation_kept are 0 or 1, response is yes, no or aborted, gap_deg and
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

}  // namespace fovea

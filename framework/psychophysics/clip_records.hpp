#pragma once

// The trials.csv of a clip comparison session (docs/psychophysics.md, "Clip comparison"):
// one row per trial, its own columns (the disc sessions' are psychophysics/trial_records.hpp),
// written as the trial ends and read back to resume a session.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fovea {

/// One row of a clip comparison's trials.csv. Numbers a trial has none of (a simulated
/// observer's reaction time and timings; yes/no's second clip) are NaN or -1, written empty.
struct ClipTrialRecord {
  std::string participant;         ///< the id given to --participant
  std::int64_t session = 1;        ///< 1 for the participant's first session, +1 per --resume
  std::int64_t block = 0;          ///< ClipTrial::block, from 0
  std::int64_t trial = 0;          ///< ClipTrial::trial: the planned index, from 0
  std::int64_t trial_in_block = 0; ///< ClipTrial::trial_in_block, from 0
  std::int64_t condition = 0;     ///< ClipCondition::index
  std::string scene;              ///< ClipScene::name
  std::string scheduler;          ///< the test clip's scheduler (yes/no reference trials: the reference's)
  std::int64_t budget_tests = 0;  ///< sphere tests per frame, 0 for full resolution
  std::string reference;          ///< "full", or the reference scheduler's name
  std::int64_t repetition = 0;    ///< which of the cell's repetitions, from 0: picks the world seed
  std::string task;               ///< "2ifc" or "yes_no"
  /// 2IFC: "test_first" or "reference_first"; yes/no: "test" or "reference", the clip shown
  std::string order;
  std::string response;           ///< 2IFC: "first" or "second"; yes/no: "yes" or "no"
  int noticed = 0;                ///< 2IFC: the test clip was chosen; yes/no: "yes"
  /// A number the trial has none of; written as an empty cell.
  static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  double p_test = kNone;          ///< the observer model's P(error seen) of the test clip
  double p_reference = kNone;     ///< the same of the reference clip
  std::int64_t episodes_test = -1, episodes_reference = -1;  ///< unresolved episodes in each clip
  double duration_test_s = kNone, duration_reference_s = kNone;  ///< measured on the screen (a person)
  std::int64_t dropped_test = -1, dropped_reference = -1;  ///< refreshes missed (psychophysics/frame_timing.hpp)
  double reaction_time_ms = kNone;  ///< question's first frame to the key's event; a person only
  std::string observer;           ///< "human" or "simulated"
  std::string started_utc, ended_utc;  ///< when the trial started and was answered, ISO 8601 UTC
};

/// trials.json beside trials.csv: each column's description, unit and levels (a BIDS-style
/// data dictionary), as the disc sessions' (trial_records_sidecar_json).
std::string clip_records_sidecar_json();

/// trials.csv's header, and a record's cells in its order.
std::vector<std::string> clip_record_header();
/// `record`'s cells as trials.csv writes them, one per header column; NaN and -1 as empty cells.
std::vector<std::string> clip_record_cells(const ClipTrialRecord& record);

/// The rows of a clip comparison's trials.csv (the columns a session needs to resume:
/// participant, session, trial, condition, repetition, order; the others are left at their
/// defaults); a last row cut off without its newline (a power cut mid-write) is dropped.
/// Refuses, with std::runtime_error naming file:line and the column, a missing column and
/// a cell that is not a whole number in range (session from 1; trial, condition and
/// repetition from 0, below 2^31).
std::vector<ClipTrialRecord> read_clip_records(const std::string& path);
/// The same from the file's text; `path` names it in messages.
std::vector<ClipTrialRecord> parse_clip_records(std::string text, const std::string& path);

}  // namespace fovea

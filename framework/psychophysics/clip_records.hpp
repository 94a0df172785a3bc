#pragma once

// The trials.csv of a clip comparison session (docs/psychophysics.md, "Clip comparison"):
// one row per trial, its own columns (the disc sessions' are psychophysics/trial_records.hpp),
// written as the trial ends and read back to resume a session.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "psychophysics/clip_design.hpp"

namespace fovea {

/// One row of a clip comparison's trials.csv. Numbers a trial has none of (a simulated
/// observer's reaction time and timings; yes/no's second clip) are NaN or -1, written empty.
struct ClipTrialRecord {
  std::size_t line = 0;            ///< where the row starts in its file, from 1 (read back only)
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

/// The rows of a clip comparison's trials.csv, every column read and checked against its
/// domain; a last row cut off without its newline (a power cut mid-write) is dropped. Refuses,
/// with std::runtime_error "<path>:<line>: <column>: <what>" (the header's line for a missing
/// column), a cell outside its column's domain: session a whole number from 1 below 2^31;
/// block, trial, trial_in_block, condition and repetition from 0 below 2^31; budget_tests a
/// whole number in [0, 1e15]; scheduler a scheduler's name, reference full or one; task 2ifc
/// or yes_no; order and response the task's words (test_first or reference_first and first or
/// second; test or reference and yes or no); noticed 0 or 1 and what the response and order
/// make it; p_test, p_reference in [0, 1] and episodes_test, episodes_reference whole numbers
/// from 0 for each clip the row's order shows, empty for a clip not shown; durations (>= 0)
/// and dropped refreshes (from 0) of each clip shown and reaction_time_ms (>= 0) a person's
/// only, empty for a simulated observer; observer human or simulated; participant and scene
/// not empty; started_utc and ended_utc as fovea writes them (2026-01-31T12:00:00.000Z).
/// Quoted cells are excerpts (core/format.hpp).
std::vector<ClipTrialRecord> read_clip_records(const std::string& path);
/// The same from the file's text; `path` names it in messages.
std::vector<ClipTrialRecord> parse_clip_records(std::string text, const std::string& path);

/// The cells of `trial` its plan decides, as a session writes them: block, trial,
/// trial_in_block, condition, scene, scheduler and budget_tests (the clip shown first's:
/// the test clip's; a yes/no reference trial's, the reference's), reference, repetition,
/// task and order. `scene_scheduler` is the trial's scene's own scheduler, the one a
/// full-resolution reference clip runs. The rest is left at its defaults.
ClipTrialRecord planned_clip_record(const ClipComparisonSettings& design, const ClipTrial& trial,
                                    SchedulerKind scene_scheduler);

/// A resumed session's rows (read_clip_records) against what `design` plans there (`plan`,
/// plan_clip_trials of the spec and its seed; `scene_schedulers`, each scene's own
/// scheduler): each row is the participant's, its session the one before it or one more (from
/// 1), and every cell planned_clip_record decides is the plan's. Throws std::runtime_error
/// naming the first row that is not, "<path>:<line>: <field> is <the file's> in the file,
/// <the design's> in this spec's design for trial <n> (condition <c>)" (text quoted as
/// excerpts), or a row past the plan's end. Returns the session the next one is: one past the
/// last row's, 1 without rows.
std::int64_t check_resumed_clip_records(const std::vector<ClipTrialRecord>& done, const ClipComparisonSettings& design,
                                        const std::vector<ClipTrial>& plan,
                                        std::span<const SchedulerKind> scene_schedulers,
                                        const std::string& participant, const std::string& path);

}  // namespace fovea

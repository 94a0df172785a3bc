// Fuzz target: a clip comparison's trials.csv read back by a resumed `fovea experiment`
// (psychophysics/clip_records.hpp): parse_clip_records, then check_resumed_clip_records against
// the design the spec and seed regenerate, as the session does before it goes on. The designs
// are configs/experiments/matched_clips.yaml's (2IFC, seed 1; its scenes run the default
// scheduler, hybrid) and the same with task yes_no. Refusal is std::runtime_error naming the
// place.
//
// Beyond "no crash", for every file the reader accepts: each record's session is at least 1,
// its trial, condition and repetition in [0, 2^31), its order and response the task's words,
// noticed what they make it, each probability in [0, 1]. The round trip: the records written
// back as trials.csv (clip_record_header, clip_record_cells, quoted as CsvWriter quotes) read
// again to the same cells. And for every file the resume check accepts against a design:
// each row's planned cells are planned_clip_record's for the plan's trial there, sessions go
// 1, 2, ... with no gap, and the session it returns is one past the last row's.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "psychophysics/clip_design.hpp"
#include "psychophysics/clip_records.hpp"
#include "record/csv_writer.hpp"

namespace {

using fovea::fuzz::check;

/// matched_clips.yaml's design, with `task`.
fovea::ClipComparisonSettings matched_clips(fovea::ClipTask task) {
  fovea::ClipComparisonSettings d;
  d.scenes = {{"default", "../default.yaml"}, {"rockfall", "../demos/rockfall.yaml"}};
  d.schedulers = {fovea::SchedulerKind::hybrid, fovea::SchedulerKind::round_robin};
  d.budgets_tests = {2000, 3000};
  d.clip_s = 1.0;
  d.warmup_frames = 60;
  d.repetitions = 4;
  d.blocks = 2;
  d.task = task;
  return d;
}

bool probability_or_none(double p) { return std::isnan(p) || (p >= 0 && p <= 1); }

void check_record(const fovea::ClipTrialRecord& r, std::size_t index) {
  const std::string record = "record " + std::to_string(index) + ": ";
  check(r.session >= 1, record + "a session below 1");
  check(r.trial >= 0 && r.condition >= 0 && r.repetition >= 0 && r.block >= 0 && r.trial_in_block >= 0,
        record + "a negative index");
  const bool two_interval = r.task == "2ifc";
  check(two_interval || r.task == "yes_no", record + "a task that is not 2ifc or yes_no");
  check(two_interval ? (r.order == "test_first" || r.order == "reference_first") : (r.order == "test" || r.order == "reference"),
        record + "an order that is not the task's");
  check(two_interval ? (r.response == "first" || r.response == "second") : (r.response == "yes" || r.response == "no"),
        record + "a response that is not the task's");
  const int made = two_interval ? ((r.response == "first") == (r.order == "test_first") ? 1 : 0) : (r.response == "yes" ? 1 : 0);
  check(r.noticed == made, record + "noticed is not what the response and order make it");
  check(probability_or_none(r.p_test) && probability_or_none(r.p_reference), record + "a probability outside [0, 1]");
}

/// The resume check against `design`: if it accepts the records, they are the plan's.
void check_resume(const std::vector<fovea::ClipTrialRecord>& records, fovea::ClipTask task) {
  // The same for every input: made once.
  static const fovea::ClipComparisonSettings two_interval = matched_clips(fovea::ClipTask::two_interval);
  static const fovea::ClipComparisonSettings yes_no = matched_clips(fovea::ClipTask::yes_no);
  static const std::vector<fovea::ClipTrial> two_interval_plan = fovea::plan_clip_trials(two_interval, 1);
  static const std::vector<fovea::ClipTrial> yes_no_plan = fovea::plan_clip_trials(yes_no, 1);
  const bool is_two_interval = task == fovea::ClipTask::two_interval;
  const fovea::ClipComparisonSettings& design = is_two_interval ? two_interval : yes_no;
  const std::vector<fovea::ClipTrial>& plan = is_two_interval ? two_interval_plan : yes_no_plan;
  const std::vector<fovea::SchedulerKind> scene_schedulers(design.scenes.size(), fovea::SchedulerKind::hybrid);
  const std::string participant = records.empty() ? "sim01" : records.front().participant;
  std::int64_t next_session = 0;
  try {
    next_session =
        fovea::check_resumed_clip_records(records, design, plan, scene_schedulers, participant, "trials.csv");
  } catch (const std::runtime_error&) {
    return;  // refused, naming the row, the field and both values
  }
  check(records.size() <= plan.size(), "accepted more rows than the design has trials");
  std::int64_t session = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const fovea::ClipTrialRecord& r = records[i];
    const fovea::ClipTrialRecord want = fovea::planned_clip_record(design, plan[i], fovea::SchedulerKind::hybrid);
    const std::string record = "record " + std::to_string(i) + ": ";
    check(r.participant == participant, record + "another participant accepted");
    check(r.session == session || r.session == session + 1, record + "a session that skips or goes back accepted");
    session = r.session;
    check(r.trial == want.trial && r.block == want.block && r.trial_in_block == want.trial_in_block &&
              r.condition == want.condition && r.scene == want.scene && r.scheduler == want.scheduler &&
              r.budget_tests == want.budget_tests && r.reference == want.reference && r.repetition == want.repetition &&
              r.task == want.task && r.order == want.order,
          record + "accepted, but not the trial the design plans there");
  }
  check(next_session == session + 1, "the next session is not one past the last row's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<fovea::ClipTrialRecord> records;
  try {
    records = fovea::parse_clip_records(text, "trials.csv");
  } catch (const std::runtime_error&) {
    return 0;  // refused, naming the place: what the reader is for
  }
  for (std::size_t i = 0; i < records.size(); ++i) check_record(records[i], i);
  std::string written = fovea::CsvWriter::header_line(fovea::clip_record_header()) + "\n";
  for (const fovea::ClipTrialRecord& r : records) written += fovea::CsvWriter::header_line(fovea::clip_record_cells(r)) + "\n";
  std::vector<fovea::ClipTrialRecord> again;
  try {
    again = fovea::parse_clip_records(written, "written.csv");
  } catch (const std::runtime_error& e) {
    fovea::fuzz::fail(std::string("trials.csv as written from accepted records is refused: ") + e.what());
  }
  check(again.size() == records.size(), "written back and read again: a different number of records");
  for (std::size_t i = 0; i < records.size(); ++i)
    check(fovea::clip_record_cells(records[i]) == fovea::clip_record_cells(again[i]),
          "written back and read again: record " + std::to_string(i) + " differs");
  check_resume(records, fovea::ClipTask::two_interval);
  check_resume(records, fovea::ClipTask::yes_no);
  return 0;
}

// A participant's session (psychophysics/session.hpp): the trial sequence rebuilt from its
// records goes on exactly where it stopped; aborted trials come again; trials.csv rows read
// back as written; the simulated observer answers with f(e, g); stimuli land on the screen
// where the screen's geometry says.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <fstream>
#include <map>
#include <numbers>

#include "config/config.hpp"
#include "core/format.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/stimulus.hpp"
#include "psychophysics/trial_records.hpp"
#include "record/csv_writer.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

ExperimentSettings small_spec(DesignMethod method) {
  ExperimentSettings spec;
  spec.seed = 11;
  spec.method = method;
  spec.constant_stimuli.gaps_deg = {0.05, 0.1, 0.2, 0.4};
  spec.constant_stimuli.eccentricities_deg = {0, 5};
  spec.constant_stimuli.repetitions = 4;
  spec.constant_stimuli.catch_trials_per_block = 2;
  spec.constant_stimuli.blocks = 2;
  spec.staircase.eccentricities_deg = {0, 5};
  spec.staircase.start_values_deg = {0.5};
  spec.staircase.rules.n_trials = 12;
  spec.staircase.rules.n_reversals = 4;
  spec.psi.eccentricities_deg = {0, 5};
  spec.psi.n_trials = 12;
  spec.psi.catch_trials = 2;
  spec.psi.grid.gap_points = 15;
  spec.psi.grid.threshold_points = 15;
  return spec;
}

/// Runs a whole session with an observer, aborting every `abort_every`-th trial shown (0:
/// never); returns its records.
std::vector<TrialRecord> run(const ExperimentSettings& spec, std::vector<TrialRecord> done, int abort_every,
                             std::size_t stop_after = 1u << 30) {
  TrialSequence sequence(spec, done);
  const SimulatedObserver observer(PerceptionModelSettings{}, 5, "p");
  std::map<std::int64_t, int> attempts;
  for (const TrialRecord& r : done) ++attempts[r.trial];
  std::size_t shown = done.size();
  while (const auto trial = sequence.next()) {
    if (shown >= stop_after) break;
    TrialRecord r;
    r.participant = "p";
    r.trial = trial->trial;
    r.block = trial->block;
    r.trial_in_block = trial->trial_in_block;
    r.condition = trial->condition.index;
    r.staircase = trial->condition.staircase;
    r.catch_trial = trial->condition.catch_trial;
    r.gap_deg = trial->condition.gap_deg;
    r.eccentricity_deg = trial->condition.eccentricity_deg;
    r.direction_deg = trial->direction_deg;
    r.gap_interval = trial->gap_interval;
    r.other_direction_deg = trial->other_direction_deg;
    ++shown;
    r.response = abort_every > 0 && shown % static_cast<std::size_t>(abort_every) == 0 ? TrialResponse::aborted
                                                                                         : observer.answer(*trial, attempts[trial->trial]++);
    sequence.record(r.response);
    done.push_back(r);
  }
  return done;
}

bool same_trials(const std::vector<TrialRecord>& a, const std::vector<TrialRecord>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].trial != b[i].trial || a[i].response != b[i].response || a[i].gap_deg != b[i].gap_deg) return false;
  return true;
}

}  // namespace

TEST_CASE("Session: a sequence rebuilt from any prefix of its records goes on as an unbroken one",
          "[psychophysics][session]") {
  for (const DesignMethod method : {DesignMethod::constant_stimuli, DesignMethod::staircase, DesignMethod::psi}) {
    const ExperimentSettings spec = small_spec(method);
    for (const int abort_every : {0, 7}) {
      const std::vector<TrialRecord> whole = run(spec, {}, abort_every);
      INFO("method " << static_cast<int>(method) << ", abort every " << abort_every);
      REQUIRE(whole.size() > 20);
      for (const std::size_t cut : {std::size_t{0}, std::size_t{1}, whole.size() / 3, whole.size() - 1}) {
        const std::vector<TrialRecord> first(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
        // The same observer answers the rest; the aborts fall on the same shown trials.
        CHECK(same_trials(run(spec, first, abort_every), whole));
      }
    }
  }
}

TEST_CASE("Session: every planned trial is answered once, and aborted ones come again at the end of their block",
          "[psychophysics][session]") {
  const ExperimentSettings spec = small_spec(DesignMethod::constant_stimuli);
  const std::vector<PlannedTrial> plan = plan_constant_stimuli(spec.constant_stimuli, static_cast<std::uint64_t>(spec.seed));
  const std::vector<TrialRecord> records = run(spec, {}, 5);
  std::map<std::int64_t, int> answered;
  int aborted = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (records[i].response == TrialResponse::aborted) {
      ++aborted;
      // It comes again later in the same block, after the block's other planned trials.
      bool again = false;
      for (std::size_t j = i + 1; j < records.size() && records[j].block == records[i].block; ++j)
        again = again || records[j].trial == records[i].trial;
      CHECK(again);
      continue;
    }
    ++answered[records[i].trial];
  }
  CHECK(aborted > 5);
  CHECK(answered.size() == plan.size());
  for (const auto& [trial, count] : answered) CHECK(count == 1);
  // Blocks never interleave: the records' blocks only go up.
  for (std::size_t i = 1; i < records.size(); ++i) CHECK(records[i].block >= records[i - 1].block);
}

TEST_CASE("Session: records that do not follow the spec's design are refused", "[psychophysics][session]") {
  const ExperimentSettings spec = small_spec(DesignMethod::constant_stimuli);
  std::vector<TrialRecord> records = run(spec, {}, 0, 5);
  const std::int64_t planned = records[3].condition;
  records[3].condition += 1;
  records[3].line = 5;
  CHECK_THROWS_AS(TrialSequence(spec, records), ResumeMismatch);
  CHECK_THROWS_WITH(TrialSequence(spec, records, "p/trials.csv"),
                    "p/trials.csv:5: condition is " + std::to_string(planned + 1) +
                        " in the file, " + std::to_string(planned) + " in this spec's design for trial 3 (condition " +
                        std::to_string(planned) + ")");
  ExperimentSettings other = spec;
  other.seed = 12;
  CHECK_THROWS(TrialSequence(other, run(spec, {}, 0, 5)));
}

TEST_CASE("Session: a resumed row that differs from the design names the field and both values",
          "[psychophysics][session]") {
  // Issue 42: a psi session resumed after one row's gap_deg was changed said "trial 49
  // (condition 2), but this spec's design has trial 49 (condition 2) there", the same words
  // twice. Each field the replay compares is named with the file's value and the design's.
  const ExperimentSettings spec = small_spec(DesignMethod::psi);
  const std::vector<TrialRecord> whole = run(spec, {}, 0, 20);
  REQUIRE(whole.size() == 20);
  const auto refusal = [&](std::size_t row, const std::function<void(TrialRecord&)>& edit) -> std::string {
    std::vector<TrialRecord> records = whole;
    for (std::size_t i = 0; i < records.size(); ++i) records[i].line = i + 2;  // the header is line 1
    edit(records[row]);
    try {
      const TrialSequence sequence(spec, records);
    } catch (const ResumeMismatch& e) {
      return e.what();
    }
    return "";
  };
  CHECK(refusal(0, [](TrialRecord&) {}).empty());
  const TrialRecord& r = whole[15];
  const std::string trial = " in this spec's design for trial 15 (condition " + std::to_string(r.condition) + ")";
  CHECK(refusal(15, [](TrialRecord& t) { t.gap_deg = 0.25; }) ==
        "trials.csv:17: gap_deg is 0.25 in the file, " + format_number(r.gap_deg) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.eccentricity_deg = 7; }) ==
        "trials.csv:17: eccentricity_deg is 7 in the file, " + format_number(r.eccentricity_deg) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.direction_deg = std::numeric_limits<double>::quiet_NaN(); }) ==
        "trials.csv:17: direction_deg is empty in the file, " + format_number(r.direction_deg) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.trial = 16; }) == "trials.csv:17: trial is 16 in the file, 15" + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.block += 1; }) ==
        "trials.csv:17: block is " + std::to_string(r.block + 1) + " in the file, " + std::to_string(r.block) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.trial_in_block += 1; }) ==
        "trials.csv:17: trial_in_block is " + std::to_string(r.trial_in_block + 1) + " in the file, " +
            std::to_string(r.trial_in_block) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.staircase = 9; }) ==
        "trials.csv:17: staircase is 9 in the file, " + std::to_string(r.staircase) + trial);
  CHECK(refusal(15, [](TrialRecord& t) { t.catch_trial = !t.catch_trial; }) ==
        "trials.csv:17: catch_trial is " + std::string(r.catch_trial ? "0" : "1") + " in the file, " +
            (r.catch_trial ? "1" : "0") + trial);
  // An answer changed early moves the psi's later gaps: the first row that differs is named.
  const std::string moved = refusal(2, [](TrialRecord& t) {
    t.response = t.response == TrialResponse::yes ? TrialResponse::no : TrialResponse::yes;
  });
  CHECK(moved.find(" in the file, ") != std::string::npos);
  CHECK(moved.find(" in this spec's design for trial ") != std::string::npos);
  // Rows past the design's end.
  std::vector<TrialRecord> longer = run(spec, {}, 0);
  longer.push_back(longer.back());
  longer.back().line = 99;
  CHECK_THROWS_WITH(TrialSequence(spec, longer),
                    "trials.csv:99: trial " + std::to_string(longer.back().trial) +
                        ", but this spec's design has no trial left: it ends after " +
                        std::to_string(longer.size() - 1) + " rows (the trials were not run with this spec and seed)");
}

TEST_CASE("Session: trials.csv rows read back as written, and malformed rows name their place",
          "[psychophysics][session][records]") {
  test::TempDir dir;
  const std::string path = (dir / "trials.csv").string();
  TrialRecord a;
  a.participant = "P01";
  a.session = "2";
  a.block = 1;
  a.trial = 17;
  a.trial_in_block = 3;
  a.condition = 5;
  a.gap_deg = 0.1 + 0.2;
  a.eccentricity_deg = 5;
  a.direction_deg = 123.456;
  a.gap_px = 3.25;
  a.eccentricity_px = 190.5;
  a.response = TrialResponse::aborted;
  a.reaction_time_ms = std::numeric_limits<double>::quiet_NaN();
  a.fixation_kept = false;
  a.gaze_samples = 90;
  a.gaze_max_deviation_deg = 2.5;
  a.stimulus_duration_s = 1.5 + 1.0 / 120;
  a.stimulus_frames = 90;
  a.dropped_frames = 1;
  a.observer = "human";
  a.started_utc = "2026-11-21T12:00:00.000Z";
  a.ended_utc = "2026-11-21T12:00:02.000Z";
  a.gap_interval = 0;  // a yes/no trial, as a session writes it
  // Each column's cells as its type writes them, pinned: a session's trials.csv must not
  // change from one version of fovea to the next.
  CHECK(trial_record_cells(a) ==
        std::vector<std::string>{"P01", "2", "1", "17", "3", "5", "-1", "0", "0.30000000000000004", "5", "123.456",
                                 "3.25", "190.5", "aborted", "", "0", "90", "2.5", "1.5083333333333333", "90", "1", "human",
                                 "2026-11-21T12:00:00.000Z",
                                 "2026-11-21T12:00:02.000Z",
                                 // gap_interval, other_direction_deg, correct: a yes/no trial's
                                 "0", "", "-1",
                                 // psi_* and reversal, empty: no adaptive procedure took this answer
                                 "", "", "", "", "", "", "", ""});
  CHECK(trial_record_header().size() == trial_record_cells(a).size());
  const std::span<const std::string_view> fit = trial_record_fit_columns();
  CHECK(std::vector<std::string_view>(fit.begin(), fit.end()) ==
        std::vector<std::string_view>{"participant", "catch_trial", "gap_deg", "eccentricity_deg", "response",
                                      "fixation_kept"});
  {
    CsvWriter csv(path, trial_record_header());
    for (const std::string& cell : trial_record_cells(a)) csv.cell(std::string_view(cell));
    csv.end_row(CsvWriter::Flush::durable);
  }
  const std::vector<TrialRecord> back = read_trial_records(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].participant == "P01");
  CHECK(back[0].session == "2");
  CHECK(back[0].trial == 17);
  CHECK(back[0].gap_deg == a.gap_deg);  // shortest exact form: the very double
  CHECK(back[0].direction_deg == a.direction_deg);
  CHECK(back[0].response == TrialResponse::aborted);
  CHECK(std::isnan(back[0].reaction_time_ms));
  CHECK_FALSE(back[0].fixation_kept);
  CHECK(back[0].gaze_samples == 90);
  CHECK(back[0].stimulus_duration_s == a.stimulus_duration_s);
  CHECK(back[0].dropped_frames == 1);
  CHECK(back[0].ended_utc == a.ended_utc);
  // A row cut off before its newline (a power cut) is not a trial.
  std::ofstream(path, std::ios::app) << "P01,2,1,18,4,5,-1,0,0.1";
  CHECK(read_trial_records(path).size() == 1);
  std::ofstream(path, std::ios::app) << ",5,0,1,1,maybe,,1,0,,,0,0,human,x,y"
                                     << ",0,,-1"       // a yes/no trial's interval columns
                                     << ",,,,,,,,\n";  // psi_* and reversal, empty
  CHECK_THROWS_WITH(read_trial_records(path), Catch::Contains("trials.csv:3: response:") && Catch::Contains("maybe"));
}

TEST_CASE("Session: the simulated observer says yes at the rate f(e, g), the same answer every time",
          "[psychophysics][session][observer]") {
  PerceptionModelSettings model;
  model.threshold_deg = 0.1;
  model.eccentricity_scale_deg = 2;
  model.guess_rate = 0.05;
  const PerceptionModel f(model);
  const SimulatedObserver observer(model, 3, "P01");
  for (const auto& [e, g] : {std::pair{0.0, 0.1}, std::pair{5.0, 0.2}, std::pair{2.0, 0.0}}) {
    int yes = 0;
    const int n = 4000;
    for (int i = 0; i < n; ++i) {
      PlannedTrial t;
      t.trial = i;
      t.condition.eccentricity_deg = e;
      t.condition.gap_deg = g;
      t.condition.catch_trial = g == 0;
      const TrialResponse answer = observer.answer(t, 0);
      CHECK(observer.answer(t, 0) == answer);
      yes += answer == TrialResponse::yes ? 1 : 0;
    }
    const double p = f.probability(e, g);
    INFO("e " << e << ", g " << g << ", f " << p);
    // Binomial: 4 standard deviations of 4000 trials.
    CHECK(std::abs(static_cast<double>(yes) / n - p) < 4 * std::sqrt(p * (1 - p) / n) + 1e-9);
  }
}

TEST_CASE("Session: stimuli land where the screen's geometry puts them", "[psychophysics][session][screen]") {
  ScreenSettings screen;  // 53.1 cm over 1920 px at 57 cm
  const double px_per_cm = 1920 / 53.1, to_rad = std::numbers::pi / 180;
  // At fixation: the gap straddles it.
  const ScreenPlacement centre = place_on_screen(screen, 0, 1.0);
  CHECK(centre.eccentricity_px == 0);
  CHECK(centre.gap_px == Approx(2 * 57 * std::tan(0.5 * to_rad) * px_per_cm).epsilon(1e-12));
  // 10 degrees out: d tan(10 deg), and the same gap in degrees spans more pixels there.
  const ScreenPlacement out = place_on_screen(screen, 10, 1.0);
  CHECK(out.eccentricity_px == Approx(57 * std::tan(10 * to_rad) * px_per_cm).epsilon(1e-12));
  CHECK(out.gap_px > centre.gap_px);
  CHECK(place_on_screen(screen, 10, 0).gap_px == 0);
}

namespace {

/// small_spec as a two-interval forced choice: no catch trials, the psi's guess rate 1/2.
ExperimentSettings two_interval_spec(DesignMethod method) {
  ExperimentSettings spec = small_spec(method);
  spec.task.kind = TaskKind::two_interval;
  spec.constant_stimuli.catch_trials_per_block = 0;
  spec.psi.catch_trials = 0;
  spec.psi.grid.guess_rate = 0.5;
  return spec;
}

}  // namespace

TEST_CASE("Session: a two-interval trial's gap goes in a seeded interval, kept when the trial comes again and on resuming",
          "[psychophysics][session][forced_choice]") {
  for (const DesignMethod method : {DesignMethod::constant_stimuli, DesignMethod::staircase, DesignMethod::psi}) {
    const ExperimentSettings spec = two_interval_spec(method);
    INFO("method " << static_cast<int>(method));
    const std::vector<TrialRecord> whole = run(spec, {}, 7);
    REQUIRE(whole.size() > 20);
    std::map<std::int64_t, std::int64_t> interval_of;
    int firsts = 0;
    for (const TrialRecord& r : whole) {
      REQUIRE((r.gap_interval == 1 || r.gap_interval == 2));
      CHECK(!r.catch_trial);
      CHECK((r.response == TrialResponse::first || r.response == TrialResponse::second ||
             r.response == TrialResponse::aborted));
      // An aborted trial shown again is the same pair of animations.
      const auto [it, inserted] = interval_of.emplace(r.trial, r.gap_interval);
      CHECK(it->second == r.gap_interval);
      firsts += inserted && r.gap_interval == 1 ? 1 : 0;
    }
    // Both intervals are used, neither always (a fair coin over 24 or more trials).
    CHECK(firsts > 0);
    CHECK(firsts < static_cast<int>(interval_of.size()));
    for (const std::size_t cut : {std::size_t{1}, whole.size() / 2}) {
      const std::vector<TrialRecord> first(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
      CHECK(same_trials(run(spec, first, 7), whole));
    }
    // An edited interval is not this design's trial.
    std::vector<TrialRecord> edited(whole.begin(), whole.begin() + 3);
    edited[2].gap_interval = 3 - edited[2].gap_interval;
    edited[2].line = 4;
    CHECK_THROWS_WITH(TrialSequence(spec, edited), Catch::Contains("trials.csv:4: gap_interval is"));
  }
}

TEST_CASE("Session: the simulated observer names the gap's interval at chance for no gap and almost always for a large one",
          "[psychophysics][session][forced_choice]") {
  const PerceptionModelSettings model;  // the default: T0 0.08 deg, lapses 0.02 (perception_settings.hpp)
  const SimulatedObserver observer(model, 3, "P01");
  const auto share_correct = [&](double gap_deg) {
    int correct = 0;
    for (int i = 0; i < 4000; ++i) {
      PlannedTrial t;
      t.trial = i;
      t.condition.gap_deg = gap_deg;
      t.condition.eccentricity_deg = 0;
      t.gap_interval = 1 + i % 2;
      const TrialResponse r = observer.answer(t, 0);
      REQUIRE((r == TrialResponse::first || r == TrialResponse::second));
      correct += positive_answer(r, t.gap_interval) ? 1 : 0;
    }
    return correct / 4000.0;
  };
  // f with the forced choice's guess of 1/2: 0.5 + 0.5 (1 - 2 lambda) F; 4,000 trials give a
  // standard error under 0.008.
  CHECK(share_correct(1e-4) == Approx(0.5).margin(0.03));
  CHECK(share_correct(2.0) == Approx(1 - model.lapse_rate).margin(0.02));
  const PerceptionModelSettings forced = [&] {
    PerceptionModelSettings m = model;
    m.guess_rate = 0.5;
    return m;
  }();
  CHECK(share_correct(model.threshold_deg) == Approx(PerceptionModel(forced).probability(0, model.threshold_deg)).margin(0.03));
}

TEST_CASE("Session: trials.csv's task columns are read only as one task: intervals 0 to 2, answers that fit them",
          "[psychophysics][session][records][forced_choice]") {
  const auto text_of = [](const TrialRecord& r) {
    std::string text;
    for (const std::string& name : trial_record_header()) text += (text.empty() ? "" : ",") + name;
    text += "\n";
    std::string row;
    for (const std::string& cell : trial_record_cells(r)) row += (row.empty() ? "" : ",") + cell;
    return text + row + "\n";
  };
  const auto error_of = [&](const TrialRecord& r) {
    try {
      (void)parse_trial_records(text_of(r), "trials.csv", trial_record_fit_columns());  // as fovea fit reads
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  TrialRecord r;
  r.participant = "P01";
  r.session = "1";
  r.gap_deg = 0.2;
  r.direction_deg = 0;
  r.gap_px = 10;
  r.eccentricity_px = 0;
  r.gap_interval = 2;  // at the limit
  r.other_direction_deg = 10;
  r.response = TrialResponse::second;
  r.correct = 1;
  CHECK(error_of(r).empty());
  TrialRecord past = r;
  past.gap_interval = 3;
  CHECK(error_of(past) == "trials.csv:2: gap_interval: expected 0 (a yes/no trial), 1 or 2, found 3");
  TrialRecord unanswerable = r;
  unanswerable.gap_interval = 0;
  CHECK(error_of(unanswerable) == "trials.csv:2: response: second answers a two-interval trial, but gap_interval is not 1 or 2");
  TrialRecord yes_no = r;
  yes_no.response = TrialResponse::yes;
  CHECK(error_of(yes_no) == "trials.csv:2: response: yes answers a yes/no trial, but gap_interval is 2");
  TrialRecord bad_correct = r;
  bad_correct.correct = 2;
  CHECK(error_of(bad_correct) == "trials.csv:2: correct: expected -1, 0 or 1, found 2");
  // A yes/no row as a session writes it, and one from before the columns (gap_interval -1), read.
  TrialRecord plain = r;
  plain.gap_interval = 0;
  plain.response = TrialResponse::yes;
  plain.correct = -1;
  CHECK(error_of(plain).empty());
  plain.gap_interval = -1;
  CHECK(error_of(plain).empty());
}

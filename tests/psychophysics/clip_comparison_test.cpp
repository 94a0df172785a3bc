// The clip comparison (psychophysics/clip_design, clip_observer, clip_run, clip_records;
// docs/psychophysics.md, "Clip comparison"): the design's crossing and shuffling, the episode
// model's P against an independent product over a recorded clip's frames, the simulated
// observer's rules, the records read back, and the spec's errors at file:line:col.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "config/config.hpp"
#include "core/rng.hpp"
#include "psychophysics/clip_design.hpp"
#include "psychophysics/clip_observer.hpp"
#include "psychophysics/clip_records.hpp"
#include "psychophysics/clip_run.hpp"
#include "record/csv_writer.hpp"

using namespace fovea;

namespace {

ClipComparisonSettings two_by_two_by_two() {
  ClipComparisonSettings d;
  d.scenes = {{"a", "a.yaml"}, {"b", "b.yaml"}};
  d.schedulers = {SchedulerKind::priority_queues, SchedulerKind::round_robin};
  d.budgets_tests = {300, 1000};
  d.repetitions = 5;
  d.blocks = 2;
  return d;
}

/// The oracle of a clip's P: every collision-frame accepted unresolved is an independent look
/// at a gap, so P = 1 - prod(1 - f) over all of them, however they split into episodes.
double product_over_frames(const std::vector<std::vector<EpisodeInput>>& frames) {
  double unnoticed = 1;
  for (const auto& frame : frames)
    for (const EpisodeInput& c : frame)
      if (c.unresolved) unnoticed *= 1 - c.f_true;
  return 1 - unnoticed;
}

/// The oracle of the episode count: for each pair (slot, first frame), the runs of
/// consecutive frames in which it was accepted unresolved.
std::int64_t runs_over_frames(const std::vector<std::vector<EpisodeInput>>& frames) {
  std::map<std::pair<std::uint32_t, std::int64_t>, std::vector<std::size_t>> unresolved_in;
  for (std::size_t k = 0; k < frames.size(); ++k)
    for (const EpisodeInput& c : frames[k])
      if (c.unresolved) unresolved_in[{c.slot, c.first_frame}].push_back(k);
  std::int64_t runs = 0;
  for (const auto& [pair, at] : unresolved_in)
    for (std::size_t i = 0; i < at.size(); ++i) runs += (i == 0 || at[i] != at[i - 1] + 1) ? 1 : 0;
  return runs;
}

ClipSeen notice(const std::vector<std::vector<EpisodeInput>>& frames) {
  ClipNoticing noticing;
  for (const auto& frame : frames) noticing.frame(frame);
  return noticing.finish();
}

}  // namespace

TEST_CASE("Clip design: every scene x scheduler x budget cell, repetitions times, blocks shuffled from the seed",
          "[psychophysics][clips]") {
  const ClipComparisonSettings d = two_by_two_by_two();
  const std::vector<ClipCondition> cells = cross_clip_conditions(d);
  REQUIRE(cells.size() == 8);
  std::set<std::tuple<int, SchedulerKind, std::int64_t>> distinct;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    CHECK(cells[i].index == static_cast<int>(i));
    CHECK_FALSE(cells[i].reference_clip);
    distinct.insert({cells[i].scene, cells[i].scheduler, cells[i].budget_tests});
  }
  CHECK(distinct.size() == 8);

  const std::vector<ClipTrial> trials = plan_clip_trials(d, 7);
  REQUIRE(trials.size() == 40);
  std::map<std::pair<int, int>, int> seen;  // (cell, repetition) -> times
  std::set<std::uint64_t> seeds;
  int test_first = 0;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const ClipTrial& t = trials[i];
    CHECK(t.trial == static_cast<int>(i));
    CHECK(t.block == t.repetition % d.blocks);  // repetition r in block r % blocks
    CHECK(t.world_seed == clip_world_seed(7, t.repetition));  // matched: a repetition's world in every cell
    ++seen[{t.condition.index, t.repetition}];
    seeds.insert(t.world_seed);
    test_first += t.test_first ? 1 : 0;
  }
  CHECK(seen.size() == 40);  // each (cell, repetition) exactly once
  CHECK(seeds.size() == 5);  // one world per repetition
  CHECK(test_first > 10);    // the order is drawn, not fixed (40 trials, about 20 each way)
  CHECK(test_first < 30);
  // Blocks in order, each shuffled: not the crossing's order, and the same for the same seed.
  CHECK(std::is_sorted(trials.begin(), trials.end(), [](const ClipTrial& a, const ClipTrial& b) { return a.block < b.block; }));
  bool shuffled = false;
  for (std::size_t i = 1; i < 20; ++i) shuffled |= trials[i].condition.index < trials[i - 1].condition.index;
  CHECK(shuffled);
  const std::vector<ClipTrial> again = plan_clip_trials(d, 7);
  const std::vector<ClipTrial> other = plan_clip_trials(d, 8);
  bool differs = false;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CHECK(again[i].condition.index == trials[i].condition.index);
    CHECK(again[i].test_first == trials[i].test_first);
    differs |= other[i].condition.index != trials[i].condition.index;
  }
  CHECK(differs);
}

TEST_CASE("Clip design: yes/no shows the reference clips as trials of their own", "[psychophysics][clips]") {
  ClipComparisonSettings d = two_by_two_by_two();
  d.task = ClipTask::yes_no;
  std::vector<ClipCondition> cells = cross_clip_conditions(d);
  REQUIRE(cells.size() == 8 + 2);  // one full-resolution reference per scene
  CHECK(cells[8].reference_clip);
  CHECK(cells[8].budget_tests == 0);
  d.reference = ClipReference::scheduler;
  d.reference_scheduler = SchedulerKind::sequential;
  cells = cross_clip_conditions(d);
  REQUIRE(cells.size() == 8 + 4);  // the reference scheduler at each budget, per scene
  CHECK(cells[11].scheduler == SchedulerKind::sequential);
  CHECK(cells[11].budget_tests == 1000);
  for (const ClipTrial& t : plan_clip_trials(d, 1)) CHECK(t.test_first);
}

TEST_CASE("Clip design: a design that cannot run names its key", "[psychophysics][clips]") {
  const auto problem = [](ClipComparisonSettings d) -> std::string {
    try {
      validate(d);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(problem(two_by_two_by_two()).empty());
  ClipComparisonSettings d = two_by_two_by_two();
  d.scenes.clear();
  CHECK(problem(d).starts_with("clip_comparison.scenes: an empty list"));
  d = two_by_two_by_two();
  d.budgets_tests = {300.5};
  CHECK(problem(d).starts_with("clip_comparison.budgets_tests: "));
  d = two_by_two_by_two();
  d.reference = ClipReference::scheduler;
  d.reference_scheduler = SchedulerKind::round_robin;
  CHECK(problem(d).starts_with("clip_comparison.reference_scheduler: also a tested scheduler"));
  d = two_by_two_by_two();
  d.blocks = 6;
  CHECK(problem(d).starts_with("clip_comparison.blocks: "));
  d = two_by_two_by_two();
  d.scenes[1].name = "a";
  CHECK(problem(d).starts_with("clip_comparison.scenes: two scenes are named a"));
}

TEST_CASE("Clip observer: P from the episodes equals the product over every unresolved collision-frame",
          "[psychophysics][clips]") {
  // Random clips: 8 slots, each holding a pair that is replaced now and then (a new first
  // frame), present or not, unresolved or not, with random f.
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Rng rng(seed);
    std::vector<std::int64_t> pair_start(8, 0);
    std::vector<std::vector<EpisodeInput>> frames(1 + rng.below(40));
    for (std::size_t k = 0; k < frames.size(); ++k)
      for (std::uint32_t slot = 0; slot < 8; ++slot) {
        if (rng.uniform() < 0.1) pair_start[slot] = static_cast<std::int64_t>(k);  // another pair takes the slot
        if (rng.uniform() < 0.3) continue;                                        // not overlapping this frame
        const bool unresolved = rng.uniform() < 0.5;
        frames[k].push_back({slot, pair_start[slot], unresolved, 0.0, unresolved ? 0.2 * rng.uniform() : 0.0});
      }
    const ClipSeen seen = notice(frames);
    CHECK(seen.p_seen == Approx(product_over_frames(frames)).margin(1e-12));
    CHECK(seen.episodes == runs_over_frames(frames));  // those still open at the end counted
  }
  // By hand: one pair unresolved in frames 0-1 (f 0.5, 0.5), resolved in 2, unresolved in 3
  // (f 0.2) and still open at the end: two episodes, 0.75 and 0.2; P = 1 - 0.25 x 0.8 = 0.8.
  const std::vector<std::vector<EpisodeInput>> frames = {
      {{0, 0, true, 0, 0.5}}, {{0, 0, true, 0, 0.5}}, {{0, 0, false, 0, 0}}, {{0, 0, true, 0, 0.2}}};
  const ClipSeen seen = notice(frames);
  CHECK(seen.episodes == 2);
  CHECK(seen.unresolved_frames == 3);
  CHECK(seen.p_seen == Approx(0.8));
}

TEST_CASE("Clip observer: 2IFC picks the clip seen wrong, guesses when both or neither, and answers repeat",
          "[psychophysics][clips]") {
  const ClipObserver observer(5, "P01");
  int first_when_neither = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    CHECK(observer.two_interval(1.0, 0.0, trial, 0) == ClipChoice::first);
    CHECK(observer.two_interval(0.0, 1.0, trial, 0) == ClipChoice::second);
    first_when_neither += observer.two_interval(0.0, 0.0, trial, 0) == ClipChoice::first ? 1 : 0;
    CHECK(observer.two_interval(0.3, 0.6, trial, 1) == observer.two_interval(0.3, 0.6, trial, 1));
    CHECK_FALSE(observer.yes_no(0.0, trial, 0));
    CHECK(observer.yes_no(1.0, trial, 0));
  }
  CHECK(first_when_neither > 900);  // a fair guess: 1000 expected, sd 22
  CHECK(first_when_neither < 1100);
  // P(test chosen) = p_t (1 - p_r) + (1 - (p_t (1 - p_r) + p_r (1 - p_t))) / 2: at 0.6 and 0.2, 0.7.
  int test_chosen = 0;
  for (int trial = 0; trial < 4000; ++trial) test_chosen += observer.two_interval(0.6, 0.2, trial, 0) == ClipChoice::first;
  CHECK(test_chosen / 4000.0 == Approx(0.7).margin(0.03));
  // Participants answer independently.
  const ClipObserver other(5, "P02");
  int differ = 0;
  for (int trial = 0; trial < 200; ++trial)
    differ += observer.yes_no(0.5, trial, 0) != other.yes_no(0.5, trial, 0) ? 1 : 0;
  CHECK(differ > 50);
}

TEST_CASE("Clip run: a recorded clip's P equals the oracle's product, full resolution leaves no episodes, and "
          "the same seed gives the same clip",
          "[psychophysics][clips]") {
  const config::LoadedConfig scene =
      config::load_config_file(std::string(FOVEA_SOURCE_DIR) + "/configs/examples/pile.yaml", std::vector<std::string>{});
  ClipRunSettings clip;
  clip.world = scene.settings;
  clip.world.threads = 1;
  clip.demo = scene.settings.demo;
  clip.world_seed = 3;
  clip.warmup_frames = 60;
  clip.clip_frames = 30;
  clip.scheduler = SchedulerKind::round_robin;
  clip.budget_tests = 300;
  PerceptionModelSettings model;
  const PerceptionModel observer(model);
  std::vector<std::vector<EpisodeInput>> log;
  const ClipSeen seen = play_clip(clip, observer, &log);
  REQUIRE(log.size() == 30);
  CHECK(seen.episodes > 0);  // the budget leaves errors, so the comparison below means something
  CHECK(seen.p_seen > 0);
  CHECK(seen.p_seen == Approx(product_over_frames(log)).margin(1e-12));
  CHECK(seen.episodes == runs_over_frames(log));
  const ClipSeen again = play_clip(clip, observer);
  CHECK(again.p_seen == seen.p_seen);
  CHECK(again.episodes == seen.episodes);
  clip.budget_tests = 0;
  const ClipSeen full = play_clip(clip, observer);
  CHECK(full.episodes == 0);
  CHECK(full.p_seen == 0);
}

TEST_CASE("Clip records: rows read back, and a row cut off mid-write is dropped", "[psychophysics][clips]") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "fovea_clip_records_test.csv";
  ClipTrialRecord r;
  r.participant = "P01";
  r.session = 2;
  r.trial = 3;
  r.condition = 5;
  r.repetition = 1;
  r.order = "reference_first";
  r.p_test = 0.25;
  r.p_reference = 0;
  r.episodes_test = 2;
  r.episodes_reference = 0;
  r.scene = "pile";
  r.scheduler = "hybrid";
  r.budget_tests = 3000;
  r.reference = "full";
  r.task = "2ifc";
  r.response = "first";
  r.noticed = 0;
  r.observer = "simulated";
  r.started_utc = r.ended_utc = "2026-11-29T05:14:53.120Z";
  {
    std::ofstream out(path);
    const auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << cells[i];
    };
    line(clip_record_header());
    out << "\n";
    line(clip_record_cells(r));
    out << "\nP01,2,0,4";  // a power cut mid-row
  }
  const std::vector<ClipTrialRecord> back = read_clip_records(path.string());
  std::filesystem::remove(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].participant == "P01");
  CHECK(back[0].session == 2);
  CHECK(back[0].trial == 3);
  CHECK(back[0].condition == 5);
  CHECK(back[0].repetition == 1);
  CHECK(back[0].order == "reference_first");
  // A row of another kind is refused at its line and column.
  std::string header;
  for (const std::string& name : clip_record_header()) header += (header.empty() ? "" : ",") + name;
  std::vector<std::string> cells = clip_record_cells(r);
  cells[1] = "0";
  std::string row;
  for (const std::string& cell : cells) row += (row.empty() ? "" : ",") + cell;
  try {
    (void)parse_clip_records(header + "\n" + row + "\n", "t.csv");
    FAIL("a session 0 was accepted");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "t.csv:2: session: expected a whole number from 1 below 2^31, found \"0\"");
  }
}

namespace {

/// A simulated session's rows for the first `count` trials of `plan`, as the session writes them.
std::vector<ClipTrialRecord> session_rows(const ClipComparisonSettings& d, const std::vector<ClipTrial>& plan,
                                          std::size_t count) {
  std::vector<ClipTrialRecord> rows;
  for (std::size_t i = 0; i < count; ++i) {
    ClipTrialRecord r = planned_clip_record(d, plan[i], SchedulerKind::hybrid);
    r.participant = "P01";
    r.session = i < 2 ? 1 : 2;
    r.observer = "simulated";
    const bool two_interval = d.task == ClipTask::two_interval;
    if (two_interval || r.order == "test") r.p_test = 0.25, r.episodes_test = 3;
    if (two_interval || r.order == "reference") r.p_reference = 0, r.episodes_reference = 0;
    r.response = two_interval ? (i % 2 == 0 ? "first" : "second") : (i % 2 == 0 ? "yes" : "no");
    r.noticed = two_interval ? ((r.response == "first") == plan[i].test_first ? 1 : 0) : (r.response == "yes" ? 1 : 0);
    r.started_utc = "2026-11-29T05:14:53.120Z";
    r.ended_utc = "2026-11-29T05:14:54.007Z";
    rows.push_back(r);
  }
  return rows;
}

/// `rows` as trials.csv, with `edit` applied to the cells of row `edited` (from 0).
std::string trials_csv(const std::vector<ClipTrialRecord>& rows, std::size_t edited = 0,
                       const std::map<std::string, std::string>& edit = {}) {
  const std::vector<std::string> header = clip_record_header();
  std::string text = CsvWriter::header_line(header) + "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> cells = clip_record_cells(rows[i]);
    if (i == edited)
      for (const auto& [column, value] : edit)
        cells[static_cast<std::size_t>(std::find(header.begin(), header.end(), column) - header.begin())] = value;
    text += CsvWriter::header_line(cells) + "\n";
  }
  return text;
}

/// What resuming from `text` says: "" when the rows are kept, else the refusal.
std::string resume_refusal(const ClipComparisonSettings& d, const std::vector<ClipTrial>& plan, const std::string& text) {
  try {
    const std::vector<ClipTrialRecord> done = parse_clip_records(text, "p/trials.csv");
    const std::vector<SchedulerKind> schedulers(d.scenes.size(), SchedulerKind::hybrid);
    (void)check_resumed_clip_records(done, d, plan, schedulers, "P01", "p/trials.csv");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Clip records: a resumed session refuses a row that is not the design's or holds a value outside its "
          "column's domain",
          "[psychophysics][clips]") {
  // Issue 42: order 7 in row 3, scene/scheduler/budget bogus,oracle,999999 and response maybe
  // were kept and the session went on (the gap experiment's resume refuses such rows).
  const ClipComparisonSettings d = two_by_two_by_two();
  const std::vector<ClipTrial> plan = plan_clip_trials(d, 7);
  const std::vector<ClipTrialRecord> rows = session_rows(d, plan, 5);
  REQUIRE(resume_refusal(d, plan, trials_csv(rows)).empty());
  const std::vector<ClipTrialRecord> read = parse_clip_records(trials_csv(rows), "t.csv");
  CHECK(check_resumed_clip_records(read, d, plan, std::vector<SchedulerKind>(2, SchedulerKind::hybrid), "P01", "t.csv") == 3);
  for (std::size_t i = 0; i < rows.size(); ++i) CHECK(clip_record_cells(read[i]) == clip_record_cells(rows[i]));

  // Row 3 is line 4 (the header is line 1), trial 2.
  const ClipTrial& t = plan[2];
  const std::string trial = " in this spec's design for trial 2 (condition " + std::to_string(t.condition.index) + ")";
  const auto edited = [&](const std::map<std::string, std::string>& edit) {
    return resume_refusal(d, plan, trials_csv(rows, 2, edit));
  };
  // Order 7: not an order at all.
  CHECK(edited({{"order", "7"}}) ==
        "p/trials.csv:4: order: expected test_first or reference_first (task 2ifc), found \"7\"");
  // An order, but not the one the seed drew (and noticed made to agree with it).
  const std::string other = t.test_first ? "reference_first" : "test_first";
  const std::string noticed = std::to_string(1 - rows[2].noticed);
  CHECK(edited({{"order", other}, {"noticed", noticed}}) ==
        "p/trials.csv:4: order is \"" + other + "\" in the file, \"" + rows[2].order + "\"" + trial);
  // Scene, scheduler and budget bogus, oracle, 999999: the first that differs is named, and
  // each on its own.
  const std::string scene = rows[2].scene, scheduler = rows[2].scheduler;
  const std::string budget = std::to_string(rows[2].budget_tests);
  CHECK(edited({{"scene", "bogus"}, {"scheduler", "oracle"}, {"budget_tests", "999999"}}) ==
        "p/trials.csv:4: scene is \"bogus\" in the file, \"" + scene + "\"" + trial);
  CHECK(edited({{"scheduler", "oracle"}}) ==
        "p/trials.csv:4: scheduler is \"oracle\" in the file, \"" + scheduler + "\"" + trial);
  CHECK(edited({{"budget_tests", "999999"}}) == "p/trials.csv:4: budget_tests is 999999 in the file, " + budget + trial);
  CHECK(edited({{"scheduler", "bogus"}}).starts_with(
      "p/trials.csv:4: scheduler: expected round_robin, sequential, sorted_sequential, priority_queues, "));
  CHECK(edited({{"scheduler", "bogus"}}).ends_with(", found \"bogus\""));
  // Response maybe: not an answer to the task.
  CHECK(edited({{"response", "maybe"}}) ==
        "p/trials.csv:4: response: expected first or second (task 2ifc), found \"maybe\"");

  // Every other planned cell, by name, with both values.
  CHECK(edited({{"trial", "3"}}) == "p/trials.csv:4: trial is 3 in the file, 2" + trial);
  CHECK(edited({{"condition", std::to_string(t.condition.index + 1)}}) ==
        "p/trials.csv:4: condition is " + std::to_string(t.condition.index + 1) + " in the file, " +
            std::to_string(t.condition.index) + trial);
  CHECK(edited({{"repetition", std::to_string(t.repetition + 1)}}) ==
        "p/trials.csv:4: repetition is " + std::to_string(t.repetition + 1) + " in the file, " +
            std::to_string(t.repetition) + trial);
  CHECK(edited({{"block", "1"}}).starts_with(t.block == 1 ? "" : "p/trials.csv:4: block is 1 in the file, 0"));
  CHECK(edited({{"trial_in_block", "7"}}) == "p/trials.csv:4: trial_in_block is 7 in the file, 2" + trial);
  CHECK(edited({{"reference", "round_robin"}}) == "p/trials.csv:4: reference is \"round_robin\" in the file, \"full\"" + trial);
  CHECK(edited({{"task", "yes_no"}}) == "p/trials.csv:4: order: expected test or reference (task yes_no), found \"" +
                                            rows[2].order + "\"");
  CHECK(edited({{"participant", "P02"}}) == "p/trials.csv:4: participant is \"P02\" in the file, \"P01\" given to --participant");
  // Each cell in its column's domain, and what the row's own cells make it.
  CHECK(edited({{"noticed", noticed}}) == "p/trials.csv:4: noticed: expected " + std::to_string(rows[2].noticed) +
                                              " (response " + rows[2].response + " with order " + rows[2].order +
                                              "), found \"" + noticed + "\"");
  CHECK(edited({{"p_test", "1.5"}}) == "p/trials.csv:4: p_test: expected a probability in [0, 1], found \"1.5\"");
  CHECK(edited({{"p_reference", ""}}) == "p/trials.csv:4: p_reference: expected a probability in [0, 1], found \"\"");
  CHECK(edited({{"episodes_test", "-1"}}) == "p/trials.csv:4: episodes_test: expected a whole number from 0, found \"-1\"");
  CHECK(edited({{"reaction_time_ms", "350"}}) ==
        "p/trials.csv:4: reaction_time_ms: expected an empty cell (a simulated observer answers at once), found \"350\"");
  CHECK(edited({{"duration_test_s", "1"}}) ==
        "p/trials.csv:4: duration_test_s: expected an empty cell (a simulated observer's trial is not shown), found \"1\"");
  CHECK(edited({{"observer", "robot"}}) == "p/trials.csv:4: observer: expected human or simulated, found \"robot\"");
  CHECK(edited({{"ended_utc", "yesterday"}}) ==
        "p/trials.csv:4: ended_utc: expected a UTC time as 2026-01-31T12:00:00.000Z, found \"yesterday\"");
  CHECK(edited({{"session", "3"}}) == "p/trials.csv:4: session is 3 in the file after session 1 on the row before: "
                                      "sessions go 1, 2, ..., one more for each --resume");
  CHECK(edited({{"session", "0"}}) == "p/trials.csv:4: session: expected a whole number from 1 below 2^31, found \"0\"");
  // A long cell is quoted as an excerpt: the message stays one short line.
  const std::string refusal = edited({{"response", std::string(1000000, 'x')}});
  CHECK(refusal.size() < 300);
  CHECK(refusal.find("(1000000 bytes)") != std::string::npos);
  // A person's rows: their clips' durations and the reaction time are required.
  std::vector<ClipTrialRecord> person = rows;
  for (ClipTrialRecord& r : person) {
    r.observer = "human";
    r.reaction_time_ms = 812.5;
    r.duration_test_s = r.duration_reference_s = 1.0;
    r.dropped_test = r.dropped_reference = 0;
  }
  CHECK(resume_refusal(d, plan, trials_csv(person)).empty());
  CHECK(resume_refusal(d, plan, trials_csv(person, 2, {{"reaction_time_ms", ""}})) ==
        "p/trials.csv:4: reaction_time_ms: expected a number of milliseconds >= 0, found \"\"");
  // More rows than the design has trials.
  const std::vector<ClipTrialRecord> all = session_rows(d, plan, plan.size());
  std::vector<ClipTrialRecord> longer = all;
  longer.push_back(all.back());
  CHECK(resume_refusal(d, plan, trials_csv(all)).empty());
  CHECK(resume_refusal(d, plan, trials_csv(longer)) ==
        "p/trials.csv:42: trial 39, but this spec's design has no trial left: it ends after 40 trials (the trials were "
        "not run with this spec and seed)");

  // Yes/no: the reference's own trials show one clip, and full resolution runs the scene's scheduler.
  ClipComparisonSettings yes_no = two_by_two_by_two();
  yes_no.task = ClipTask::yes_no;
  const std::vector<ClipTrial> yes_no_plan = plan_clip_trials(yes_no, 7);
  const std::vector<ClipTrialRecord> yes_no_rows = session_rows(yes_no, yes_no_plan, yes_no_plan.size());
  CHECK(resume_refusal(yes_no, yes_no_plan, trials_csv(yes_no_rows)).empty());
  const auto reference = std::find_if(yes_no_rows.begin(), yes_no_rows.end(),
                                      [](const ClipTrialRecord& r) { return r.order == "reference"; });
  REQUIRE(reference != yes_no_rows.end());
  CHECK(reference->scheduler == "hybrid");
  CHECK(reference->budget_tests == 0);
  const auto at = static_cast<std::size_t>(reference - yes_no_rows.begin());
  CHECK(resume_refusal(yes_no, yes_no_plan, trials_csv(yes_no_rows, at, {{"p_test", "0.5"}})) ==
        "p/trials.csv:" + std::to_string(at + 2) +
            ": p_test: expected an empty cell (yes/no showed only the reference clip), found \"0.5\"");
  CHECK(resume_refusal(yes_no, yes_no_plan, trials_csv(yes_no_rows, at, {{"response", "first"}})) ==
        "p/trials.csv:" + std::to_string(at + 2) + ": response: expected yes or no (task yes_no), found \"first\"");
}

TEST_CASE("Clip spec: the shipped spec loads, and errors name file:line:col and the key", "[psychophysics][clips][config]") {
  const config::LoadedExperiment shipped =
      config::load_experiment_file(std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/matched_clips.yaml");
  CHECK(shipped.spec.method == DesignMethod::clip_comparison);
  REQUIRE(shipped.spec.clip_comparison.scenes.size() == 2);
  CHECK(std::filesystem::path(shipped.spec.clip_comparison.scenes[0].file).is_absolute());
  CHECK(std::filesystem::exists(shipped.spec.clip_comparison.scenes[0].file));
  CHECK(plan_clip_trials(shipped.spec.clip_comparison, 1).size() == 32);

  const std::string scene = std::string(FOVEA_SOURCE_DIR) + "/configs/examples/pile.yaml";
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      (void)config::load_experiment_text(text, "exp.yaml");
    } catch (const config::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  const std::string good = "method: clip_comparison\nclip_comparison:\n  scenes: [{name: pile, file: " + scene +
                           "}]\n  schedulers: [round_robin]\n  budgets_tests: [100]\n";
  CHECK(error_of(good).empty());
  CHECK(error_of(good + "  budget_test: 3\n") ==
        "exp.yaml:6:3: clip_comparison.budget_test: unknown key; did you mean clip_comparison.budgets_tests?");
  CHECK(error_of("method: clip_comparison\nclip_comparison:\n  scenes: [{name: pile, file: " + scene +
                 "}]\n  schedulers: []\n  budgets_tests: [100]\n") ==
        "exp.yaml:4:3: clip_comparison.schedulers: an empty list: a clip comparison needs at least one scheduler");
  CHECK(error_of(good + "  reference: scheduler\n  reference_scheduler: round_robin\n") ==
        "exp.yaml:7:3: clip_comparison.reference_scheduler: also a tested scheduler: its test clip and its reference "
        "would be the same clip; remove it from schedulers");
  CHECK(error_of("method: clip_comparison\nclip_comparison:\n  schedulers: [round_robin, fastest]\n")
            .starts_with("exp.yaml:3:29: clip_comparison.schedulers[1]: "));
  const std::string missing = error_of("method: clip_comparison\nclip_comparison:\n  scenes: [{name: x, file: /no/such.yaml}]\n"
                                       "  schedulers: [round_robin]\n  budgets_tests: [100]\n");
  CHECK(missing.starts_with("exp.yaml:3:"));
  CHECK(missing.find("clip_comparison.scenes[0].file: the scene does not load: ") != std::string::npos);
}

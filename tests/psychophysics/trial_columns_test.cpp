// The columns of trials.csv that an answer decides (issue 45; psychophysics/session.hpp,
// TrialSequence::record(TrialRecord&)): a psi trial's posterior estimates and entropy, a
// staircase trial's reversal. Each is checked against the procedure replayed by hand over the
// same answers; a resumed session checks them; a trials.csv from before them is still read
// and resumed in its own layout.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.hpp"
#include "psychophysics/psi.hpp"
#include "psychophysics/session.hpp"
#include "psychophysics/trial_design.hpp"
#include "psychophysics/trial_records.hpp"
#include "record/csv_writer.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

/// Two procedures (0 and 5 degrees) on small grids, so a session takes milliseconds; a small
/// constant-stimuli grid.
ExperimentSettings small_spec(DesignMethod method) {
  ExperimentSettings spec;
  spec.seed = 23;
  spec.method = method;
  spec.constant_stimuli.gaps_deg = {0.05, 0.1, 0.2, 0.4};
  spec.constant_stimuli.eccentricities_deg = {0, 5};
  spec.constant_stimuli.repetitions = 4;
  spec.constant_stimuli.catch_trials_per_block = 2;
  spec.constant_stimuli.blocks = 2;
  spec.staircase.eccentricities_deg = {0, 5};
  spec.staircase.start_values_deg = {0.5};
  spec.staircase.rules.n_trials = 20;
  spec.staircase.rules.n_reversals = 6;
  spec.psi.eccentricities_deg = {0, 5};
  spec.psi.n_trials = 15;
  spec.psi.catch_trials = 2;
  spec.psi.grid.gap_points = 15;
  spec.psi.grid.threshold_points = 17;
  spec.psi.grid.width_points = 5;
  spec.psi.grid.lapse_points = 3;
  return spec;
}

/// A whole session answered by the default observer, every `abort_every`-th trial shown
/// aborted (0: none), each row filled as a session fills it: the planned fields, the answer,
/// then record(TrialRecord&). Stops after `stop_after` rows; resumes after `done`.
std::vector<TrialRecord> run(const ExperimentSettings& spec, std::vector<TrialRecord> done, int abort_every,
                             std::size_t stop_after = 1u << 30) {
  TrialSequence sequence(spec, done);
  const SimulatedObserver observer(PerceptionModelSettings{}, 9, "p");
  std::map<std::int64_t, int> attempts;
  for (const TrialRecord& r : done) ++attempts[r.trial];
  while (const auto trial = sequence.next()) {
    if (done.size() >= stop_after) break;
    TrialRecord r;
    r.participant = "p";
    r.session = "1";
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
    // The rest as a simulated observer's session writes them.
    r.gap_px = 38 * r.gap_deg;
    r.eccentricity_px = 38 * r.eccentricity_deg;
    r.gaze_samples = r.stimulus_frames = r.dropped_frames = 0;
    r.observer = "simulated";
    r.started_utc = r.ended_utc = "2026-11-29T12:00:00.000Z";
    const bool abort = abort_every > 0 && (done.size() + 1) % static_cast<std::size_t>(abort_every) == 0;
    r.response = abort ? TrialResponse::aborted : observer.answer(*trial, attempts[trial->trial]++);
    sequence.record(r);
    done.push_back(r);
  }
  return done;
}

bool psi_columns_empty(const TrialRecord& r) {
  return std::isnan(r.psi_threshold_deg) && std::isnan(r.psi_threshold_sd_log10) && std::isnan(r.psi_width) &&
         std::isnan(r.psi_width_sd_log10) && std::isnan(r.psi_lapse_rate) && std::isnan(r.psi_lapse_rate_sd) &&
         std::isnan(r.psi_entropy_nats);
}

/// The entropy (nats) of `psi`'s posterior, cell by cell through the grid's (threshold,
/// width, lapse) indices: of the threshold x width marginal when `marginal`, else of it all.
double entropy_by_hand(const Psi& psi, bool marginal) {
  const std::size_t thresholds = psi.grid().thresholds_deg().size(), widths = psi.grid().widths().size(),
                    lapses = psi.grid().lapse_rates().size();
  const std::span<const double> posterior = psi.posterior();
  double h = 0;
  for (std::size_t t = 0; t < thresholds; ++t)
    for (std::size_t w = 0; w < widths; ++w) {
      double marginal_p = 0;
      for (std::size_t l = 0; l < lapses; ++l) {
        const double p = posterior[(t * widths + w) * lapses + l];
        marginal_p += p;
        if (!marginal && p > 0) h -= p * std::log(p);
      }
      if (marginal && marginal_p > 0) h -= marginal_p * std::log(marginal_p);
    }
  return h;
}

/// Writes `records` as trials.csv under `columns` (a layout: all of trial_record_header() or
/// an older one), as a session writes them.
void write_trials(const std::filesystem::path& path, const std::vector<TrialRecord>& records,
                  const std::vector<std::string>& columns) {
  CsvWriter csv(path.string(), columns);
  for (const TrialRecord& r : records) {
    for (const std::string& cell : trial_record_cells(r, columns)) csv.cell(std::string_view(cell));
    csv.end_row(CsvWriter::Flush::later);
  }
  csv.flush();
}

/// trial_record_header() without trial_record_added_columns(): the layout of a trials.csv an
/// older fovea wrote.
std::vector<std::string> older_header() {
  std::vector<std::string> header;
  const std::span<const std::string_view> added = trial_record_added_columns();
  for (const std::string& name : trial_record_header())
    if (std::find(added.begin(), added.end(), name) == added.end()) header.push_back(name);
  return header;
}

}  // namespace

TEST_CASE("Trial columns: a psi trial's estimates and entropy are its procedure's, replayed by hand over the same answers",
          "[psychophysics][session][psi][trial_columns]") {
  for (const bool marginal : {true, false}) {
    ExperimentSettings spec = small_spec(DesignMethod::psi);
    spec.psi.grid.marginal = marginal;
    INFO("psi-marginal " << marginal);
    const std::vector<TrialRecord> records = run(spec, {}, 6);
    // By hand: one Psi per procedure on the same grid, given each answered psi trial's gap
    // and answer in the records' order.
    const auto grid = std::make_shared<const PsiGrid>(spec.psi.grid);
    std::vector<Psi> by_hand(spec.psi.eccentricities_deg.size(), Psi(grid));
    int psi_rows = 0, catch_rows = 0, aborted_rows = 0;
    for (const TrialRecord& r : records) {
      INFO("trial " << r.trial << ", procedure " << r.staircase);
      CHECK_FALSE(r.reversal.has_value());
      if (r.response == TrialResponse::aborted || r.staircase < 0) {
        CHECK(psi_columns_empty(r));
        ++(r.response == TrialResponse::aborted ? aborted_rows : catch_rows);
        continue;
      }
      ++psi_rows;
      Psi& psi = by_hand[static_cast<std::size_t>(r.staircase)];
      // The gap the hand-fed procedure asks for is the one the trial showed.
      REQUIRE(psi.next_gap_deg() == r.gap_deg);
      psi.add_response(psi.next_gap(), r.response == TrialResponse::yes);
      const PsiEstimate e = psi.estimate();
      CHECK(r.psi_threshold_deg == e.threshold_deg);
      CHECK(r.psi_threshold_sd_log10 == e.threshold_sd_log10);
      CHECK(r.psi_width == e.width);
      CHECK(r.psi_width_sd_log10 == e.width_sd_log10);
      CHECK(r.psi_lapse_rate == e.lapse_rate);
      CHECK(r.psi_lapse_rate_sd == e.lapse_rate_sd);
      CHECK(r.psi_entropy_nats == Approx(entropy_by_hand(psi, marginal)).epsilon(1e-12));
    }
    CHECK(psi_rows == 2 * spec.psi.n_trials);
    CHECK(catch_rows == 2 * spec.psi.catch_trials);
    CHECK(aborted_rows > 3);
    // The entropy falls as the answers come: the last trial's is below the first's.
    const auto first = std::find_if(records.begin(), records.end(), [](const TrialRecord& r) { return !std::isnan(r.psi_entropy_nats); });
    const auto last = std::find_if(records.rbegin(), records.rend(), [](const TrialRecord& r) { return !std::isnan(r.psi_entropy_nats); });
    CHECK(last->psi_entropy_nats < first->psi_entropy_nats);
  }
}

TEST_CASE("Trial columns: the reversal column marks exactly the staircases' reversals", "[psychophysics][session][staircase][trial_columns]") {
  const ExperimentSettings spec = small_spec(DesignMethod::staircase);
  const std::vector<TrialRecord> records = run(spec, {}, 5);
  // The staircases replayed by hand over the answered trials, and each staircase's rows.
  InterleavedStaircases by_hand(spec.staircase, static_cast<std::uint64_t>(spec.seed));
  std::vector<std::vector<const TrialRecord*>> rows(spec.staircase.eccentricities_deg.size());
  for (const TrialRecord& r : records) {
    INFO("trial " << r.trial);
    CHECK(psi_columns_empty(r));
    if (r.response == TrialResponse::aborted) {
      CHECK_FALSE(r.reversal.has_value());
      continue;
    }
    REQUIRE(r.reversal.has_value());
    const PlannedTrial due = by_hand.next();
    REQUIRE(due.condition.staircase == r.staircase);
    REQUIRE(due.condition.gap_deg == r.gap_deg);
    by_hand.add_response(r.response == TrialResponse::yes);
    rows[static_cast<std::size_t>(r.staircase)].push_back(&r);
  }
  for (std::size_t s = 0; s < rows.size(); ++s) {
    INFO("staircase " << s);
    const Staircase& stair = by_hand.staircase(static_cast<int>(s));
    std::vector<int> marked;
    for (std::size_t j = 0; j < rows[s].size(); ++j)
      if (*rows[s][j]->reversal) marked.push_back(static_cast<int>(j));
    const std::span<const int> reversals = stair.reversal_trials();
    CHECK(marked == std::vector<int>(reversals.begin(), reversals.end()));
    CHECK(static_cast<int>(marked.size()) >= spec.staircase.rules.n_reversals);
    // And from the gaps alone: a reversal is a move of the gap against the one before it
    // (no gap here reaches the range's ends, where a move would be clamped away).
    int last_move = 0;
    for (std::size_t j = 0; j + 1 < rows[s].size(); ++j) {
      const double now = rows[s][j]->gap_deg, next = rows[s][j + 1]->gap_deg;
      REQUIRE(now > spec.staircase.rules.min_value);
      REQUIRE(now < spec.staircase.rules.max_value);
      const int move = next > now ? 1 : next < now ? -1 : 0;
      CHECK(*rows[s][j]->reversal == (move != 0 && last_move != 0 && move != last_move));
      if (move != 0) last_move = move;
    }
  }
}

TEST_CASE("Trial columns: constant stimuli leave them empty, and they read back as written",
          "[psychophysics][session][trial_columns]") {
  const test::TempDir dir;
  const std::vector<TrialRecord> constant = run(small_spec(DesignMethod::constant_stimuli), {}, 4, 30);
  for (const TrialRecord& r : constant) {
    CHECK(psi_columns_empty(r));
    CHECK_FALSE(r.reversal.has_value());
  }
  // Every column of every design read back as the very value written.
  for (const DesignMethod method : {DesignMethod::psi, DesignMethod::staircase}) {
    const std::vector<TrialRecord> records = run(small_spec(method), {}, 4, 40);
    write_trials(dir / "trials.csv", records, trial_record_header());
    const std::vector<TrialRecord> back = read_trial_records((dir / "trials.csv").string());
    REQUIRE(back.size() == records.size());
    for (std::size_t i = 0; i < records.size(); ++i) CHECK(trial_record_cells(back[i]) == trial_record_cells(records[i]));
  }
  // These columns are the row's last, in this order, and among the added ones an older file lacks.
  const std::vector<std::string> header = trial_record_header();
  const std::span<const std::string_view> added = trial_record_added_columns();
  const std::vector<std::string> adaptive = {"psi_threshold_deg", "psi_threshold_sd_log10", "psi_width",
                                             "psi_width_sd_log10", "psi_lapse_rate", "psi_lapse_rate_sd",
                                             "psi_entropy_nats", "reversal"};
  REQUIRE(header.size() > adaptive.size());
  CHECK(std::vector<std::string>(header.end() - 8, header.end()) == adaptive);
  for (const std::string& name : adaptive) CHECK(std::find(added.begin(), added.end(), name) != added.end());
  // A cell that is not what the column holds names its place.
  TrialRecord r = constant.front();
  r.line = 0;
  const auto refused = [&](const std::string& column, const std::string& cell) {
    std::vector<std::string> cells = trial_record_cells(r);
    const auto at = std::find(header.begin(), header.end(), column) - header.begin();
    cells[static_cast<std::size_t>(at)] = cell;
    std::string text = CsvWriter::header_line(header) + "\n" + CsvWriter::header_line(cells) + "\n";
    try {
      (void)parse_trial_records(text, "t.csv");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused("reversal", "2") == "t.csv:2: reversal: expected 0 or 1, found \"2\"");
  CHECK(refused("reversal", "yes") == "t.csv:2: reversal: expected 0 or 1, found \"yes\"");
  CHECK(refused("psi_width", "-0.5") == "t.csv:2: psi_width: expected a number >= 0, found \"-0.5\"");
  CHECK(refused("psi_entropy_nats", "nan") == "t.csv:2: psi_entropy_nats: expected a number, found \"nan\"");
  CHECK(refused("reversal", "1") == "accepted");
}

TEST_CASE("Trial columns: a resumed session replays them and refuses a row whose value differs",
          "[psychophysics][session][trial_columns]") {
  for (const DesignMethod method : {DesignMethod::psi, DesignMethod::staircase}) {
    const ExperimentSettings spec = small_spec(method);
    const std::vector<TrialRecord> whole = run(spec, {}, 7);
    INFO("method " << static_cast<int>(method));
    // Cut, written, read back and resumed: the rest is the unbroken session's, columns and all.
    const test::TempDir dir;
    const std::vector<TrialRecord> first(whole.begin(), whole.begin() + 25);
    write_trials(dir / "trials.csv", first, trial_record_header());
    const std::vector<TrialRecord> done = read_trial_records((dir / "trials.csv").string());
    const std::vector<TrialRecord> resumed = run(spec, done, 7);
    REQUIRE(resumed.size() == whole.size());
    for (std::size_t i = 25; i < whole.size(); ++i) CHECK(trial_record_cells(resumed[i]) == trial_record_cells(whole[i]));

    // An edited value in the file is named, with the design's.
    std::vector<TrialRecord> edited = done;
    const auto row = std::find_if(edited.begin() + 5, edited.end(), [](const TrialRecord& r) {
      return r.reversal.has_value() || !std::isnan(r.psi_width);
    });
    REQUIRE(row != edited.end());
    if (method == DesignMethod::psi) {
      const double replayed = row->psi_width;
      row->psi_width = replayed * (1 + 1e-12);  // another machine's last bits: accepted
      CHECK_NOTHROW(TrialSequence(spec, edited, "p/trials.csv"));
      row->psi_width = replayed * 1.01;
      CHECK_THROWS_WITH(TrialSequence(spec, edited, "p/trials.csv"),
                        "p/trials.csv:" + std::to_string(row->line) + ": psi_width is " + format_number(row->psi_width) +
                            " in the file, " + format_number(replayed) + " in this spec's design for trial " +
                            std::to_string(row->trial) + " (condition " + std::to_string(row->condition) + ")");
    } else {
      const bool replayed = *row->reversal;
      row->reversal = !replayed;
      CHECK_THROWS_WITH(TrialSequence(spec, edited, "p/trials.csv"),
                        Catch::Contains(": reversal is " + std::string(replayed ? "0" : "1") + " in the file, " +
                                        (replayed ? "1" : "0") + " in this spec's design for trial " +
                                        std::to_string(row->trial)));
      // Empty in the file: not compared (an older file has no value to compare).
      row->reversal.reset();
      CHECK_NOTHROW(TrialSequence(spec, edited, "p/trials.csv"));
    }
  }
}

TEST_CASE("Trial columns: a trials.csv from before them is read, and a session resumed on it keeps its layout",
          "[psychophysics][session][trial_columns]") {
  const ExperimentSettings spec = small_spec(DesignMethod::psi);
  const std::vector<TrialRecord> whole = run(spec, {}, 7);
  const test::TempDir dir;
  const std::filesystem::path path = dir / "trials.csv";
  const std::vector<std::string> older = older_header();
  REQUIRE(older.size() + trial_record_added_columns().size() == trial_record_header().size());
  const std::vector<TrialRecord> first(whole.begin(), whole.begin() + 20);
  write_trials(path, first, older);

  // Read with every column required, as --resume reads: the added ones are empty.
  const std::vector<TrialRecord> done = read_trial_records(path.string());
  REQUIRE(done.size() == 20);
  for (const TrialRecord& r : done) {
    CHECK(psi_columns_empty(r));
    CHECK_FALSE(r.reversal.has_value());
  }
  // The resumed session goes on as the unbroken one, its rows in the file's columns.
  const std::vector<TrialRecord> resumed = run(spec, done, 7);
  REQUIRE(resumed.size() == whole.size());
  for (std::size_t i = 20; i < whole.size(); ++i) CHECK(trial_record_cells(resumed[i]) == trial_record_cells(whole[i]));
  CHECK(trial_record_layout(path.string()) == older);
  {
    CsvWriter csv(path.string(), trial_record_layout(path.string()), CsvWriter::Open::append);  // accepted
    for (std::size_t i = 20; i < whole.size(); ++i) {
      for (const std::string& cell : trial_record_cells(resumed[i], older)) csv.cell(std::string_view(cell));
      csv.end_row(CsvWriter::Flush::durable);
    }
  }
  const std::vector<TrialRecord> all = read_trial_records(path.string());
  REQUIRE(all.size() == whole.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    CHECK(trial_record_cells(all[i], older) == trial_record_cells(whole[i], older));
    CHECK(psi_columns_empty(all[i]));
  }

  // The layouts: a new file or an empty one gets every column; a header of another layout
  // too (CsvWriter then refuses to append to it); a name trials.csv lacks is refused.
  CHECK(trial_record_layout((dir / "none.csv").string()) == trial_record_header());
  test::write_file(dir / "empty.csv", "");
  CHECK(trial_record_layout((dir / "empty.csv").string()) == trial_record_header());
  test::write_file(dir / "other.csv", "participant,response\np,yes\n");
  CHECK(trial_record_layout((dir / "other.csv").string()) == trial_record_header());
  write_trials(dir / "current.csv", first, trial_record_header());
  CHECK(trial_record_layout((dir / "current.csv").string()) == trial_record_header());
  const std::vector<std::string> unknown = {"participant", "mood"};
  CHECK_THROWS_WITH(trial_record_cells(first[0], unknown), "trial_record_cells: trials.csv has no column \"mood\"");
}

// Fuzz target: a session's trials.csv (psychophysics/trial_records.hpp), read by `fovea fit`
// and by a resumed `fovea experiment`. Each input is read twice: requiring every column
// (trial_record_columns(), as a resumed session does) and requiring the fit's
// (trial_record_fit_columns()). Refusal is std::runtime_error naming the place.
//
// Beyond "no crash", for every accepted file: gap_deg and eccentricity_deg are finite and
// >= 0, a catch trial's gap is 0, the other numbers are finite or missing (NaN), and each
// record's line lies after the header's; a file accepted with every column required is
// accepted with the fit's too, as the same records. And the round trip: the records read
// with every column are written back as trials.csv (trial_record_header, trial_record_cells,
// quoted as CsvWriter quotes) and read again, and must give the same cells, record by record.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "psychophysics/trial_records.hpp"
#include "record/csv_writer.hpp"

namespace {

using fovea::fuzz::check;

std::optional<std::vector<fovea::TrialRecord>> parse(const std::string& text, std::span<const std::string_view> required) {
  try {
    return fovea::parse_trial_records(text, "trials.csv", required);
  } catch (const std::runtime_error&) {
    return std::nullopt;  // refused, naming the place: what the reader is for
  }
}

bool finite_or_missing(double value) { return std::isfinite(value) || std::isnan(value); }

void check_record(const fovea::TrialRecord& r, std::size_t index) {
  const std::string record = "record " + std::to_string(index) + ": ";
  check(r.line >= 2, record + "a line before the first row's");
  check(std::isfinite(r.gap_deg) && r.gap_deg >= 0, record + "gap_deg not a finite number >= 0");
  check(std::isfinite(r.eccentricity_deg) && r.eccentricity_deg >= 0, record + "eccentricity_deg not a finite number >= 0");
  check(!r.catch_trial || r.gap_deg == 0, record + "a catch trial with a gap");
  check(finite_or_missing(r.direction_deg) && finite_or_missing(r.gap_px) && finite_or_missing(r.eccentricity_px) &&
            finite_or_missing(r.reaction_time_ms) && finite_or_missing(r.gaze_max_deviation_deg),
        record + "a number that is infinite");
}

/// `records` as trials.csv: the header, then each record's cells, every row as CsvWriter
/// writes it.
std::string write_trials(const std::vector<fovea::TrialRecord>& records) {
  std::string text = fovea::CsvWriter::header_line(fovea::trial_record_header()) + "\n";
  for (const fovea::TrialRecord& r : records) text += fovea::CsvWriter::header_line(fovea::trial_record_cells(r)) + "\n";
  return text;
}

void check_same_cells(const std::vector<fovea::TrialRecord>& a, const std::vector<fovea::TrialRecord>& b,
                      const std::string& what) {
  check(a.size() == b.size(), what + ": a different number of records");
  for (std::size_t i = 0; i < a.size(); ++i)
    check(fovea::trial_record_cells(a[i]) == fovea::trial_record_cells(b[i]),
          what + ": record " + std::to_string(i) + " differs");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::optional<std::vector<fovea::TrialRecord>> fit = parse(text, fovea::trial_record_fit_columns());
  if (fit)
    for (std::size_t i = 0; i < fit->size(); ++i) check_record((*fit)[i], i);

  const std::optional<std::vector<fovea::TrialRecord>> all = parse(text, fovea::trial_record_columns());
  if (!all) return 0;
  for (std::size_t i = 0; i < all->size(); ++i) check_record((*all)[i], i);
  check(fit.has_value(), "accepted with every column required, refused with the fit's");
  check_same_cells(*all, *fit, "read with every column required and with the fit's");

  const std::string written = write_trials(*all);
  std::vector<fovea::TrialRecord> again;
  try {
    again = fovea::parse_trial_records(written, "written.csv", fovea::trial_record_columns());
  } catch (const std::runtime_error& e) {
    fovea::fuzz::fail(std::string("trials.csv as written from accepted records is refused: ") + e.what());
  }
  check_same_cells(*all, again, "written back and read again");
  return 0;
}

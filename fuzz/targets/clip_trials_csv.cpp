// Fuzz target: a clip comparison's trials.csv (psychophysics/clip_records.hpp), read by a
// resumed `fovea experiment`. Refusal is std::runtime_error naming the place.
//
// Beyond "no crash", for every accepted file: each record's session is at least 1 and its
// trial, condition and repetition are in [0, 2^31). And the round trip: the records written
// back as trials.csv (clip_record_header, clip_record_cells, quoted as CsvWriter quotes) and
// read again give the same participant, session, trial, condition, repetition and order.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "psychophysics/clip_records.hpp"
#include "record/csv_writer.hpp"

namespace {

using fovea::fuzz::check;

bool same(const fovea::ClipTrialRecord& a, const fovea::ClipTrialRecord& b) {
  return a.participant == b.participant && a.session == b.session && a.trial == b.trial && a.condition == b.condition &&
         a.repetition == b.repetition && a.order == b.order;
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
  for (std::size_t i = 0; i < records.size(); ++i) {
    const fovea::ClipTrialRecord& r = records[i];
    const std::string record = "record " + std::to_string(i) + ": ";
    check(r.session >= 1, record + "a session below 1");
    check(r.trial >= 0 && r.condition >= 0 && r.repetition >= 0, record + "a negative trial, condition or repetition");
  }
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
    check(same(records[i], again[i]), "written back and read again: record " + std::to_string(i) + " differs");
  return 0;
}

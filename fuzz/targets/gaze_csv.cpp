// Fuzz target: gaze recordings (gaze/replay_gaze.hpp), the CSV `gaze.source: replay` plays
// back: fovea's own gaze.csv or any t_s, x_px, y_px[, valid] export of a tracker's software.
// Refusal is std::runtime_error naming the line. Beyond "no crash", every recording
// parse_gaze_csv accepts has at least one row, finite times that increase strictly, finite
// coordinates and age on every valid row, and age 0 on invalid ones; ReplayGaze takes it
// (its constructor throws otherwise), and sampled at exactly each row's time gives that
// row back bit for bit: its validity, and for a valid row its point and time t_s - age_s
// (the promise that a run's gaze.csv replays to the same fixations).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "gaze/replay_gaze.hpp"

namespace {

/// gaze.max_age_ms's default, as the factory passes it.
constexpr double kMaxGapS = 0.1;

/// The same double, bit for bit (NaN aside, which no accepted row has where it is compared).
bool same(double a, double b) { return a == b && std::signbit(a) == std::signbit(b); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<fovea::GazeRecordRow> rows;
  try {
    rows = fovea::parse_gaze_csv(in, "gaze.csv");
  } catch (const std::runtime_error&) {
    return 0;  // refused, naming the line: what the reader is for
  }
  fovea::fuzz::check(!rows.empty(), "a recording accepted without rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const fovea::GazeRecordRow& r = rows[i];
    const std::string row = "row " + std::to_string(i) + ": ";
    fovea::fuzz::check(std::isfinite(r.t_s), row + "t_s not finite");
    if (i > 0) fovea::fuzz::check(r.t_s > rows[i - 1].t_s, row + "t_s does not come after the previous row's");
    if (r.valid) {
      fovea::fuzz::check(std::isfinite(r.x_px) && std::isfinite(r.y_px), row + "a valid row with a point not finite");
      fovea::fuzz::check(std::isfinite(r.age_s), row + "a valid row with an age not finite");
    } else {
      fovea::fuzz::check(r.age_s == 0, row + "an invalid row with an age");
    }
  }

  // Replayed at each row's time, in order as a run asks: the row itself.
  fovea::ReplayGaze replay(rows, kMaxGapS);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const fovea::GazeRecordRow& r = rows[i];
    const fovea::GazeSample s = replay.sample(r.t_s);
    const std::string row = "replayed at row " + std::to_string(i) + "'s time: ";
    fovea::fuzz::check(s.valid == r.valid, row + "validity differs from the row's");
    if (!r.valid) continue;
    fovea::fuzz::check(same(s.x_px, r.x_px) && same(s.y_px, r.y_px), row + "point differs from the row's");
    fovea::fuzz::check(same(s.time_s, r.t_s - r.age_s), row + "time differs from t_s - age_s");
  }
  return 0;
}

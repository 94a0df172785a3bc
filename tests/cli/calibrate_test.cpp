// `fovea calibrate` end to end: a small calibration at the shipped design, its summary
// checked against a hand computation from its own per-participant CSV, and its bytes
// against a run on another number of threads.

#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

const std::string kFovea = FOVEA_BINARY;
const std::string kSource = FOVEA_SOURCE_DIR;

/// A CSV as rows of named cells.
std::vector<std::map<std::string, std::string>> read_rows(const std::string& text) {
  const std::vector<std::string> lines = lines_of(text);
  const std::vector<std::string> header = split(lines.at(0));
  std::vector<std::map<std::string, std::string>> rows;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = split(lines[i]);
    REQUIRE(cells.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

test::ProcessResult calibrate(const std::string& out, const std::string& threads, const std::filesystem::path& cwd) {
  return run_process({kFovea, "calibrate", kSource + "/configs/experiments/gap_eccentricity.yaml", "--observer",
                      kSource + "/configs/perception/default.yaml", "--participants", "12", "--bootstrap", "20",
                      "--threads", threads, "--seed", "5", "-o", out},
                     cwd);
}

}  // namespace

TEST_CASE("fovea calibrate: the summary is the hand computation from calibration.csv, and the bytes do not depend on "
          "the threads",
          "[cli][calibrate]") {
  TempDir dir;
  const auto two = calibrate("two", "2", dir.path());
  INFO(two.err);
  REQUIRE(two.status == 0);
  const auto one = calibrate("one", "1", dir.path());
  REQUIRE(one.status == 0);
  for (const char* file : {"calibration.csv", "calibration_summary.csv"})
    CHECK(read_file(dir / "two" / file) == read_file(dir / "one" / file));
  CHECK(two.out == one.out);

  const auto rows = read_rows(read_file(dir / "two" / "calibration.csv"));
  REQUIRE(rows.size() == 12 * 5);
  const auto summary = read_rows(read_file(dir / "two" / "calibration_summary.csv"));
  REQUIRE(summary.size() == 5);
  // The truth is the observer file's: configs/perception/default.yaml.
  const std::map<std::string, double> truth = {{"threshold_deg", 0.08}, {"eccentricity_scale_deg", 1.0},
                                               {"width", 1.0},          {"lapse_rate", 0.02},
                                               {"guess_rate", 0.0}};
  for (const auto& s : summary) {
    const std::string parameter = s.at("parameter");
    INFO(parameter);
    std::vector<double> estimates, widths;
    int covered = 0, with_interval = 0;
    for (const auto& r : rows) {
      if (r.at("parameter") != parameter) continue;
      CHECK(r.at("trials") == "520");  // the shipped design: 6 x 4 x 20 + 5 x 8 catch trials
      CHECK(std::stod(r.at("truth")) == truth.at(parameter));
      const double estimate = std::stod(r.at("estimate"));
      const double low = std::stod(r.at("ci_low")), high = std::stod(r.at("ci_high"));
      estimates.push_back(estimate);
      widths.push_back(high - low);
      ++with_interval;
      const bool holds = low <= truth.at(parameter) && truth.at(parameter) <= high;
      CHECK(r.at("covered") == (holds ? "1" : "0"));
      covered += holds ? 1 : 0;
    }
    REQUIRE(estimates.size() == 12);
    double sum = 0;
    for (const double e : estimates) sum += e;
    std::sort(estimates.begin(), estimates.end());
    std::sort(widths.begin(), widths.end());
    const double mean = sum / 12, median = 0.5 * (estimates[5] + estimates[6]);
    CHECK(std::stod(s.at("truth")) == truth.at(parameter));
    CHECK(std::stod(s.at("mean")) == Approx(mean).epsilon(1e-12));
    CHECK(std::stod(s.at("median")) == Approx(median).epsilon(1e-12));
    CHECK(std::stod(s.at("median_interval_width")) == Approx(0.5 * (widths[5] + widths[6])).epsilon(1e-12));
    CHECK(std::stoi(s.at("covered")) == covered);
    CHECK(std::stoi(s.at("with_interval")) == with_interval);
    if (truth.at(parameter) != 0) {
      CHECK(std::stod(s.at("mean_bias_percent")) ==
            Approx(100 * (mean - truth.at(parameter)) / truth.at(parameter)).margin(1e-9));
    } else {
      CHECK(s.at("mean_bias_percent").empty());
    }
    // Wilson's interval holds the observed share and lies in [0, 1].
    const double share = static_cast<double>(covered) / with_interval;
    CHECK(std::stod(s.at("coverage")) == Approx(share));
    CHECK(std::stod(s.at("coverage_low")) <= share);
    CHECK(std::stod(s.at("coverage_high")) >= share);
  }
  // The printed table names every parameter and the design.
  CHECK(two.out.find("12 participants, 520 trials each") != std::string::npos);
  for (const auto& [name, value] : truth) CHECK(two.out.find(name) != std::string::npos);
}

TEST_CASE("fovea calibrate: --set changes the design, and a bad key is one line naming it", "[cli][calibrate]") {
  TempDir dir;
  const std::string spec = kSource + "/configs/experiments/gap_eccentricity.yaml";
  const std::string observer = kSource + "/configs/perception/default.yaml";
  auto r = run_process({kFovea, "calibrate", spec, "--observer", observer, "--participants", "2", "--bootstrap", "0",
                        "--set", "method=staircase", "-o", "stairs"},
                       dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto rows = read_rows(read_file(dir / "stairs" / "calibration.csv"));
  REQUIRE(rows.size() == 2 * 5);
  // Four interleaved staircases of at least 40 trials each (staircase.n_trials; a staircase
  // also waits for its 8 reversals), no catch trials.
  for (const auto& row : rows) CHECK(std::stoi(row.at("trials")) >= 160);
  // No bootstrap: no intervals, so nothing to cover.
  for (const auto& row : rows) CHECK(row.at("covered").empty());

  r = run_process({kFovea, "calibrate", spec, "--observer", observer, "--set", "constant_stimuli.repetitionz=3", "-o",
                   "bad"},
                  dir.path());
  CHECK(r.status == 2);
  CHECK(r.err.find("repetitionz") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "bad"));
}

TEST_CASE("fovea calibrate: rows reach calibration.csv as participants finish, and a killed run keeps them whole",
          "[cli][calibrate][signals]") {
  // Issue 42: --participants 1000000 (the documented maximum) held every participant's fit,
  // grew 13 MB/s and died out of memory, writing nothing. The rows are now written as each
  // participant finishes, at most a window of participants held: here the first rows of a
  // million-participant run are on the disk long before it could end, and after a kill every
  // participant in the file has its five rows, in order.
  TempDir dir;
  fovea::test::ChildProcess child({kFovea, "calibrate", kSource + "/configs/experiments/gap_eccentricity.yaml",
                                   "--observer", kSource + "/configs/perception/default.yaml", "--participants",
                                   "1000000", "--bootstrap", "0", "--threads", "1", "-o", "big"},
                                  dir.path(), dir / "stdout", dir / "stderr");
  REQUIRE(wait_for_lines(dir / "big" / "calibration.csv", 1 + 5 * 30, std::chrono::seconds(120)));
  child.send_signal(SIGKILL);
  CHECK(child.wait() == 128 + SIGKILL);
  const auto rows = read_rows(read_file(dir / "big" / "calibration.csv"));
  REQUIRE(rows.size() >= 5 * 30);
  CHECK(rows.size() % 5 == 0);  // whole participants only
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string digits = std::to_string(i / 5);
    CHECK(rows[i].at("participant") == "sim" + std::string(digits.size() < 4 ? 4 - digits.size() : 0, '0') + digits);
  }
  // What made them is said from the start; a summary only by a run that ends.
  CHECK(std::filesystem::exists(dir / "big" / "calibration.json"));
  CHECK_FALSE(std::filesystem::exists(dir / "big" / "calibration_summary.csv"));
  // No scratch file is left behind (the medians' values are in one unlinked as it is made).
  for (const auto& entry : std::filesystem::directory_iterator(dir / "big"))
    CHECK(entry.path().filename().string().find("calibration-values") == std::string::npos);
}

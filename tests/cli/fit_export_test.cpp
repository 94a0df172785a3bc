// `fovea fit --export psignifit|palamedes` (experiments/fovea/fit_export.hpp; docs/cli.md,
// "fovea fit"): the counted trials per participant, eccentricity and gap, as psignifit 4 and
// Palamedes take them. The counts are checked against a count made by hand from a small
// trials.csv, and against a brute-force count over a larger simulated one.

#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/format.hpp"
#include "fovea/fit_export.hpp"
#include "perception/perception_model.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

const std::string kFovea = FOVEA_BINARY;

/// The six columns the fit reads.
const std::string kHeader = "participant,catch_trial,gap_deg,eccentricity_deg,response,fixation_kept\n";

/// `fovea fit` on `trials` into out/m.yaml, quickly, with `more` arguments.
ProcessResult fit(const TempDir& dir, const std::string& trials, std::vector<std::string> more) {
  std::vector<std::string> argv = {kFovea, "fit", trials, "-o", "out/m.yaml", "--bootstrap", "0", "--no-plots"};
  argv.insert(argv.end(), more.begin(), more.end());
  return run_process(argv, dir.path());
}

}  // namespace

TEST_CASE("fovea fit --export: count_levels pools the trials per eccentricity and gap, in order",
          "[cli][fit][export]") {
  const std::vector<TrialOutcome> trials = {{5, 0.2, true}, {0, 0.1, false}, {5, 0.2, false}, {0, 0, false},
                                            {0, 0.1, true}, {0, 0.1, true},  {5, 0, true},     {0, 0.3, true}};
  const std::vector<LevelCount> rows = count_levels(trials);
  // By hand: (0, 0) 0 of 1; (0, 0.1) 2 of 3; (0, 0.3) 1 of 1; (5, 0) 1 of 1; (5, 0.2) 1 of 2.
  REQUIRE(rows.size() == 5);
  const std::vector<std::vector<double>> expected = {{0, 0, 0, 1}, {0, 0.1, 2, 3}, {0, 0.3, 1, 1}, {5, 0, 1, 1}, {5, 0.2, 1, 2}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("row " << i);
    CHECK(std::vector<double>{rows[i].eccentricity_deg, rows[i].gap_deg, static_cast<double>(rows[i].positive),
                              static_cast<double>(rows[i].total)} == expected[i]);
  }
  CHECK(count_levels({}).empty());
  CHECK(export_columns(ExportFormat::psignifit, ResponseKind::yes_no) ==
        std::vector<std::string>{"participant", "eccentricity_deg", "gap_deg", "n_yes", "n_total"});
  CHECK(export_columns(ExportFormat::psignifit, ResponseKind::forced_choice)[3] == "n_correct");
  CHECK(export_columns(ExportFormat::palamedes, ResponseKind::forced_choice) ==
        std::vector<std::string>{"participant", "eccentricity_deg", "StimLevels", "NumPos", "OutOfNum"});
  CHECK(export_file_name("model", ExportFormat::palamedes) == "model_palamedes.csv");
}

TEST_CASE("fovea fit --export: the files hold the counts made by hand from a small trials.csv", "[cli][fit][export]") {
  TempDir dir;
  // Two participants at 0 and 5 degrees; aborted rows and rows whose fixation was lost, which
  // the fit leaves out, say yes to the smallest gap: counted, they would change the counts.
  write_file(dir / "small.csv", kHeader +
                                    "P1,0,0.05,0,no,1\n"
                                    "P1,0,0.05,0,yes,1\n"
                                    "P1,0,0.2,0,yes,1\n"
                                    "P1,0,0.2,0,yes,1\n"
                                    "P1,0,0.05,0,yes,0\n"
                                    "P1,1,0,0,no,1\n"
                                    "P1,0,0.05,5,no,1\n"
                                    "P1,0,0.05,0,aborted,1\n"
                                    "P1,0,0.2,5,no,1\n"
                                    "P1,0,0.8,5,yes,1\n"
                                    "P1,0,0.8,5,yes,1\n"
                                    "P1,1,0,5,yes,1\n"
                                    "P2,0,0.05,0,no,1\n"
                                    "P2,0,0.2,0,yes,1\n"
                                    "P2,0,0.2,5,yes,1\n"
                                    "P2,0,0.05,5,no,1\n"
                                    "P2,0,0.8,5,yes,1\n"
                                    "P2,0,0.2,0,no,1\n"
                                    "P2,1,0,0,no,1\n"
                                    "P2,0,0.8,5,no,1\n");
  const ProcessResult r = fit(dir, "small.csv", {"--export", "psignifit", "--export", "palamedes,psignifit"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Counted by hand, per participant then pooled, each by eccentricity then gap.
  const std::string counts =
      "P1,0,0,0,1\n"
      "P1,0,0.05,1,2\n"
      "P1,0,0.2,2,2\n"
      "P1,5,0,1,1\n"
      "P1,5,0.05,0,1\n"
      "P1,5,0.2,0,1\n"
      "P1,5,0.8,2,2\n"
      "P2,0,0,0,1\n"
      "P2,0,0.05,0,1\n"
      "P2,0,0.2,1,2\n"
      "P2,5,0.05,0,1\n"
      "P2,5,0.2,1,1\n"
      "P2,5,0.8,1,2\n"
      "pooled,0,0,0,2\n"
      "pooled,0,0.05,1,3\n"
      "pooled,0,0.2,3,4\n"
      "pooled,5,0,1,1\n"
      "pooled,5,0.05,0,2\n"
      "pooled,5,0.2,1,2\n"
      "pooled,5,0.8,3,4\n";
  CHECK(read_file(dir / "out" / "m_psignifit.csv") == "participant,eccentricity_deg,gap_deg,n_yes,n_total\n" + counts);
  CHECK(read_file(dir / "out" / "m_palamedes.csv") ==
        "participant,eccentricity_deg,StimLevels,NumPos,OutOfNum\n" + counts);
  // The conditions file holds the same counts (trials, then yes).
  const std::vector<std::string> conditions = lines_of(read_file(dir / "out" / "m_conditions.csv"));
  const std::vector<std::string> expected = lines_of(counts);
  REQUIRE(conditions.size() == expected.size() + 1);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const std::vector<std::string> c = split(conditions[i + 1]), e = split(expected[i]);
    CHECK(std::vector<std::string>{c[0], c[1], c[2], c[4], c[3]} == e);
  }
  // <stem>_fit.json names the files and what their count counts, each tool once.
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "out" / "m_fit.json"));
  CHECK(j["exports"] == nlohmann::json::parse(R"([{"format": "psignifit", "file": "m_psignifit.csv", "counts": "yes"},
                                                  {"format": "palamedes", "file": "m_palamedes.csv", "counts": "yes"}])"));
  CHECK(r.err.find("out/m_psignifit.csv, out/m_palamedes.csv\n") != std::string::npos);

  // Without --export: no such files, no such key.
  const ProcessResult plain = run_process({kFovea, "fit", "small.csv", "-o", "plain/m.yaml", "--bootstrap", "0", "--no-plots"},
                                          dir.path());
  REQUIRE(plain.status == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "plain" / "m_psignifit.csv"));
  CHECK_FALSE(nlohmann::json::parse(read_file(dir / "plain" / "m_fit.json")).contains("exports"));
}

TEST_CASE("fovea fit --export: every row is a brute-force count of a simulated session's counted trials",
          "[cli][fit][export]") {
  TempDir dir;
  // 900 rows of three participants from a known model, one in eight aborted or lost.
  const PerceptionModel truth(PerceptionModelSettings{.threshold_deg = 0.1, .eccentricity_scale_deg = 4.0,
                                                      .guess_rate = 0.05, .lapse_rate = 0.02});
  std::mt19937_64 rng(45);
  std::uniform_real_distribution<double> uniform(0, 1);
  const std::vector<std::string> participants = {"A", "B", "C"};
  const std::vector<double> eccentricities = {0, 4, 8}, ratios = {0, 0.5, 1, 1.5, 2, 3};
  struct Row {
    std::string participant;
    double eccentricity_deg, gap_deg;
    std::string response;
    bool fixation_kept;
  };
  std::vector<Row> rows;
  std::string text = kHeader;
  for (int i = 0; i < 900; ++i) {
    Row row;
    row.participant = participants[static_cast<std::size_t>(i) % 3];
    row.eccentricity_deg = eccentricities[static_cast<std::size_t>(uniform(rng) * 3)];
    row.gap_deg = ratios[static_cast<std::size_t>(uniform(rng) * 6)] * truth.threshold_deg(row.eccentricity_deg);
    const double draw = uniform(rng);
    row.response = draw < 1.0 / 16 ? "aborted" : uniform(rng) < truth.probability(row.eccentricity_deg, row.gap_deg) ? "yes" : "no";
    row.fixation_kept = !(draw >= 1.0 / 16 && draw < 1.0 / 8);
    rows.push_back(row);
    text += row.participant + "," + (row.gap_deg > 0 ? "0" : "1") + "," + format_number(row.gap_deg) + "," +
            format_number(row.eccentricity_deg) + "," + row.response + "," + (row.fixation_kept ? "1" : "0") + "\n";
  }
  write_file(dir / "sim.csv", text);
  const ProcessResult r = fit(dir, "sim.csv", {"--export", "palamedes"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = lines_of(read_file(dir / "out" / "m_palamedes.csv"));
  REQUIRE(lines.size() > 1);
  int total = 0, pooled_total = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = split(lines[i]);
    REQUIRE(cells.size() == 5);
    INFO(lines[i]);
    // By brute force: every counted row of the file with this participant (any, for pooled),
    // eccentricity and gap, compared as the numbers written.
    int yes = 0, n = 0;
    for (const Row& row : rows)
      if ((cells[0] == "pooled" || row.participant == cells[0]) && format_number(row.eccentricity_deg) == cells[1] &&
          format_number(row.gap_deg) == cells[2] && row.response != "aborted" && row.fixation_kept) {
        ++n;
        yes += row.response == "yes" ? 1 : 0;
      }
    CHECK(cells[3] == std::to_string(yes));
    CHECK(cells[4] == std::to_string(n));
    (cells[0] == "pooled" ? pooled_total : total) += std::stoi(cells[4]);
  }
  // Every counted trial is in one row of its participant and one pooled row.
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "out" / "m_fit.json"));
  CHECK(total == j["inputs"][0]["counted"].get<int>());
  CHECK(pooled_total == total);
  CHECK(total > 700);
}

TEST_CASE("fovea fit --export: an unknown tool, or an export that would overwrite an input, is refused",
          "[cli][fit][export][errors]") {
  TempDir dir;
  write_file(dir / "t.csv", kHeader + "P1,0,0.05,0,no,1\nP1,0,0.2,0,yes,1\nP1,0,0.2,5,no,1\nP1,0,0.8,5,yes,1\n");
  const ProcessResult unknown = fit(dir, "t.csv", {"--export", "spss"});
  CHECK(unknown.status == 2);
  CHECK(unknown.err.find("--export: \"spss\" is not one of psignifit|palamedes") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out"));

  std::filesystem::create_directories(dir / "out");
  std::filesystem::copy_file(dir / "t.csv", dir / "out" / "m_psignifit.csv");
  const ProcessResult overwrite =
      run_process({kFovea, "fit", "out/m_psignifit.csv", "-o", "out/m.yaml", "--export", "psignifit", "--no-plots"},
                  dir.path());
  CHECK(overwrite.status == 2);
  CHECK(overwrite.err == "fovea fit: out/m_psignifit.csv is an input; writing out/m_psignifit.csv would overwrite it: "
                         "choose another -o\n");
  CHECK_FALSE(std::filesystem::exists(dir / "out" / "m.yaml"));
}

TEST_CASE("fovea fit --export: two-interval trials are counted as correct, and the files say so", "[cli][fit][export]") {
  TempDir dir;
  // gap_interval names the animation with the gap; first and second are correct when they
  // name it.
  write_file(dir / "2ifc.csv",
             "participant,catch_trial,gap_deg,eccentricity_deg,gap_interval,response,fixation_kept\n"
             "P1,0,0.05,0,1,second,1\n"
             "P1,0,0.05,0,2,second,1\n"
             "P1,0,0.2,0,1,first,1\n"
             "P1,0,0.2,0,2,second,1\n"
             "P1,0,0.05,5,2,first,1\n"
             "P1,0,0.2,5,1,second,1\n"
             "P1,0,0.8,5,1,first,1\n"
             "P1,0,0.8,5,2,first,1\n");
  const ProcessResult r = fit(dir, "2ifc.csv", {"--export", "psignifit,palamedes"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(read_file(dir / "out" / "m_psignifit.csv") ==
        "participant,eccentricity_deg,gap_deg,n_correct,n_total\n"
        "P1,0,0.05,1,2\nP1,0,0.2,2,2\nP1,5,0.05,0,1\nP1,5,0.2,0,1\nP1,5,0.8,1,2\n"
        "pooled,0,0.05,1,2\npooled,0,0.2,2,2\npooled,5,0.05,0,1\npooled,5,0.2,0,1\npooled,5,0.8,1,2\n");
  const nlohmann::json j = nlohmann::json::parse(read_file(dir / "out" / "m_fit.json"));
  CHECK(j["exports"][0]["counts"] == "correct");
  CHECK(j["exports"][1]["counts"] == "correct");
}

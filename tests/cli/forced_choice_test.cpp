// A two-interval forced-choice experiment end to end through the binary (docs/psychophysics.md,
// "Forced choice"): `fovea experiment` with a simulated observer writes the intervals, the
// answers and whether they were correct; `fovea fit` sees the two-interval rows and holds the
// guess rate at 1/2, writes the detection function, and refuses a mix of tasks.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "psychophysics/trial_records.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

const std::string kFovea = FOVEA_BINARY;
const std::string kSource = FOVEA_SOURCE_DIR;

/// Runs `spec` with the default model answering, `sets` applied; the participant's folder.
std::filesystem::path simulated_session(const TempDir& dir, const std::string& spec, const std::string& participant,
                                        const std::vector<std::string>& sets) {
  std::vector<std::string> args = {kFovea, "experiment", kSource + "/configs/experiments/" + spec, "--participant",
                                   participant, "--observer", kSource + "/configs/perception/default.yaml", "--quiet",
                                   "--out", (dir / participant).string()};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  const ProcessResult r = run_process(args, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  return dir / participant;
}

}  // namespace

TEST_CASE("fovea experiment and fit: a two-interval session records its intervals and is fitted with the guess rate at 1/2",
          "[cli][experiment][fit][forced_choice]") {
  TempDir dir;
  const std::filesystem::path folder = simulated_session(dir, "gap_2ifc.yaml", "sim", {"psi.n_trials=40"});
  const std::vector<TrialRecord> rows = read_trial_records((folder / "trials.csv").string());
  REQUIRE(rows.size() == 160);
  int correct = 0;
  for (const TrialRecord& r : rows) {
    REQUIRE((r.gap_interval == 1 || r.gap_interval == 2));
    REQUIRE((r.response == TrialResponse::first || r.response == TrialResponse::second));
    CHECK(r.correct == (positive_answer(r.response, r.gap_interval) ? 1 : 0));
    CHECK(!r.catch_trial);
    CHECK(r.gap_deg > 0);
    correct += static_cast<int>(r.correct);
  }
  // The psi keeps the gaps near each threshold: most answers right, far from all.
  CHECK(correct > 160 / 2);
  CHECK(correct < 160);

  const ProcessResult fit = run_process({kFovea, "fit", (folder / "trials.csv").string(), "-o", (dir / "m.yaml").string(),
                                         "--bootstrap", "20", "--no-plots"},
                                        dir.path());
  INFO(fit.err);
  REQUIRE(fit.status == 0);
  const std::string model = read_file(dir / "m.yaml");
  CHECK(model.find("two-interval forced choice") != std::string::npos);
  CHECK(model.find("\nguess_rate: 0\n") != std::string::npos);
  const nlohmann::json fitted = nlohmann::json::parse(read_file(dir / "m_fit.json"));
  CHECK(fitted.at("settings").at("guess_rate") == "forced_choice");

  // A yes/no session's rows beside the two-interval ones: refused, naming the first of each.
  const std::filesystem::path yes_no = simulated_session(dir, "gap_eccentricity.yaml", "yn", {"constant_stimuli.repetitions=2"});
  const ProcessResult mixed = run_process({kFovea, "fit", (folder / "trials.csv").string(), (yes_no / "trials.csv").string(),
                                           "-o", (dir / "mixed.yaml").string(), "--no-plots"},
                                          dir.path());
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("the trials mix yes/no rows (the first at " + (yes_no / "trials.csv").string() + ":2)") !=
        std::string::npos);
  CHECK(!std::filesystem::exists(dir / "mixed.yaml"));
  // --guess forced_choice on yes/no answers: refused.
  const ProcessResult wrong = run_process({kFovea, "fit", (yes_no / "trials.csv").string(), "-o", (dir / "w.yaml").string(),
                                           "--guess", "forced_choice", "--no-plots"},
                                          dir.path());
  CHECK(wrong.status == 2);
  CHECK(wrong.err.find("--guess forced_choice needs two-interval trials") != std::string::npos);
}

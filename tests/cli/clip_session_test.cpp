// `fovea experiment` on a clip comparison (docs/psychophysics.md, "Clip comparison"),
// simulated: the same spec and seed give the same bytes, and a session killed mid-trial and
// resumed equals an unbroken one row for row.

#include <catch2/catch.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea::test;

namespace {

const std::string kFovea = FOVEA_BINARY;
const std::string kSpec = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/matched_clips.yaml";
const std::string kObserver = std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml";

/// A participant's session of matched_clips.yaml at two repetitions (16 trials).
std::vector<std::string> session(const std::string& participant, const std::string& out, std::vector<std::string> extra) {
  std::vector<std::string> argv = {kFovea, "experiment", kSpec, "--participant", participant, "--observer", kObserver,
                                   "--out", out, "--quiet", "--set", "clip_comparison.repetitions=2"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

/// How long a test waits for a process to write the lines it waits for.
constexpr std::chrono::seconds kLinesTimeout(60);

}  // namespace

TEST_CASE("fovea experiment: a clip comparison gives the same bytes for the same spec and seed, and its answers follow "
          "the clips",
          "[cli][experiment][clips][slow]") {
  TempDir dir;
  REQUIRE(run_process(session("P01", "a", {}), dir.path()).status == 0);
  REQUIRE(run_process(session("P01", "b", {}), dir.path()).status == 0);
  const std::vector<std::string> times = {"started_utc", "ended_utc"};
  const std::string a = without_columns(read_file(dir / "a" / "trials.csv"), times);
  CHECK(a == without_columns(read_file(dir / "b" / "trials.csv"), times));
  const auto rows = lines_of(read_file(dir / "a" / "trials.csv"));
  REQUIRE(rows.size() == 17);  // 2 scenes x 2 schedulers x 2 budgets x 2 repetitions
  const auto columns = split(rows[0]);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  bool some_error = false;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    REQUIRE(cells.size() == columns.size());
    CHECK(cells[column("p_reference")] == "0");  // full resolution leaves nothing to see
    CHECK(cells[column("episodes_reference")] == "0");
    some_error |= std::stod(cells[column("p_test")]) > 0;
    // The test clip is chosen exactly when the answer names its place.
    const bool test_first = cells[column("order")] == "test_first";
    CHECK(cells[column("noticed")] == ((cells[column("response")] == "first") == test_first ? "1" : "0"));
  }
  CHECK(some_error);
  // The data dictionary beside it describes every column, and only those.
  const nlohmann::json dictionary = nlohmann::json::parse(read_file(dir / "a" / "trials.json"));
  CHECK(dictionary.size() == columns.size());
  for (const std::string& name : columns) {
    INFO(name);
    REQUIRE(dictionary.contains(name));
    CHECK_FALSE(dictionary[name]["Description"].get<std::string>().empty());
  }
  CHECK(dictionary["noticed"]["Levels"]["1"] == "yes");
  // Another participant answers on their own.
  REQUIRE(run_process(session("P02", "c", {}), dir.path()).status == 0);
  CHECK(a != without_columns(read_file(dir / "c" / "trials.csv"), {"started_utc", "ended_utc", "participant"}));
}

TEST_CASE("fovea experiment: a clip comparison killed mid-trial and resumed equals an unbroken session",
          "[cli][experiment][clips][signals]") {
  TempDir dir;
  REQUIRE(run_process(session("P01", "whole", {}), dir.path()).status == 0);
  const auto whole = lines_of(read_file(dir / "whole" / "trials.csv"));
  REQUIRE(whole.size() == 17);
  {
    fovea::test::ChildProcess child(session("P01", "killed", {"--observer-pace-ms", "300"}), dir.path(), dir / "stdout",
                             dir / "stderr");
    REQUIRE(wait_for_lines(dir / "killed" / "trials.csv", 5, kLinesTimeout));
    child.send_signal(SIGKILL);
    CHECK(child.wait() == 128 + SIGKILL);
  }
  const auto before = lines_of(read_file(dir / "killed" / "trials.csv"));
  REQUIRE(before.size() >= 5);
  REQUIRE(before.size() < 17);
  const auto refused = run_process(session("P01", "killed", {}), dir.path());
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--resume continues that session") != std::string::npos);
  const auto changed = run_process(session("P01", "killed", {"--resume", "--set", "seed=2"}), dir.path());
  CHECK(changed.status == 2);
  CHECK(changed.err.find("the spec differs") != std::string::npos);
  REQUIRE(run_process(session("P01", "killed", {"--resume"}), dir.path()).status == 0);
  check_resumed_trials(whole, lines_of(read_file(dir / "killed" / "trials.csv")), before.size());
  const std::string log = read_file(dir / "killed" / "session.log");
  CHECK(log.find("session 2 of participant P01 started, clip comparison, resuming after " +
                 std::to_string(before.size() - 1) + " trials") != std::string::npos);
  CHECK(log.find("session 2 complete: 16 trials") != std::string::npos);
}

TEST_CASE("fovea experiment: a clip comparison's --resume refuses an edited row, naming the field and both values",
          "[cli][experiment][clips]") {
  // Issue 42: order 7 in row 3, scene/scheduler/budget bogus,oracle,999999 and response maybe
  // were kept, and the session went on and exited 0.
  TempDir dir;
  REQUIRE(run_process(session("P01", "whole", {}), dir.path()).status == 0);
  const auto whole = lines_of(read_file(dir / "whole" / "trials.csv"));
  REQUIRE(whole.size() == 17);
  const auto columns = split(whole[0]);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  const auto row3 = split(whole[3]);
  const std::string trial = " in this spec's design for trial 2 (condition " + row3[column("condition")] + ")\n";
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> edits = {
      {{{"order", "7"}},
       "order: expected test_first or reference_first (task 2ifc), found \"7\"\n"},
      {{{"scene", "bogus"}, {"scheduler", "oracle"}, {"budget_tests", "999999"}},
       "scene is \"bogus\" in the file, \"" + row3[column("scene")] + "\"" + trial},
      {{{"response", "maybe"}}, "response: expected first or second (task 2ifc), found \"maybe\"\n"},
  };
  int n = 0;
  for (const auto& [edit, message] : edits) {
    const std::string folder = "edited" + std::to_string(n++);
    INFO(folder);
    std::filesystem::create_directories(dir / folder);
    for (const char* file : {"experiment.yaml", "trials.json", "session.log"})
      std::filesystem::copy_file(dir / "whole" / file, dir / folder / file);
    // The first five trials, the third edited.
    std::string text;
    for (std::size_t i = 0; i <= 5; ++i) {
      std::vector<std::string> cells = split(whole[i]);
      if (i == 3)
        for (const auto& [name, value] : edit) cells[column(name)] = value;
      for (std::size_t c = 0; c < cells.size(); ++c) text += (c ? "," : "") + cells[c];
      text += "\n";
    }
    write_file(dir / folder / "trials.csv", text);
    const auto resumed = run_process(session("P01", folder, {"--resume"}), dir.path());
    CHECK(resumed.status == 2);
    CHECK(resumed.err == "fovea experiment: " + folder + "/trials.csv:4: " + message);
    CHECK(read_file(dir / folder / "trials.csv") == text);  // left as it was
  }
}

TEST_CASE("fovea experiment: a person's clip comparison run by synthetic keys offscreen, ended by Escape and resumed",
          "[cli][experiment][clips][person][slow]") {
  TempDir dir;
  const auto person = [&](const std::string& keys, std::vector<std::string> extra) {
    std::vector<std::string> argv = {kFovea, "experiment", kSpec, "--participant", "H01", "--out", "h01", "--quiet",
                                     "--set", "clip_comparison.repetitions=1", "--set", "clip_comparison.blocks=1",
                                     "--set", "clip_comparison.clip_s=0.2", "--set", "task.inter_trial_interval_s=0.05",
                                     "--set", "display.development_run=true", "--synthetic-keys", keys};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return run_process(argv, dir.path());
  };
  // Two answers, then Escape at the third trial's question.
  const auto first = person("instructions:Space,answer:1,answer:2,answer:Escape", {});
  INFO(first.err);
  REQUIRE(first.status == 0);
  auto rows = lines_of(read_file(dir / "h01" / "trials.csv"));
  REQUIRE(rows.size() == 3);
  const auto columns = split(rows[0]);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  const std::vector<std::string> answers = {"first", "second"};
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    CHECK(cells[column("observer")] == "human");
    CHECK(cells[column("response")] == answers[i - 1]);
    const bool test_first = cells[column("order")] == "test_first";
    CHECK(cells[column("noticed")] == ((answers[i - 1] == "first") == test_first ? "1" : "0"));
    CHECK(std::stod(cells[column("duration_test_s")]) >= 0.15);  // a 0.2 s clip, on the steady clock
    CHECK_FALSE(cells[column("dropped_test")].empty());
    CHECK_FALSE(cells[column("p_test")].empty());
    CHECK(cells[column("p_reference")] == "0");
    CHECK_FALSE(cells[column("reaction_time_ms")].empty());
  }
  const auto frames = lines_of(read_file(dir / "h01" / "clip_frames.csv"));
  CHECK(frames.size() > 4);  // the header and the clips' frames
  CHECK(frames[0] == "participant,session,trial,attempt,clip,frame,t_ms,dropped");
  std::string log = read_file(dir / "h01" / "session.log");
  CHECK(log.find("a development run") != std::string::npos);
  CHECK(log.find("keys from --synthetic-keys") != std::string::npos);
  CHECK(log.find("session 1 ended by the participant (Escape or the window closed) after 2 trials") != std::string::npos);

  // A script with keys left over fails; the resumed session answers the other six.
  REQUIRE(person("instructions:Space,answer:1,answer:1,answer:1,answer:2,answer:2,answer:2", {"--resume"}).status == 0);
  rows = lines_of(read_file(dir / "h01" / "trials.csv"));
  REQUIRE(rows.size() == 9);
  CHECK(split(rows[3])[1] == "2");
  log = read_file(dir / "h01" / "session.log");
  CHECK(log.find("session 2 complete: 8 trials") != std::string::npos);

  // Without a development run the offscreen frames, which have no vsync, are refused.
  TempDir other;
  const auto refused = run_process({kFovea, "experiment", kSpec, "--participant", "H02", "--out", "h02",
                                    "--synthetic-keys", "instructions:Space"},
                                   other.path());
  CHECK(refused.status == 2);
  CHECK(refused.err.find("display.development_run") != std::string::npos);
  CHECK(!std::filesystem::exists(other.path() / "h02"));  // a refusal leaves nothing behind
}

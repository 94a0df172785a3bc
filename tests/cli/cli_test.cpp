// End-to-end tests of the fovea binary, run as a user runs it: in a temporary folder, with
// real files, real signals and real exit statuses.

#include <catch2/catch.hpp>

#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/file_read.hpp"
#include "core/format.hpp"
#include "perception/perception_model.hpp"
#include "psychophysics/psychometric_fit.hpp"
#include "support/csv_text.hpp"
#include "support/free_port.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;
using namespace fovea::test;

namespace {

const std::string kFovea = FOVEA_BINARY;

nlohmann::json read_json(const std::filesystem::path& path) { return nlohmann::json::parse(read_file(path)); }

/// Checks that `fovea validate CONFIG`, run in `dir`, accepts the config silently: status 0,
/// nothing on stdout or stderr.
void check_valid(const TempDir& dir, const std::string& config) {
  const auto v = run_process({kFovea, "validate", config}, dir.path());
  INFO("fovea validate " << config);
  CHECK(v.status == 0);
  CHECK(v.out.empty());
  CHECK(v.err.empty());
}

/// How long a test waits for a process to write the lines it waits for.
constexpr std::chrono::seconds kLinesTimeout(30);

/// A `fovea run` of endless frames into dir/`out`, started in `dir` with the signals `ignored`
/// (its stdout and stderr in dir/stdout and dir/stderr), returned once its frames.csv holds
/// `lines` lines: a run to signal while it runs.
std::unique_ptr<ChildProcess> endless_run(const TempDir& dir, const std::string& out, std::size_t lines,
                                          const std::vector<int>& ignored = {}) {
  const std::vector<std::string> argv{kFovea, "run", "--frames", "100000000", "--out", out};
  auto child = std::make_unique<ChildProcess>(argv, dir.path(), dir / "stdout", dir / "stderr", ignored);
  REQUIRE(wait_for_lines(dir / out / "frames.csv", lines, kLinesTimeout));
  return child;
}

/// Runs a command with a pseudo-terminal as its stdin, stdout and stderr (as in an
/// interactive shell) and returns everything it wrote there.
std::string run_on_terminal(const std::vector<std::string>& argv, const std::filesystem::path& cwd) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    execv(args[0], args.data());
    _exit(127);
  }
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = read(master, buffer, sizeof buffer)) > 0;) output.append(buffer, static_cast<std::size_t>(n));
  close(master);  // read fails with EIO once the child has closed the terminal
  int status = 0;
  waitpid(pid, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return output;
}

const char* kSmallConfig = R"(name: small
seed: 4
frames: 50
world:
  box_size_m: [5, 5, 5]
  entities:
    - name: rocks
      count: 40
      model: {shape: rock, size_m: 0.4, resolution_voxels: 8, variants: 3}
      material: {restitution: 0.7}
      speed_mps: 4
response:
  gravity_mps2: [0, -9.81, 0]
)";

}  // namespace

TEST_CASE("fovea run: writes a complete results folder", "[cli]") {
  TempDir dir;
  const auto r = run_process({kFovea, "run", "--frames", "30", "--out", "out"}, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto out = dir / "out";
  for (const char* file : {"config.yaml", "manifest.json", "frames.csv", "summary.json"})
    CHECK(std::filesystem::is_regular_file(out / file));

  const auto rows = lines_of(read_file(out / "frames.csv"));
  REQUIRE(rows.size() == 31);
  CHECK(rows[0] == "frame,sim_time_s,entities,kinetic_energy_j,potential_energy_j,pairs,pairs_started,pairs_stopped,"
                    "gaze_x_px,gaze_y_px,gaze_source,gaze_valid,gaze_age_ms,gaze_dropped,gaze_tracked_x_px,gaze_tracked_y_px,"
                    "gaze_tracked_age_ms,gaze_saccade,gaze_landing_x_px,gaze_landing_y_px,gaze_collision_deg,collisions,resolved_colliding,"
                    "resolved_not_colliding,interrupted,sphere_tests,budget_exhausted,budget_overshoot_us,nabla_est,p_est,p_est_supra,"
                    "episodes_ended,p_episodes_est,contacts,wall_contacts,contact_points,"
                    "deepest_contact_m,contact_tests,contact_energy_j,bounces_limited,compressions_limited,integrate_ms,broadphase_ms,narrowphase_ms,response_ms,metrics_ms,frame_ms");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    REQUIRE(cells.size() == 47);
    CHECK(cells[0] == std::to_string(i - 1));
    CHECK(cells[2] == "200");
    CHECK(cells[10] == "fixed");
    CHECK(cells[11] == "1");
  }

  const auto manifest = read_json(out / "manifest.json");
  CHECK(manifest["status"] == "completed");
  CHECK(manifest["exit_status"] == 0);
  CHECK(manifest["frames_completed"] == 30);
  CHECK(manifest["seed"] == 1);
  CHECK(manifest["config"] == "configs/default.yaml (built in)");
  CHECK(manifest["git_commit"].get<std::string>().size() > 0);
  CHECK(manifest["command_line"].size() == 6);

  const auto summary = read_json(out / "summary.json");
  CHECK(summary["frames"] == 30);
  CHECK(summary["interrupted"] == false);
  CHECK(summary["entities"] == 200);
  for (const char* column : {"frame_ms", "integrate_ms", "kinetic_energy_j"})
    for (const char* stat : {"mean", "median", "p95", "min", "max"}) CHECK(summary["columns"][column].contains(stat));

  // The resolved config is itself a valid config that gives the same run.
  check_valid(dir, (out / "config.yaml").string());
  const auto again = run_process({kFovea, "run", (out / "config.yaml").string(), "--quiet", "--out", "again"}, dir.path());
  REQUIRE(again.status == 0);
  CHECK(without_wall_clock(read_file(dir / "again" / "frames.csv")) == without_wall_clock(read_file(out / "frames.csv")));
  // Not a terminal: no progress line, just the closing summary.
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find("30 frames of 200 entities") != std::string::npos);
}

TEST_CASE("fovea run: without --out, results/<name>-<UTC time>/ in the working folder", "[cli]") {
  TempDir dir;
  std::ofstream(dir / "small.yaml") << kSmallConfig;
  const auto r = run_process({kFovea, "run", "small.yaml", "--quiet"}, dir.path());
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  std::vector<std::filesystem::path> runs;
  for (const auto& e : std::filesystem::directory_iterator(dir / "results")) runs.push_back(e.path());
  REQUIRE(runs.size() == 1);
  const std::string name = runs[0].filename().string();
  CHECK(name.rfind("small-", 0) == 0);
  CHECK(name.size() == std::string("small-20261121T040536Z").size());
  CHECK(lines_of(read_file(runs[0] / "frames.csv")).size() == 51);
}

TEST_CASE("fovea run: the same config and seed give the same frames.csv apart from wall-clock columns",
          "[cli][determinism]") {
  TempDir dir;
  std::ofstream(dir / "small.yaml") << kSmallConfig;
  const auto a = run_process({kFovea, "run", "small.yaml", "--quiet", "--out", "a"}, dir.path());
  const auto b = run_process({kFovea, "run", "small.yaml", "--quiet", "--out", "b"}, dir.path());
  const auto c = run_process({kFovea, "run", "small.yaml", "--quiet", "--out", "c", "--set", "seed=5"}, dir.path());
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  REQUIRE(c.status == 0);
  const std::string fa = without_wall_clock(read_file(dir / "a" / "frames.csv"));
  CHECK(fa == without_wall_clock(read_file(dir / "b" / "frames.csv")));
  CHECK(fa != without_wall_clock(read_file(dir / "c" / "frames.csv")));
  CHECK(read_file(dir / "a" / "config.yaml") == read_file(dir / "b" / "config.yaml"));
}

TEST_CASE("fovea run: the demos run headless from their configs, deterministic, with their columns",
          "[cli][demos][determinism]") {
  TempDir dir;
  for (const std::string name : {"rockfall", "crowd"}) {
    const std::string config = std::string(FOVEA_SOURCE_DIR) + "/configs/demos/" + name + ".yaml";
    std::vector<std::string> args = {kFovea, "run", config, "--headless", "--quiet", "--frames", "300"};
    if (name == "crowd")
      for (const char* set : {"world.entities[0].count=160", "world.box_size_m=[40,3,40]"}) args.insert(args.end(), {"--set", set});
    std::vector<std::string> again = args, other = args;
    args.insert(args.end(), {"--out", name + "_a"});
    again.insert(again.end(), {"--out", name + "_b"});
    other.insert(other.end(), {"--out", name + "_c", "--set", "seed=99"});
    INFO(name);
    REQUIRE(run_process(args, dir.path()).status == 0);
    REQUIRE(run_process(again, dir.path()).status == 0);
    REQUIRE(run_process(other, dir.path()).status == 0);
    const std::string fa = without_wall_clock(read_file(dir / (name + "_a") / "frames.csv"));
    CHECK(fa == without_wall_clock(read_file(dir / (name + "_b") / "frames.csv")));
    CHECK(fa != without_wall_clock(read_file(dir / (name + "_c") / "frames.csv")));
    const std::vector<std::string> header = split(lines_of(fa).front());
    const std::string demo_column = name == "rockfall" ? "player_hits_total" : "walkers_arrived";
    CHECK(std::find(header.begin(), header.end(), demo_column) != header.end());
    CHECK((std::find(header.begin(), header.end(), "tree_nodes_built") != header.end()) == (name == "rockfall"));
    CHECK(lines_of(fa).size() == 301);
  }
  // A world that does not suit its demo: one line at the key at fault, status 2.
  const auto refused = run_process({kFovea, "validate", std::string(FOVEA_SOURCE_DIR) + "/configs/demos/rockfall.yaml",
                                    "--set", "demo.rockfall.rock_group=pebbles"},
                                   dir.path());
  CHECK(refused.status == 2);
  CHECK(refused.err == "--set demo.rockfall.rock_group=pebbles: demo.rockfall.rock_group: no entity group is named 'pebbles'\n");
}

TEST_CASE("fovea run: bad input gets one clear line, exit status 2 and no results folder", "[cli][errors]") {
  TempDir dir;
  std::ofstream(dir / "unknown.yaml") << "world:\n  entites: []\n";
  std::ofstream(dir / "syntax.yaml") << "world:\n  box_size_m: [10, 10\n";
  std::ofstream(dir / "type.yaml") << "seed: many\n";
  std::ofstream(dir / "negative.yaml") << "world:\n  entities:\n    - count: -5\n";
  std::ofstream(dir / "small_world.yaml") << "world:\n  box_size_m: [2, 2, 2]\n  entities:\n    - name: balls\n"
                                             "      count: 500\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"missing.yaml"}, "missing.yaml: cannot read the config: no such file"},
      {{"unknown.yaml"}, "unknown.yaml:2:3: world.entites: unknown key; did you mean world.entities?"},
      {{"syntax.yaml"}, "syntax.yaml:3:1: YAML syntax error: end of sequence flow not found"},
      {{"type.yaml"}, "type.yaml:1:7: seed: expected an integer in [0, 9007199254740992], found \"many\""},
      {{"negative.yaml"}, "negative.yaml:3:14: world.entities[0].count: expected an integer in [0, 10000000], found -5"},
      {{"small_world.yaml"},
       "small_world.yaml:5:7: world.entities[0].count: world too small for its entities: placed 18 of 500 'balls' "
       "(bounding radius 0.293 m) in a 2 x 2 x 2 m box; placement: packed fits more"},
      {{"--set", "world.entities[0].count=-2"},
       "--set world.entities[0].count=-2: world.entities[0].count: expected an integer in [0, 10000000], found -2"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> argv = {kFovea, "run"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--out", "never"});
    const auto r = run_process(argv, dir.path());
    INFO(args[0]);
    CHECK(r.status == 2);
    CHECK(r.err == message + "\n");
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir / "never"));
    CHECK_FALSE(std::filesystem::exists(dir / "results"));
    // validate says the same, also with status 2.
    if (args[0] != "--set") {
      const auto v = run_process({kFovea, "validate", args[0]}, dir.path());
      CHECK(v.status == 2);
      CHECK(v.err == message + "\n");
    }
  }
  const auto bad_option = run_process({kFovea, "run", "--frames", "-3"}, dir.path());
  CHECK(bad_option.status == 2);
  CHECK(bad_option.err == "--frames -3: frames: expected an integer in [0, 1000000000000], found -3\n");
  // A model too large for memory is refused before any voxel is allocated.
  const auto huge = run_process({kFovea, "run", "--set", "world.entities[1].model.resolution_voxels=256", "--set",
                                 "world.entities[1].model.variants=50"},
                                dir.path());
  CHECK(huge.status == 2);
  CHECK(huge.err ==
        "--set world.entities[1].model.variants=50: world.entities[1].model.variants: the models need 838861312 voxel "
        "cells up to this group (16777216 per model x 50 variants here), more than the 134217728 allowed; lower "
        "resolution_voxels or variants\n");
  const auto folder = run_process({kFovea, "validate", dir.path().string()}, dir.path());
  CHECK(folder.status == 2);
  CHECK_FALSE(std::filesystem::exists(dir / "results"));
}

TEST_CASE("fovea run: record gaze.csv, replay it, and the same frames come out", "[cli][gaze]") {
  TempDir dir;
  std::ofstream(dir / "small.yaml") << kSmallConfig;
  const auto a = run_process({kFovea, "run", "small.yaml", "--quiet", "--out", "a", "--set", "gaze.source=scripted",
                              "--set", "gaze.scripted.fixation_mean_ms=80", "--set", "record.gaze=true"},
                             dir.path());
  REQUIRE(a.status == 0);
  const auto gaze_rows = lines_of(read_file(dir / "a" / "gaze.csv"));
  REQUIRE(gaze_rows.size() == lines_of(read_file(dir / "a" / "frames.csv")).size());
  CHECK(gaze_rows[0] == "t_s,x_px,y_px,valid,source,age_ms,sample_t_s,tracker_t_s,arrival_t_s");
  CHECK(gaze_rows[1].rfind("0,960,540,1,scripted,0", 0) == 0);  // the scripted viewer starts at the centre

  const auto b = run_process({kFovea, "run", "small.yaml", "--quiet", "--out", "b", "--set", "gaze.source=replay",
                              "--set", "gaze.file=a/gaze.csv"},
                             dir.path());
  INFO(b.err);
  REQUIRE(b.status == 0);
  // Everything but the source's name and the wall clock is the same.
  std::string fa = without_wall_clock(read_file(dir / "a" / "frames.csv"));
  const std::string fb = without_wall_clock(read_file(dir / "b" / "frames.csv"));
  for (std::size_t at = fa.find(",scripted,"); at != std::string::npos; at = fa.find(",scripted,", at))
    fa.replace(at, 10, ",replay,");
  CHECK(fa == fb);
}

TEST_CASE("fovea run --gaze-latency-test: a loopback sender feeds the stream, and the run reports the latency",
          "[cli][gaze][stream]") {
  TempDir dir;
  std::ofstream(dir / "small.yaml") << kSmallConfig;
  const int port = fovea::test::free_port_pair();
  // A live source paces the run at world.time_step_s: 100 frames take about a second.
  const auto run = run_process({kFovea, "run", "small.yaml", "--headless", "--out", "a", "--frames", "100",
                                "--gaze-latency-test", "--set", "gaze.port=" + std::to_string(port), "--set",
                                "record.gaze=true"},
                               dir.path());
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.err.find("fovea: gaze: stream: listening for samples on tcp://127.0.0.1:" + std::to_string(port)) !=
        std::string::npos);
  CHECK(run.err.find("fovea: gaze: 100 frames: ") != std::string::npos);
  CHECK(run.err.find(" on a current sample (its age at the frame: median ") != std::string::npos);
  const nlohmann::json summary = nlohmann::json::parse(read_file(dir / "a" / "summary.json"));
  const nlohmann::json& latency = summary.at("gaze_latency");
  CHECK(latency.at("frames") == 100);
  // The sender connects within a few frames; from then on every frame has a current sample.
  CHECK(latency.at("current_frames").get<int>() >= 50);
  CHECK(latency.at("age").at("count") == latency.at("current_frames"));
  CHECK(latency.at("transit").at("count").get<int>() == latency.at("current_frames").get<int>());
  // gaze.csv keeps each used sample's tracker stamp and arrival.
  const std::vector<std::string> rows = lines_of(read_file(dir / "a" / "gaze.csv"));
  const auto streamed = std::find_if(rows.begin(), rows.end(), [](const std::string& r) { return r.find(",stream,") != std::string::npos; });
  REQUIRE(streamed != rows.end());
  CHECK(streamed->find(",,") == std::string::npos);  // no empty cell
}

TEST_CASE("fovea run: the mouse needs a window, and a headless run says so", "[cli][gaze]") {
  TempDir dir;
  std::ofstream(dir / "mouse.yaml") << "frames: 5\ngaze: {source: mouse}\n";
  const auto r = run_process({kFovea, "run", "mouse.yaml", "--out", "never"}, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err ==
        "mouse.yaml:2:8: gaze.source: mouse reads the pointer of fovea's window, and this run has no window "
        "(it is headless); use fixed, scripted or replay for headless runs\n");
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  // The config itself is valid: where it runs decides whether there is a mouse.
  check_valid(dir, "mouse.yaml");
}

TEST_CASE("fovea run: external gaze has no one to push it, and says so at the key", "[cli][gaze]") {
  TempDir dir;
  std::ofstream(dir / "external.yaml") << "frames: 5\ngaze:\n  source: external\n";
  const std::string message =
      "gaze.source: external gaze is pushed by a program through fovea's Python module (World.set_gaze, "
      "docs/python.md), and fovea run has no one to push it; to run on recorded gaze, use source: replay with its file\n";
  const auto r = run_process({kFovea, "run", "external.yaml", "--headless", "--out", "never"}, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err == "external.yaml:3:3: " + message);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir / "never"));
  CHECK_FALSE(std::filesystem::exists(dir / "results"));
  // Without --out too, and from the command line.
  const auto set = run_process({kFovea, "run", "--headless", "--set", "gaze.source=external"}, dir.path());
  CHECK(set.status == 2);
  CHECK(set.err == "--set gaze.source=external: " + message);
  CHECK_FALSE(std::filesystem::exists(dir / "results"));
  // The config is valid: a program using the Python module runs it.
  check_valid(dir, "external.yaml");
}

TEST_CASE("fovea run: --out refuses a folder that holds results already", "[cli][errors]") {
  TempDir dir;
  REQUIRE(run_process({kFovea, "run", "--frames", "3", "--quiet", "--out", "o"}, dir.path()).status == 0);
  const std::string before = read_file(dir / "o" / "frames.csv");
  const auto r = run_process({kFovea, "run", "--frames", "5", "--quiet", "--out", "o"}, dir.path());
  CHECK(r.status == 1);
  CHECK(r.err == "fovea: o: --out folder is not empty; choose a new folder so no results are overwritten\n");
  CHECK(read_file(dir / "o" / "frames.csv") == before);
}

TEST_CASE("fovea run: on a full disk, one line says what could not be written, and no temporary is left",
          "[cli][errors][disk]") {
  // A file size limit stands for the full disk: past it a write fails with EFBIG, as it fails
  // with ENOSPC on a full disk, and as root too. 0 bytes: the first file, config.yaml, fails;
  // 1000 bytes: config.yaml fails part way; 6000 bytes: config.yaml and manifest.json are
  // written, frames.csv fails part way.
  for (const std::uint64_t limit_bytes : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{6000}}) {
    INFO("file size limit " << limit_bytes << " bytes");
    TempDir dir;
    test::ChildProcess child({kFovea, "run", "--frames", "200", "--headless", "--quiet", "--out", "full"}, dir.path(),
                             dir / "stdout", dir / "stderr", test::ChildSetup{{SIGXFSZ}, limit_bytes});
    CHECK(child.wait() == 1);
    const std::string err = read_file(dir / "stderr");
    INFO(err);
    REQUIRE_FALSE(err.empty());
    for (const std::string& line : lines_of(err)) {
      CHECK(line.rfind("fovea: full/", 0) == 0);
      CHECK(line.find(": File too large") != std::string::npos);
    }
    CHECK(test::stray_temporaries(dir / "full").empty());
    if (limit_bytes == 6000) CHECK(read_json(dir / "full" / "manifest.json")["status"] == "failed");
  }
}

TEST_CASE("fovea run: under a file size limit (ulimit -f), one line says what could not be written, as on a full disk",
          "[cli][errors][disk]") {
  // SIGXFSZ killed the run with nothing said, frames.csv cut mid-row and the manifest left
  // "running" (issue 42). fovea ignores it: the write fails with EFBIG and is reported as a
  // full disk's ENOSPC is, the file cut back to its last whole row. The shell sets the limit
  // as a user would, SIGXFSZ left as it comes (its default: end the process).
  TempDir dir;
  const auto r = run_process({"/bin/sh", "-c", "ulimit -f 64; exec \"$0\" run --frames 1000 --headless --quiet --out lim",
                              kFovea},
                             dir.path());
  INFO(r.err);
  CHECK(r.status == 1);
  REQUIRE_FALSE(r.err.empty());
  for (const std::string& line : lines_of(r.err)) {
    CHECK(line.rfind("fovea: lim/", 0) == 0);
    CHECK(line.find(": File too large") != std::string::npos);
  }
  CHECK(read_json(dir / "lim" / "manifest.json")["status"] == "failed");
  const std::string frames = read_file(dir / "lim" / "frames.csv");
  REQUIRE(frames.size() > 1000);
  CHECK(frames.size() <= 64 * 512);
  CHECK(frames.back() == '\n');
  const auto rows = lines_of(frames);
  const std::size_t columns = split(rows[0]).size();
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(split(rows[i]).size() == columns);
    REQUIRE(split(rows[i])[0] == std::to_string(i - 1));
  }
}

TEST_CASE("fovea run: SIGKILL leaves frames.csv with only complete rows", "[cli][signals]") {
  TempDir dir;
  const auto child = endless_run(dir, "killed", 2000);
  child->send_signal(SIGKILL);
  CHECK(child->wait() == 128 + SIGKILL);

  const std::string csv = read_file(dir / "killed" / "frames.csv");
  REQUIRE_FALSE(csv.empty());
  CHECK(csv.back() == '\n');
  const auto rows = lines_of(csv);
  CHECK(rows.size() >= 2000);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto cells = split(rows[i]);
    REQUIRE(cells.size() == 47);
    REQUIRE(cells[0] == std::to_string(i - 1));
  }
  // The manifest shows the run never ended.
  const auto manifest = read_json(dir / "killed" / "manifest.json");
  CHECK(manifest["status"] == "running");
  CHECK(manifest["exit_status"].is_null());
}

TEST_CASE("fovea experiment: --resume reads the session's experiment.yaml under a spec's size limit, and names it",
          "[cli][experiment]") {
  namespace fs = std::filesystem;
  TempDir dir;
  const std::string spec = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";
  const std::string observer = std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml";
  const std::vector<std::string> command = {kFovea, "experiment", spec, "--participant", "P01", "--observer", observer,
                                            "--out", "session", "--quiet", "--set", "constant_stimuli.repetitions=1",
                                            "--set", "constant_stimuli.blocks=1"};
  REQUIRE(run_process(command, dir.path()).status == 0);
  fs::path saved;
  for (const auto& entry : fs::recursive_directory_iterator(dir / "session"))
    if (entry.path().filename() == "experiment.yaml") saved = entry.path();
  REQUIRE_FALSE(saved.empty());
  const std::size_t size = static_cast<std::size_t>(fovea::kMaxConfigFileBytes) + 1;
  std::ofstream(saved) << std::string(size, '#');
  std::vector<std::string> resume = command;
  resume.push_back("--resume");
  const auto r = run_process(resume, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err == "fovea experiment: --resume: " + fs::relative(saved, dir.path()).string() +
                     ": cannot read the experiment: it is " + std::to_string(size) +
                     " bytes, more than the 1 MiB an experiment may be\n");
}

TEST_CASE("fovea experiment: a session killed mid-trial and resumed has every trial exactly once, as an unbroken one",
          "[cli][experiment][signals]") {
  TempDir dir;
  const std::string spec = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";
  const std::string observer = std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml";
  // Constant stimuli, 6 gaps x 4 eccentricities x 2 + 2 x 4 catch trials, and psi procedures,
  // 4 eccentricities x (12 + 2 catch trials): 56 trials each.
  const std::vector<std::vector<std::string>> designs = {
      {"--set", "constant_stimuli.repetitions=2", "--set", "constant_stimuli.blocks=2", "--set",
       "constant_stimuli.catch_trials_per_block=4"},
      {"--set", "method=psi", "--set", "psi.n_trials=12", "--set", "psi.catch_trials=2"}};
  for (const std::vector<std::string>& small : designs) {
    INFO(small[1]);
    const std::string prefix = small[1] == "method=psi" ? "psi_" : "";
    const auto command = [&](const std::string& out, std::vector<std::string> extra) {
      std::vector<std::string> argv = {kFovea, "experiment", spec, "--participant", "P01", "--observer", observer,
                                       "--out", out, "--quiet"};
      argv.insert(argv.end(), small.begin(), small.end());
      argv.insert(argv.end(), extra.begin(), extra.end());
      return argv;
    };
    // The unbroken session.
    REQUIRE(run_process(command(prefix + "whole", {}), dir.path()).status == 0);
    const auto whole = lines_of(read_file(dir / (prefix + "whole") / "trials.csv"));
    REQUIRE(whole.size() == 57);

    // Killed while trials run (each takes 150 ms here, so the kill lands mid-session on a
    // loaded machine too), then resumed.
    {
      test::ChildProcess child(command(prefix + "killed", {"--observer-pace-ms", "150"}), dir.path(), dir / "stdout",
                               dir / "stderr");
      REQUIRE(wait_for_lines(dir / (prefix + "killed") / "trials.csv", 15, kLinesTimeout));
      child.send_signal(SIGKILL);
      CHECK(child.wait() == 128 + SIGKILL);
    }
    const auto before = lines_of(read_file(dir / (prefix + "killed") / "trials.csv"));
    REQUIRE(before.size() >= 15);
    REQUIRE(before.size() < 57);
    // Without --resume the participant's folder is refused, untouched.
    const auto refused = run_process(command(prefix + "killed", {}), dir.path());
    CHECK(refused.status == 2);
    CHECK(refused.err.find("--resume continues that session") != std::string::npos);
    // Another spec cannot resume it.
    const auto changed = run_process(command(prefix + "killed", {"--resume", "--set", "seed=2"}), dir.path());
    CHECK(changed.status == 2);
    CHECK(changed.err.find("the spec differs") != std::string::npos);
    const auto resumed = run_process(command(prefix + "killed", {"--resume"}), dir.path());
    REQUIRE(resumed.status == 0);
    // Row for row the same trials and answers; only the session number and the times differ.
    check_resumed_trials(whole, lines_of(read_file(dir / (prefix + "killed") / "trials.csv")), before.size());
    const std::string log = read_file(dir / (prefix + "killed") / "session.log");
    CHECK(log.find("session 1 of participant P01 started") != std::string::npos);
    CHECK(log.find("session 2 of participant P01 started, resuming after " + std::to_string(before.size() - 1) + " trials") !=
          std::string::npos);
    CHECK(log.find("session 2 complete: 56 trials") != std::string::npos);
    CHECK(log.find("session 1 complete") == std::string::npos);  // the killed one never said so
  }
}

TEST_CASE("fovea experiment: --resume of an edited row names the file, its line, the field and both values",
          "[cli][experiment][errors]") {
  // Issue 42: a psi session resumed after a row's gap_deg was changed said "trial 49 (condition
  // 2), but this spec's design has trial 49 (condition 2) there".
  TempDir dir;
  const std::vector<std::string> command = {kFovea, "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml",
                                            "--participant", "P01", "--observer",
                                            std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml",
                                            "--out", "p", "--quiet", "--set", "method=psi", "--set", "psi.n_trials=12",
                                            "--set", "psi.catch_trials=2"};
  REQUIRE(run_process(command, dir.path()).status == 0);
  const auto lines = lines_of(read_file(dir / "p" / "trials.csv"));
  REQUIRE(lines.size() == 57);
  const auto header = split(lines[0]);
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  // The first 20 trials, the gap of one after the twelfth changed (not a catch trial's: the
  // reader refuses a gap there on its own).
  std::size_t edited = 13;
  while (split(lines[edited])[column("catch_trial")] != "0") ++edited;
  REQUIRE(edited < 21);
  std::vector<std::string> cells = split(lines[edited]);
  const std::string gap = cells[column("gap_deg")];
  REQUIRE(gap != "0.25");
  cells[column("gap_deg")] = "0.25";
  std::string text;
  for (std::size_t i = 0; i < 21; ++i) {
    if (i != edited) {
      text += lines[i] + "\n";
      continue;
    }
    for (std::size_t c = 0; c < cells.size(); ++c) text += (c ? "," : "") + cells[c];
    text += "\n";
  }
  write_file(dir / "p" / "trials.csv", text);
  std::vector<std::string> resume = command;
  resume.push_back("--resume");
  const auto r = run_process(resume, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err == "fovea experiment: p/trials.csv:" + std::to_string(edited + 1) + ": gap_deg is 0.25 in the file, " +
                     gap + " in this spec's design for trial " + cells[column("trial")] + " (condition " +
                     cells[column("condition")] + ")\n");
  CHECK(lines_of(read_file(dir / "p" / "trials.csv")).size() == 21);  // left as it was
}

TEST_CASE("fovea experiment: a session with a person needs a display, and says how to run without one",
          "[cli][experiment][errors]") {
  TempDir dir;
  // The tests run with DISPLAY and WAYLAND_DISPLAY unset (catch_main), as on a server.
  const auto r = run_process({kFovea, "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml",
                              "--participant", "P03", "--out", "p03"},
                             dir.path());
  CHECK(r.status == 2);
  CHECK(r.err.find("a session with a person needs a window") != std::string::npos);
  CHECK(r.err.find("--observer") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "p03"));
  // Bad participant ids and observer files are refused before anything is written.
  const auto bad_id = run_process({kFovea, "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml",
                                   "--participant", "a/b", "--observer", "x.yaml", "--out", "p04"},
                                  dir.path());
  CHECK(bad_id.status == 2);
  CHECK(bad_id.err == "--participant a/b: expected a name of letters, digits, - _ . (it names the participant's folder; "
                      "\"pooled\" names `fovea fit`'s pooled fit)\n");
  const auto bad_observer =
      run_process({kFovea, "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml",
                   "--participant", "P04", "--observer", "missing.yaml", "--out", "p04"},
                  dir.path());
  CHECK(bad_observer.status == 2);
  CHECK(bad_observer.err.find("--observer missing.yaml: cannot read") == 0);
  CHECK_FALSE(std::filesystem::exists(dir / "p04"));
}

TEST_CASE("fovea experiment and calibrate: an experiment named . or .. is refused before anything is written",
          "[cli][experiment][errors]") {
  // The name is a folder, results/experiments/<name>/ (and results/calibration/<name>/):
  // ".." would put the participants' folders in results/ itself (core/folder_name.hpp).
  TempDir dir;
  const std::string spec = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";
  const std::string observer = std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml";
  const std::vector<std::pair<std::string, std::string>> names = {
      {"..", "\"..\" names the folder above, not a folder of its own"},
      {".", "\".\" names the folder it would sit in, not a folder of its own"}};
  for (const auto& [name, problem] : names) {
    INFO(name);
    const auto experiment = run_process({kFovea, "experiment", spec, "--set", "name=" + name, "--participant", "P01",
                                         "--observer", observer, "--quiet"},
                                        dir.path());
    CHECK(experiment.status == 2);
    CHECK(experiment.err == "--set name=" + name + ": name: " + problem +
                                ": it names the experiment's folder, results/experiments/<name>/\n");
    const auto calibrate = run_process({kFovea, "calibrate", spec, "--set", "name=" + name, "--observer", observer,
                                        "--participants", "1", "--bootstrap", "0", "--quiet"},
                                       dir.path());
    CHECK(calibrate.status == 2);
    CHECK(calibrate.err == "--set name=" + name + ": name: " + problem +
                               ": it names the calibration's folder, results/calibration/<name>/\n");
    CHECK_FALSE(std::filesystem::exists(dir / "results"));
  }
}

TEST_CASE("fovea run: SIGINT and SIGTERM end the run cleanly with the summary written", "[cli][signals]") {
  // SIGINT is Ctrl-C; SIGTERM is what a batch scheduler sends at its time limit.
  const int signal = GENERATE(SIGINT, SIGTERM);
  TempDir dir;
  const auto child = endless_run(dir, "stopped", 1000);
  child->send_signal(signal);
  CHECK(child->wait() == 128 + signal);
  // It dies by the signal after cleaning up (not exit(130)), so a shell loop of runs stops too.
  CHECK(child->terminating_signal() == signal);

  const auto rows = lines_of(read_file(dir / "stopped" / "frames.csv"));
  const auto summary = read_json(dir / "stopped" / "summary.json");
  CHECK(summary["interrupted"] == true);
  CHECK(summary["frames"] == rows.size() - 1);
  const auto manifest = read_json(dir / "stopped" / "manifest.json");
  CHECK(manifest["status"] == "interrupted");
  CHECK(manifest["exit_status"] == 128 + signal);
  CHECK(manifest["frames_completed"] == rows.size() - 1);
  CHECK(read_file(dir / "stderr").find("interrupted") != std::string::npos);
}

TEST_CASE("fovea run: a progress line on a terminal, none with --quiet", "[cli][progress]") {
  TempDir dir;
  const std::string shown = run_on_terminal({kFovea, "run", "--frames", "20000", "--out", "a"}, dir.path());
  CHECK(shown.find("\r\033[Kframe ") != std::string::npos);  // redrawn in place
  CHECK(shown.find("frames/s") != std::string::npos);
  CHECK(shown.find("s left") != std::string::npos);
  CHECK(shown.find("20000 frames of 200 entities") != std::string::npos);
  const std::string quiet = run_on_terminal({kFovea, "run", "--frames", "20000", "--out", "b", "--quiet"}, dir.path());
  CHECK(quiet.empty());
}

TEST_CASE("fovea run: a signal the run was started with ignored stays ignored", "[cli][signals]") {
  // nohup, or a background job of a script: the caller asked for SIGINT to be ignored.
  TempDir dir;
  const auto child = endless_run(dir, "bg", 1000, {SIGINT});
  child->send_signal(SIGINT);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const std::size_t rows_after_sigint = lines_of(read_file(dir / "bg" / "frames.csv")).size();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(lines_of(read_file(dir / "bg" / "frames.csv")).size() > rows_after_sigint);  // still running
  child->send_signal(SIGTERM);
  CHECK(child->wait() == 128 + SIGTERM);
  CHECK(read_json(dir / "bg" / "manifest.json")["status"] == "interrupted");
}

TEST_CASE("fovea tree: per-depth table, exports, and the exports driving a run", "[cli][spheretree]") {
  TempDir dir;
  const auto csv = run_process({kFovea, "tree", "rock", "--resolution", "16", "--csv"}, dir.path());
  REQUIRE(csv.status == 0);
  const auto rows = lines_of(csv.out);
  REQUIRE(rows.size() == 6);  // header + depths 0 to 4 (16 voxels: single voxels at depth 4)
  // The first six columns are as they always were (scripts read them by position); newer ones
  // come after them.
  CHECK(rows[0].rfind("depth,spheres,max_distance_voxels,mean_distance_voxels,max_fraction_of_root,mean_fraction_of_root,", 0) ==
        0);
  CHECK(rows[0] ==
        "depth,spheres,max_distance_voxels,mean_distance_voxels,max_fraction_of_root,mean_fraction_of_root,"
        "max_fraction_of_side,max_upper_bound_voxels,max_upper_fraction_of_side");
  CHECK(rows[1].rfind("0,1,", 0) == 0);

  const auto table = run_process({kFovea, "tree", "humanoid", "--resolution", "20", "--export-vox", "man.vox",
                                  "--export-sph", "man.sph", "--export-obj", "man.obj"},
                                 dir.path());
  REQUIRE(table.status == 0);
  CHECK(table.out.find("tightness: one-sided Hausdorff distance") != std::string::npos);
  CHECK(table.out.find("ns per occupied voxel") != std::string::npos);
  CHECK(read_file(dir / "man.obj").find("f 1//") != std::string::npos);
  const auto from_file = run_process({kFovea, "tree", "man.vox", "--csv"}, dir.path());
  CHECK(from_file.status == 0);
  CHECK(lines_of(from_file.out).size() >= 5);
  std::ofstream(dir / "bad.vox") << std::string("VOX \x96\0\0\0MAIN", 12);
  const auto bad = run_process({kFovea, "tree", "bad.vox"}, dir.path());
  CHECK(bad.status == 2);
  CHECK(bad.err == "bad.vox: byte 12: file ends early: MAIN's content size needs 4 bytes, 0 remain\n");

  // The exported model and tree drive a world, paths relative to the config.
  std::filesystem::create_directories(dir / "study");
  std::ofstream(dir / "study" / "men.yaml") << "world:\n  box_size_m: [12, 12, 12]\n  entities:\n    - count: 5\n"
                                               "      model: {shape: file, file: ../man.vox, size_m: 1}\n"
                                               "      sphere_tree: {file: ../man.sph}\n";
  const auto run = run_process({kFovea, "run", "study/men.yaml", "--frames", "5", "--quiet", "--out", "o"}, dir.path());
  INFO(run.err);
  REQUIRE(run.status == 0);
  const auto summary = read_json(dir / "o" / "summary.json");
  CHECK(summary["sphere_trees"]["models"] == 1);
  CHECK(summary["sphere_trees"]["spheres"].get<int>() > 10);
  CHECK(summary["sphere_trees"]["builders"] == nlohmann::json{{"file", 1}});
  CHECK_FALSE(summary["sphere_trees"].contains("inflated_max_m"));
  // Inflated, fovea's own tree needs nothing: said once on stderr, and in the summary.
  std::ofstream(dir / "study" / "inflated.yaml") << "world:\n  box_size_m: [12, 12, 12]\n  entities:\n    - count: 5\n"
                                                    "      name: men\n"
                                                    "      model: {shape: file, file: ../man.vox, size_m: 1}\n"
                                                    "      sphere_tree: {file: ../man.sph, inflate: true}\n";
  const auto inflated = run_process({kFovea, "run", "study/inflated.yaml", "--frames", "5", "--headless", "--out", "i"},
                                    dir.path());
  REQUIRE(inflated.status == 0);
  CHECK(inflated.err.find("fovea: group 'men': sphere_tree.inflate grew 0 of " +
                          std::to_string(summary["sphere_trees"]["spheres"].get<int>()) +
                          " spheres of man.sph to cover the model\n") == 0);
  const auto inflated_summary = read_json(dir / "i" / "summary.json");
  CHECK(inflated_summary["sphere_trees"]["inflated_spheres"] == 0);
  CHECK(inflated_summary["sphere_trees"]["inflated_max_m"] == 0.0);
  const auto quiet = run_process({kFovea, "run", "study/inflated.yaml", "--frames", "5", "--headless", "-q", "--out", "q"},
                                 dir.path());
  CHECK(quiet.err.empty());

  // A broken tree file is an error at its key.
  std::ofstream(dir / "broken.sph") << "2 8\n0 0 0 1\n";
  std::ofstream(dir / "study" / "broken.yaml") << "world:\n  entities:\n    - count: 1\n"
                                                  "      sphere_tree: {file: ../broken.sph}\n";
  const auto broken = run_process({kFovea, "validate", "study/broken.yaml"}, dir.path());
  CHECK(broken.status == 2);
  // The path, relative to the config, is shown as resolved: absolute.
  CHECK(broken.err == "study/broken.yaml:4:21: world.entities[0].sphere_tree.file: " + (dir / "broken.sph").string() +
                          ": line 3: the file ends after 1 of 9 spheres\n");

  const auto unknown = run_process({kFovea, "tree", "pyramid"}, dir.path());
  CHECK(unknown.status == 2);
  CHECK(unknown.err ==
        "fovea tree: pyramid: not a built-in shape (ball, box, rock, l_shape, humanoid), a .vox file or a .yaml config\n");

  // A model straight from a config: the very rock variant a run uses, with its tree settings.
  const auto from_config = run_process(
      {kFovea, "tree", std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml", "--group", "1", "--variant", "4"}, dir.path());
  CHECK(from_config.status == 0);
  CHECK(from_config.out.find("group 1 ('rocks') variant 4, 12 x 12 x 12 voxels") != std::string::npos);
  const auto with_options = run_process(
      {kFovea, "tree", std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml", "--levels", "2"}, dir.path());
  CHECK(with_options.status == 2);
  CHECK(with_options.err.find("the config describes the model and its tree") != std::string::npos);
  const auto file_tree =
      run_process({kFovea, "tree", std::string(FOVEA_SOURCE_DIR) + "/configs/examples/vox_figures.yaml"}, dir.path());
  CHECK(file_tree.status == 0);
  CHECK(file_tree.out.find("read from the group's sphere_tree.file") != std::string::npos);
  const auto no_variant = run_process(
      {kFovea, "tree", std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml", "--group", "1", "--variant", "5"}, dir.path());
  CHECK(no_variant.status == 2);
  CHECK(no_variant.err.find("has 5 model variants, no --variant 5") != std::string::npos);

  // An export that cannot be made fails the command and leaves no file behind.
  const auto too_big = run_process({kFovea, "tree", "ball", "--resolution", "160", "--levels", "8", "--export-sph", "big.sph"},
                                   dir.path());
  CHECK(too_big.status == 1);
  CHECK(too_big.err == "fovea tree: big.sph: this tree (9 levels, branching 8) needs more than 10000000 .sph slots\n");
  CHECK_FALSE(std::filesystem::exists(dir / "big.sph"));

  // A tree made at another size does not hold the model: refused, not silently wrong.
  std::ofstream(dir / "study" / "shrunk.yaml") << "world:\n  box_size_m: [12, 12, 12]\n  entities:\n    - count: 5\n"
                                                  "      model: {shape: file, file: ../man.vox, size_m: 3}\n"
                                                  "      sphere_tree: {file: ../man.sph}\n";
  const auto shrunk = run_process({kFovea, "validate", "study/shrunk.yaml"}, dir.path());
  CHECK(shrunk.status == 2);
  CHECK(shrunk.err.find("does not hold the model") != std::string::npos);
}

TEST_CASE("fovea tree: --builder, --fit and --branching, said in the header, or taken from a config", "[cli][spheretree]") {
  TempDir dir;
  const auto octree = run_process({kFovea, "tree", "rock", "--resolution", "12"}, dir.path());
  REQUIRE(octree.status == 0);
  CHECK(octree.out.find("\ntree: octree (fit cell), 4 levels below the root (4 asked), ") != std::string::npos);
  CHECK(octree.out.find("max/root  mean/root   max/side upper/side\n") != std::string::npos);
  const auto voxels = run_process({kFovea, "tree", "rock", "--resolution", "12", "--fit", "voxels"}, dir.path());
  CHECK(voxels.out.find("\ntree: octree (fit voxels), ") != std::string::npos);
  const auto medial =
      run_process({kFovea, "tree", "rock", "--resolution", "12", "--builder", "medial", "--branching", "4"}, dir.path());
  REQUIRE(medial.status == 0);
  CHECK(medial.out.find("\ntree: medial (branching 4), ") != std::string::npos);
  const auto tightest = run_process({kFovea, "tree", "rock", "--resolution", "12", "--builder", "tightest"}, dir.path());
  REQUIRE(tightest.status == 0);
  CHECK(tightest.out.find("\ntree: tightest kept the ") != std::string::npos);
  // The CSV's rows have as many fields as its header.
  const auto csv = run_process({kFovea, "tree", "rock", "--resolution", "12", "--builder", "medial", "--csv"}, dir.path());
  REQUIRE(csv.status == 0);
  for (const std::string& row : lines_of(csv.out)) CHECK(std::count(row.begin(), row.end(), ',') == 8);

  const auto bad = run_process({kFovea, "tree", "rock", "--builder", "hubbard"}, dir.path());
  CHECK(bad.status != 0);
  CHECK(bad.err.find("--builder") != std::string::npos);
  const auto wide = run_process({kFovea, "tree", "rock", "--branching", "9"}, dir.path());
  CHECK(wide.status != 0);
  CHECK(wide.err.find("--branching") != std::string::npos);

  // A config's group says the builder, as for a run; on the command line it is an error.
  std::ofstream(dir / "medial.yaml") << "world:\n  entities:\n    - name: rocks\n      count: 3\n"
                                        "      model: {shape: rock, resolution_voxels: 10}\n"
                                        "      sphere_tree: {builder: medial, branching: 3}\n";
  const auto from_config = run_process({kFovea, "tree", "medial.yaml"}, dir.path());
  REQUIRE(from_config.status == 0);
  CHECK(from_config.out.find("\ntree: medial (branching 3), ") != std::string::npos);
  for (const auto& [option, value] : {std::pair{"--builder", "octree"}, std::pair{"--fit", "voxels"},
                                      std::pair{"--branching", "4"}}) {
    const auto refused = run_process({kFovea, "tree", "medial.yaml", option, value}, dir.path());
    CHECK(refused.status == 2);
    CHECK(refused.err == "fovea tree: medial.yaml: the config describes the model and its tree; leave out --builder, "
                         "--levels, --fit, --branching, --resolution, --size, --seed, --model-index and --keep-hidden\n");
  }
}

TEST_CASE("fovea: validate is silent on success, --help explains, keys lists every key", "[cli]") {
  TempDir dir;
  check_valid(dir, std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml");

  const auto help = run_process({kFovea, "--help"}, dir.path());
  CHECK(help.status == 0);
  for (const char* word : {"run", "validate", "keys", "Examples"}) CHECK(help.out.find(word) != std::string::npos);
  const auto run_help = run_process({kFovea, "run", "--help"}, dir.path());
  for (const char* word : {"--frames", "--out", "--set", "--quiet"}) CHECK(run_help.out.find(word) != std::string::npos);

  const auto keys = run_process({kFovea, "keys"}, dir.path());
  CHECK(keys.status == 0);
  CHECK(keys.out.find("world.entities[].model.shape") != std::string::npos);
}

// fovea fit: trials.csv files written here from a known model (simulate_observer), fitted by
// the binary, its outputs read back.

namespace {

/// trials.csv's columns as `fovea experiment` writes them.
const std::string kTrialsHeader =
    "participant,session,block,trial,trial_in_block,condition,staircase,catch_trial,gap_deg,eccentricity_deg,"
    "direction_deg,gap_px,eccentricity_px,response,reaction_time_ms,fixation_kept,gaze_samples,"
    "gaze_max_deviation_deg,observer,started_utc,ended_utc";

/// The simulated observer: T0 0.1 deg doubling at E2 = 4 deg, a rise of one threshold, 4 %
/// guesses and 2 % lapses.
PerceptionModelSettings fit_truth() {
  return {.threshold_deg = 0.1, .eccentricity_scale_deg = 4.0, .width = 1.0, .guess_rate = 0.04, .lapse_rate = 0.02};
}

/// A constant-stimuli session: at 0, 4 and 8 deg, seven gaps from 0.5 T(e) to 3 T(e) and a
/// catch trial, `repeats` times, answered by `truth` with `seed`.
std::vector<TrialOutcome> simulated_session(const PerceptionModelSettings& truth, int repeats, std::uint64_t seed) {
  const PerceptionModel model(truth);
  std::vector<TrialOutcome> design;
  for (int r = 0; r < repeats; ++r)
    for (const double e : {0.0, 4.0, 8.0}) {
      design.push_back({e, 0.0, false});
      for (const double ratio : {0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0}) design.push_back({e, ratio * model.threshold_deg(e), false});
    }
  return simulate_observer(truth, design, seed);
}

/// A CSV cell: quoted when it must be (RFC 4180).
std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

/// One row of trials.csv; the columns the fit does not read hold plausible values.
std::string trial_row(const std::string& participant, int trial, const TrialOutcome& t, const std::string& response,
                      bool fixation_kept = true) {
  const bool catch_trial = !(t.gap_deg > 0);
  return csv_cell(participant) + ",1,0," + std::to_string(trial) + "," + std::to_string(trial) + ",3,-1," +
         (catch_trial ? "1" : "0") + "," + format_number(t.gap_deg) + "," + format_number(t.eccentricity_deg) +
         ",135," + format_number(38.0 * t.gap_deg) + "," + format_number(38.0 * t.eccentricity_deg) + "," + response +
         "," + (response == "aborted" ? "" : "612.5") + "," + (fixation_kept ? "1" : "0") +
         ",120,0.4,human,2026-03-01T10:00:00.000Z,2026-03-01T10:00:02.100Z";
}

/// A whole trials.csv of one participant's answered trials.
std::string trials_csv(const std::string& participant, const std::vector<TrialOutcome>& trials) {
  std::string text = kTrialsHeader + "\n";
  for (std::size_t i = 0; i < trials.size(); ++i)
    text += trial_row(participant, static_cast<int>(i), trials[i], trials[i].yes ? "yes" : "no") + "\n";
  return text;
}

/// `fovea fit` with the arguments, fast: 20 bootstrap samples and no plots unless asked.
test::ProcessResult fovea_fit(std::vector<std::string> args, const std::filesystem::path& cwd, bool plots = false) {
  args.insert(args.begin(), {kFovea, "fit"});
  args.insert(args.end(), {"--bootstrap", "20"});
  if (!plots) args.push_back("--no-plots");
  return run_process(args, cwd);
}

/// The folder's file names, sorted.
std::vector<std::string> files_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("fovea fit: recovers T0 and E2 of a simulated observer, and the model file loads in a run", "[cli][fit]") {
  TempDir dir;
  const PerceptionModelSettings truth = fit_truth();
  std::ofstream(dir / "trials.csv") << trials_csv("P01", simulated_session(truth, 80, 7));
  const auto r = fovea_fit({"trials.csv", "-o", "fit/model.yaml"}, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(files_in(dir / "fit") == std::vector<std::string>{"model.yaml", "model_conditions.csv", "model_fit.json"});

  // 1,920 trials: T0 to a few percent, E2 to about ten (the unit tests' tolerance is 4 SDs).
  const auto fit = read_json(dir / "fit" / "model_fit.json");
  const auto& p = fit["pooled"]["parameters"];
  CHECK(std::abs(p["threshold_deg"]["value"].get<double>() / truth.threshold_deg - 1) < 0.1);
  CHECK(std::abs(p["eccentricity_scale_deg"]["value"].get<double>() / truth.eccentricity_scale_deg - 1) < 0.3);
  CHECK(p["threshold_deg"]["ci_low"].get<double>() < p["threshold_deg"]["ci_high"].get<double>());
  CHECK(fit["pooled"]["trials"] == 1920);
  CHECK(fit["pooled"]["catch_trials"] == 240);
  CHECK(fit["participants"].size() == 1);
  CHECK(fit["participants"][0]["participant"] == "P01");
  CHECK(fit["pooled"]["participants"] == nlohmann::json::array({"P01"}));
  CHECK(fit["settings"]["bootstrap_samples"] == 20);
  CHECK(fit["inputs"][0]["file"] == "trials.csv");
  CHECK(fit["inputs"][0]["counted"] == 1920);
  CHECK(fit["command_line"].size() == 8);
  for (const char* key : {"guess_rate", "log_likelihood", "deviance", "deviance_dof", "deviance_p", "converged", "message"})
    CHECK(fit["pooled"].contains(key));
  REQUIRE(fit["pooled"]["eccentricities"].size() == 3);
  for (const auto& e : fit["pooled"]["eccentricities"]) {
    const double threshold_deg = PerceptionModel(truth).threshold_deg(e["eccentricity_deg"].get<double>());
    CHECK(std::abs(e["threshold_alone_deg"]["value"].get<double>() / threshold_deg - 1) < 0.15);
    CHECK(e["threshold_alone_deg"]["ci_low"].get<double>() < e["threshold_alone_deg"]["value"].get<double>());
  }

  // The table: a header and the participant's row (one participant: no pooled row).
  const auto table = lines_of(r.out);
  REQUIRE(table.size() == 2);
  CHECK(table[0].rfind("participant  trials  T0 deg [95% CI]", 0) == 0);
  CHECK(table[1].rfind("P01          1920    ", 0) == 0);

  // Conditions: 24 per fit (3 eccentricities x 8 gaps), the participant's then the pooled.
  const auto rows = lines_of(read_file(dir / "fit" / "model_conditions.csv"));
  REQUIRE(rows.size() == 1 + 2 * 24);
  CHECK(rows[0] == "participant,eccentricity_deg,gap_deg,trials,yes,proportion_yes,fitted_probability");
  CHECK(rows[1].rfind("P01,0,0,80,", 0) == 0);
  CHECK(rows[25].rfind("pooled,0,0,80,", 0) == 0);

  // The model file loads through perception.model.file, in validate and in a run, with the
  // fitted values.
  const std::string model = (dir / "fit" / "model.yaml").string();
  const auto v = run_process(
      {kFovea, "validate", std::string(FOVEA_SOURCE_DIR) + "/configs/default.yaml", "--set", "perception.model.file=" + model},
      dir.path());
  CHECK(v.status == 0);
  CHECK(v.err.empty());
  const auto run = run_process({kFovea, "run", "--frames", "1", "--quiet", "--out", "run", "--set",
                                "perception.model.file=" + model},
                               dir.path());
  REQUIRE(run.status == 0);
  const std::string config = read_file(dir / "run" / "config.yaml");
  CHECK(config.find("threshold_deg: " + format_number(p["threshold_deg"]["value"].get<double>()) + "\n") !=
        std::string::npos);
  CHECK(config.find("eccentricity_scale_deg: " + format_number(p["eccentricity_scale_deg"]["value"].get<double>()) +
                    "\n") != std::string::npos);
}

TEST_CASE("fovea fit: two participants get their own fits and a pooled one", "[cli][fit]") {
  TempDir dir;
  PerceptionModelSettings second = fit_truth();
  second.threshold_deg = 0.14;
  // The second participant's name needs quoting; their file puts the columns in another
  // order and adds one fovea does not know.
  const std::string name = "Doe, \"J\"";
  std::ofstream(dir / "p01_s1.csv") << trials_csv("P01", simulated_session(fit_truth(), 30, 1));
  std::ofstream(dir / "p01_s2.csv") << trials_csv("P01", simulated_session(fit_truth(), 30, 2));
  {
    std::ofstream out(dir / "doe.csv");
    out << "notes,response,eccentricity_deg,gap_deg,catch_trial,fixation_kept,participant\n";
    for (const TrialOutcome& t : simulated_session(second, 60, 3))
      out << "\"a, b\"," << (t.yes ? "yes" : "no") << "," << format_number(t.eccentricity_deg) << ","
          << format_number(t.gap_deg) << "," << (t.gap_deg > 0 ? 0 : 1) << ",1," << csv_cell(name) << "\r\n";
  }
  const auto r = fovea_fit({"p01_s1.csv", "doe.csv", "p01_s2.csv", "-o", "both.yaml"}, dir.path());
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto fit = read_json(dir / "both_fit.json");
  REQUIRE(fit["participants"].size() == 2);
  CHECK(fit["participants"][0]["participant"] == "P01");
  CHECK(fit["participants"][0]["trials"] == 1440);
  CHECK(fit["participants"][1]["participant"] == name);
  CHECK(fit["participants"][1]["trials"] == 1440);
  CHECK(fit["pooled"]["participant"] == "pooled");
  CHECK(fit["pooled"]["participants"] == nlohmann::json::array({"P01", name}));
  CHECK(fit["pooled"]["trials"] == 2880);
  CHECK(fit["inputs"].size() == 3);
  // Each participant's own threshold, and the pooled one between them.
  const auto t0 = [&](const nlohmann::json& f) { return f["parameters"]["threshold_deg"]["value"].get<double>(); };
  CHECK(std::abs(t0(fit["participants"][0]) / 0.1 - 1) < 0.1);
  CHECK(std::abs(t0(fit["participants"][1]) / 0.14 - 1) < 0.1);
  CHECK(t0(fit["participants"][0]) < t0(fit["pooled"]));
  CHECK(t0(fit["pooled"]) < t0(fit["participants"][1]));
  // The model file is the pooled fit.
  CHECK(read_file(dir / "both.yaml").find("threshold_deg: " + format_number(t0(fit["pooled"])) + "\n") !=
        std::string::npos);

  const std::string conditions = read_file(dir / "both_conditions.csv");
  CHECK(conditions.find("\nP01,8,0,60,") != std::string::npos);
  CHECK(conditions.find("\n\"Doe, \"\"J\"\"\",8,0,60,") != std::string::npos);
  CHECK(conditions.find("\npooled,8,0,120,") != std::string::npos);
  // Pooled: the two participants' gaps differ (their thresholds do), the catch trials' do not.
  CHECK(lines_of(conditions).size() == 1 + 24 + 24 + (24 + 21));

  const auto table = lines_of(r.out);
  REQUIRE(table.size() >= 4);
  CHECK(table[1].rfind("P01  ", 0) == 0);
  CHECK(table[2].rfind(name + "  ", 0) == 0);
  CHECK(table[3].rfind("pooled  ", 0) == 0);
}

TEST_CASE("fovea fit: aborted trials and trials whose fixation was lost are left out", "[cli][fit]") {
  TempDir dir;
  const std::vector<TrialOutcome> trials = simulated_session(fit_truth(), 40, 11);
  // The same answered trials, with aborted and fixation-lost rows among them that all say
  // "yes" to the smallest gaps at 8 deg: counted, they would pull the threshold down.
  std::string clean = kTrialsHeader + "\n", noisy = clean, counted = clean;
  const TrialOutcome tiny{8.0, 0.01, true};
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const std::string row = trial_row("P01", static_cast<int>(i), trials[i], trials[i].yes ? "yes" : "no");
    clean += row + "\n";
    noisy += row + "\n";
    counted += row + "\n";
    if (i % 8 == 0) {
      noisy += trial_row("P01", static_cast<int>(i), tiny, "aborted", false) + "\n";
      noisy += trial_row("P01", static_cast<int>(i), tiny, "yes", false) + "\n";
      counted += trial_row("P01", static_cast<int>(i), tiny, "yes") + "\n";
      counted += trial_row("P01", static_cast<int>(i), tiny, "yes") + "\n";
    }
  }
  std::ofstream(dir / "clean.csv") << clean;
  std::ofstream(dir / "noisy.csv") << noisy;
  std::ofstream(dir / "counted.csv") << counted;
  for (const char* name : {"clean", "noisy", "counted"}) {
    const auto r = fovea_fit({std::string(name) + ".csv", "-o", std::string(name) + "/model.yaml"}, dir.path());
    INFO(name << ": " << r.err);
    REQUIRE(r.status == 0);
  }
  CHECK(read_file(dir / "noisy" / "model.yaml") == read_file(dir / "clean" / "model.yaml"));
  CHECK(read_file(dir / "noisy" / "model_conditions.csv") == read_file(dir / "clean" / "model_conditions.csv"));
  CHECK(read_file(dir / "counted" / "model.yaml") != read_file(dir / "clean" / "model.yaml"));
  const auto input = read_json(dir / "noisy" / "model_fit.json")["inputs"][0];
  CHECK(input["rows"] == 960 + 240);
  CHECK(input["counted"] == 960);
  CHECK(input["aborted"] == 120);
  CHECK(input["fixation_lost"] == 120);
}

TEST_CASE("fovea fit: malformed input is one line naming the file, line and column, status 2, nothing written",
          "[cli][fit][errors]") {
  TempDir dir;
  const std::vector<TrialOutcome> trials = simulated_session(fit_truth(), 2, 5);
  const std::vector<std::string> good = lines_of(trials_csv("P01", trials));
  const auto write = [&](const std::string& file, std::vector<std::string> lines) {
    std::ofstream out(dir / file);
    for (const std::string& l : lines) out << l << "\n";
  };
  const auto with_line = [&](std::size_t index, const std::string& line) {
    std::vector<std::string> lines = good;
    lines[index] = line;
    return lines;
  };
  std::string no_response = good[0];
  no_response.replace(no_response.find(",response,"), 10, ",answer,");
  write("no_column.csv", with_line(0, no_response));
  write("bad_number.csv", with_line(4, trial_row("P01", 3, {4.0, 0.1, true}, "yes").replace(
                                          trial_row("P01", 3, {4.0, 0.1, true}, "yes").find(",0.1,4,"), 7, ",0.1x,4,")));
  write("bad_response.csv", with_line(6, trial_row("P01", 5, {4.0, 0.1, true}, "maybe")));
  write("bad_flag.csv", with_line(2, trial_row("P01", 1, {0.0, 0.1, true}, "yes", true).replace(
                                        trial_row("P01", 1, {0.0, 0.1, true}, "yes").find(",612.5,1,"), 9, ",612.5,y,")));
  write("catch_gap.csv", with_line(3, trial_row("P01", 2, {0.0, 0.1, true}, "yes").replace(
                                         trial_row("P01", 2, {0.0, 0.1, true}, "yes").find(",-1,0,"), 6, ",-1,1,")));
  write("short_row.csv", with_line(5, "P01,1,0"));
  write("open_quote.csv", with_line(7, "\"P01,1,0"));
  write("pooled_name.csv", with_line(2, trial_row("pooled", 1, {0.0, 0.1, true}, "yes")));
  write("only_catch.csv", {good[0], good[1], good[9]});
  // Answers that place no threshold (issue 42: these wrote a model with "converged: yes"):
  // one trial, and every trial answered alike, catch trials and all.
  write("one_trial.csv", {good[0], good[2]});
  std::vector<TrialOutcome> all_yes = trials, all_no = trials;
  double smallest = 1e9, largest = 0;
  for (TrialOutcome& t : all_yes) t.yes = true;
  for (TrialOutcome& t : all_no) t.yes = false;
  int with_gap = 0;
  for (const TrialOutcome& t : trials)
    if (t.gap_deg > 0) ++with_gap, smallest = std::min(smallest, t.gap_deg), largest = std::max(largest, t.gap_deg);
  std::ofstream(dir / "all_yes.csv") << trials_csv("P01", all_yes);
  std::ofstream(dir / "all_no.csv") << trials_csv("P01", all_no);
  const std::vector<std::string> before = files_in(dir.path());

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing.csv", "missing.csv: cannot read: no such file"},
      {"no_column.csv",
       "no_column.csv:1: response: no such column in the header (needed: participant, catch_trial, gap_deg, "
       "eccentricity_deg, response, fixation_kept)"},
      {"bad_number.csv", "bad_number.csv:5: gap_deg: expected a number, found \"0.1x\""},
      {"bad_response.csv", "bad_response.csv:7: response: expected yes, no, first, second or aborted, found \"maybe\""},
      {"bad_flag.csv", "bad_flag.csv:3: fixation_kept: expected 0 or 1, found \"y\""},
      {"catch_gap.csv", "catch_gap.csv:4: gap_deg: a catch trial (catch_trial 1) shows no gap, found \"0.1\""},
      {"short_row.csv", "short_row.csv:6: this row has 3 cells, the header 21"},
      {"open_quote.csv", "open_quote.csv:8: a quoted cell is never closed (a \" is missing)"},
      {"pooled_name.csv",
       "pooled_name.csv:3: participant: \"pooled\" is the name fovea fit gives the fit over all participants; "
       "rename this participant"},
      {"only_catch.csv", "fovea fit: participant P01: only catch trials (gap 0); nothing to fit"},
      {"one_trial.csv",
       "fovea fit: participant P01: too few trials: only one has a gap, so the threshold is not identified (it lies "
       "between a gap seen and a gap not seen: at least two trials with a gap, answered yes and no)"},
      {"all_yes.csv", "fovea fit: participant P01: no variation in the answers: all " + std::to_string(with_gap) +
                          " trials with a gap were answered yes, so the threshold is not identified: it lies anywhere "
                          "below the smallest gap shown, " + format_significant(smallest) + " deg"},
      {"all_no.csv", "fovea fit: participant P01: no variation in the answers: all " + std::to_string(with_gap) +
                         " trials with a gap were answered no, so the threshold is not identified: it lies anywhere "
                         "above the largest gap shown, " + format_significant(largest) + " deg"},
  };
  for (const auto& [file, message] : cases) {
    INFO(file);
    // A good file first: one bad input among several still writes nothing.
    std::ofstream(dir / "good.csv") << trials_csv("P02", trials);
    const auto r = fovea_fit({"good.csv", file, "-o", "out/model.yaml"}, dir.path(), true);
    CHECK(r.status == 2);
    CHECK(r.err == message + "\n");
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir / "out"));
    std::filesystem::remove(dir / "good.csv");
    CHECK(files_in(dir.path()) == before);
  }
  const auto overwrite = fovea_fit({"bad_flag.csv", "-o", "bad_flag.csv"}, dir.path());
  CHECK(overwrite.status == 2);
  CHECK(overwrite.err == "fovea fit: bad_flag.csv is an input; writing bad_flag.csv would overwrite it: choose another -o\n");
  const auto no_output = run_process({kFovea, "fit", "good.csv"}, dir.path());
  CHECK(no_output.status == 2);
  CHECK(no_output.err.find("--output is required") != std::string::npos);
}

TEST_CASE("fovea fit: plots when python3 has matplotlib, one message when not", "[cli][fit][plots][slow]") {
  TempDir dir;
  std::ofstream(dir / "trials.csv") << trials_csv("P01", simulated_session(fit_truth(), 20, 3));
  {
    // With a condition answered yes 10 times out of 10: its Wilson interval's upper end
    // rounds to just below 1, which the script must not draw as a negative error bar.
    std::ofstream out(dir / "p02.csv");
    out << trials_csv("P02", simulated_session(fit_truth(), 20, 4));
    for (int i = 0; i < 10; ++i) out << trial_row("P02", 1000 + i, {4.0, 2.5, true}, "yes") << "\n";
  }
  const std::string skipped =
      "fovea fit: plots skipped: python3-matplotlib is not installed (apt install python3-matplotlib)\n";
  const bool matplotlib = test::python_has_matplotlib();
  for (const char* function : {"logistic", "weibull"}) {
    INFO(function);
    const std::string stem = std::string("m_") + function;
    const auto r = fovea_fit({"trials.csv", "p02.csv", "-o", stem + ".yaml", "--function", function, "--plots", "pictures"},
                             dir.path(), true);
    INFO(r.err);
    REQUIRE(r.status == 0);
    if (matplotlib) {
      // The script also checks its f(e, g) against fovea's fitted probabilities, so a
      // drawn curve is the model's (it fails otherwise).
      CHECK(is_png(dir / "pictures" / (stem + "_psychometric.png")));
      CHECK(is_png(dir / "pictures" / (stem + "_threshold.png")));
      CHECK(r.err.find("plots skipped") == std::string::npos);
    } else {
      CHECK(r.err.find(skipped) != std::string::npos);
      CHECK_FALSE(std::filesystem::exists(dir / "pictures" / (stem + "_psychometric.png")));
    }
  }
  // An interpreter without matplotlib (FOVEA_PYTHON chooses it): the one message, status 0,
  // every other output written.
  const auto without = run_process({"/usr/bin/env", "FOVEA_PYTHON=/nonexistent/python3", kFovea, "fit", "trials.csv",
                                    "-o", "no_plots/model.yaml", "--bootstrap", "5"},
                                   dir.path());
  CHECK(without.status == 0);
  CHECK(without.err.find(skipped) != std::string::npos);
  CHECK(files_in(dir / "no_plots") == std::vector<std::string>{"model.yaml", "model_conditions.csv", "model_fit.json"});

  const auto help = run_process({kFovea, "--help"}, dir.path());
  CHECK(help.out.find("fit ") != std::string::npos);
  const auto fit_help = run_process({kFovea, "fit", "--help"}, dir.path());
  for (const char* option : {"--function", "--bootstrap", "--seed", "--max-lapse", "--no-lapse", "--plots", "-o,--output"})
    CHECK(fit_help.out.find(option) != std::string::npos);
}

TEST_CASE("fovea: an output that cannot be written is one line saying where and why, before any work",
          "[cli][errors][disk]") {
  // A path under a regular file cannot be a folder, for root too (which a read-only folder
  // would not stop).
  TempDir dir;
  std::ofstream(dir / "afile") << "not a folder\n";
  const std::string spec = std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/gap_eccentricity.yaml";
  const std::string observer = std::string(FOVEA_SOURCE_DIR) + "/configs/perception/default.yaml";
  const auto experiment = run_process({kFovea, "experiment", spec, "--participant", "P01", "--observer", observer, "--out",
                                       "afile/exp", "--quiet"},
                                      dir.path());
  CHECK(experiment.status == 1);
  CHECK(experiment.err == "fovea experiment: afile/exp: cannot create the folder: Not a directory\n");
  const auto capture = run_process({kFovea, "experiment", spec, "--participant", "P01", "--observer", observer, "--out",
                                    "exp", "--capture", "afile/pictures", "--quiet"},
                                   dir.path());
  CHECK(capture.status == 1);
  CHECK(capture.err == "fovea experiment: --capture afile/pictures: cannot create the folder: Not a directory\n");

  // The tree's table is not printed when its export cannot be written.
  const auto tree = run_process({kFovea, "tree", "rock", "--export-vox", "afile/rock.vox"}, dir.path());
  CHECK(tree.status == 1);
  CHECK(tree.err == "fovea tree: afile/rock.vox: cannot write: Not a directory\n");
  CHECK(tree.out.empty());
  std::filesystem::create_directories(dir / "folder.sph");
  const auto into_folder = run_process({kFovea, "tree", "rock", "--export-sph", "folder.sph"}, dir.path());
  CHECK(into_folder.status == 1);
  CHECK(into_folder.err == "fovea tree: folder.sph: cannot write: Is a directory\n");
  CHECK(into_folder.out.empty());

  // Nor is the fit made.
  std::ofstream(dir / "trials.csv") << trials_csv("P01", simulated_session(fit_truth(), 2, 5));
  const auto fit = run_process({kFovea, "fit", "trials.csv", "-o", "afile/model.yaml"}, dir.path());
  CHECK(fit.status == 1);
  CHECK(fit.err == "fovea fit: -o afile/model.yaml: cannot write: Not a directory\n");
  CHECK(fit.out.empty());
  const auto plots = run_process({kFovea, "fit", "trials.csv", "-o", "model.yaml", "--plots", "afile/plots"}, dir.path());
  CHECK(plots.status == 1);
  CHECK(plots.err == "fovea fit: --plots afile/plots: cannot write: Not a directory\n");
  CHECK(plots.out.empty());
  CHECK_FALSE(std::filesystem::exists(dir / "model.yaml"));

  const auto run = run_process({kFovea, "run", "--frames", "3", "--headless", "--quiet", "--out", "afile/run"}, dir.path());
  CHECK(run.status == 1);
  CHECK(run.err == "fovea: afile/run: cannot create results folder: Not a directory\n");
}

TEST_CASE("fovea run --explain-frame: the config's stage list on stdout, nothing run or written", "[cli]") {
  TempDir dir;
  {
    std::ofstream(dir.path() / "small.yaml") << kSmallConfig;
  }
  const test::ProcessResult plain = run_process({kFovea, "run", "small.yaml", "--explain-frame"}, dir.path());
  CHECK(plain.status == 0);
  CHECK(plain.err.empty());
  CHECK(plain.out.rfind("The frame of small.yaml: ", 0) == 0);
  CHECK(plain.out.find("1. gaze  [frame_ms]") != std::string::npos);
  CHECK(plain.out.find(". evaluate  [") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "results"));

  // --set changes the plan as it changes the run: an evaluation on the side comes in.
  const test::ProcessResult evaluated = run_process(
      {kFovea, "run", "small.yaml", "--explain-frame", "--set", "evaluate.schedulers=[round_robin]"}, dir.path());
  CHECK(evaluated.status == 0);
  CHECK(evaluated.out.find(". evaluate  [evaluation_ms, on the threads]") != std::string::npos);

  // A config error is reported as for a run.
  const test::ProcessResult bad =
      run_process({kFovea, "run", "small.yaml", "--explain-frame", "--set", "schedule.kind=nope"}, dir.path());
  CHECK(bad.status == 2);
  CHECK(bad.out.empty());
}

namespace {

/// The frames (frames.csv's `frame`) whose `column` has a value in the run folder's frames.csv.
std::vector<std::string> frames_with(const std::filesystem::path& run, const std::string& column) {
  const std::vector<std::string> rows = lines_of(read_file(run / "frames.csv"));
  const std::vector<std::string> header = split(rows.at(0));
  const auto index_of = [&](const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    return static_cast<std::size_t>(at - header.begin());
  };
  const std::size_t frame = index_of("frame"), value = index_of(column);
  std::vector<std::string> frames;
  for (std::size_t r = 1; r < rows.size(); ++r)
    if (const std::vector<std::string> cells = split(rows[r]); !cells.at(value).empty()) frames.push_back(cells[frame]);
  return frames;
}

/// The frame_*.png names in `folder`, sorted.
std::vector<std::string> pictures_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("fovea run --capture-every N offscreen: only the captured frames are drawn, the same pictures as drawing every frame",
          "[cli][capture][gl]") {
  TempDir dir;
  const auto run = [&](const std::string& every, const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> argv = {kFovea, "run", "--frames", "20", "--offscreen", "--capture", name + "_pictures",
                                     "--capture-every", every, "--out", name,
                                     "--set", "world.entities[0].count=40", "--set", "world.entities[1].count=10",
                                     "--set", "render.width_px=192", "--set", "render.height_px=108"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const test::ProcessResult r = run_process(argv, dir.path());
    INFO(r.err);
    CHECK(r.status == 0);
    return r.err;
  };
  // Every 7th of 20 frames: 0, 7 and 14 are captured, and only they are drawn (render_ms
  // is timed only for a drawn frame; frame_interval_ms from the drawn frame before).
  const std::string sparse = run("7", "sparse", {});
  CHECK(sparse.find("fovea: --capture: 3 pictures in sparse_pictures, 3 of 20 frames drawn\n") != std::string::npos);
  CHECK(pictures_in(dir / "sparse_pictures") ==
        std::vector<std::string>{"frame_000000.png", "frame_000007.png", "frame_000014.png"});
  CHECK(frames_with(dir / "sparse", "render_ms") == std::vector<std::string>{"0", "7", "14"});
  CHECK(frames_with(dir / "sparse", "frame_interval_ms") == std::vector<std::string>{"7", "14"});

  // Drawing every frame, as every run did before: the same bytes at frames 0, 7 and 14,
  // pictures that change from frame to frame (so the comparison could fail), the same world.
  const std::string every = run("1", "every", {});
  CHECK(every.find("fovea: --capture: 20 pictures in every_pictures, 20 of 20 frames drawn\n") != std::string::npos);
  CHECK(frames_with(dir / "every", "render_ms").size() == 20);
  for (const char* name : {"frame_000000.png", "frame_000007.png", "frame_000014.png"})
    CHECK(read_file(dir / "sparse_pictures" / name) == read_file(dir / "every_pictures" / name));
  CHECK(read_file(dir / "every_pictures" / "frame_000007.png") != read_file(dir / "every_pictures" / "frame_000014.png"));
  CHECK(without_wall_clock(read_file(dir / "sparse" / "frames.csv")) ==
        without_wall_clock(read_file(dir / "every" / "frames.csv")));

  // The panel and the frame-time graph show what earlier frames drew: with either, every
  // frame is drawn still.
  for (const auto& [name, key] : {std::pair<std::string, std::string>{"panel", "render.panel=true"},
                                   {"graph", "render.overlays.frame_graph=true"}}) {
    const std::string kept = run("7", name, {"--set", key});
    CHECK(kept.find("fovea: --capture: 3 pictures in " + name + "_pictures, 20 of 20 frames drawn\n") != std::string::npos);
  }
}

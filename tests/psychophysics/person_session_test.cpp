// A person's session of `fovea experiment`, end to end and without a person or a display:
// the fovea binary draws offscreen (SDL's offscreen driver, Mesa's EGL) and its keys come
// from --synthetic-keys, pushed into SDL's event queue when the session waits on each screen,
// so the instructions, trials, breaks, Escape and --resume run through the same code and the
// same event path as a keyboard's. The gaze-contingent sessions read a fake Gazepoint Control
// and a fake Pupil Capture (tests/trackers) on loopback, which the test drives from the
// trials.csv the session writes: a fixation that strays, a tracker that drops out, a tracker
// that comes back. The same runs against fovea's gaze stream (gaze.source: stream), fed by
// fovea's own sender (trackers/stream_sender.hpp), as the EyeLink, Tobii and LSL bridges feed it.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/format.hpp"
#include "psychophysics/trial_records.hpp"
#include "gaze/gaze_source.hpp"
#include "support/free_port.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "trackers/fake_gazepoint.hpp"
#include "trackers/fake_pupil_capture.hpp"
#include "trackers/stream_sender.hpp"

using namespace fovea;
using test::read_file;
using test::TempDir;

namespace {

const std::string kFovea = FOVEA_BINARY;

/// A small screen, so the software renderer keeps up. The default fixed gaze point (960, 540)
/// lies outside it, which a session without a tracker never reads.
std::string spec_text(const std::string& extra, const std::string& task = "task: {break_every: 2, inter_trial_interval_s: 0.1}\n") {
  return std::string("name: person\n"
         "seed: 3\n"
         "screen: {width_px: 480, height_px: 270, width_cm: 53.1, height_cm: 29.9, viewing_distance_cm: 57}\n"
         "stimulus: {entities: 4, duration_s: 0.3, collision_time_s: 0.15}\n"
         "method: constant_stimuli\n"
         "constant_stimuli: {gaps_deg: [0.2, 0.8], eccentricities_deg: [5], repetitions: 2, blocks: 1}\n") +
         task + extra;
}

std::vector<std::string> experiment_args(const TempDir& dir, const std::string& keys) {
  return {kFovea, "experiment", (dir / "spec.yaml").string(), "--participant", "P1", "--out", (dir / "P1").string(),
          "--quiet", "--synthetic-keys", keys};
}

/// The trials the session has made durable so far (a row being written is not read).
std::vector<TrialRecord> rows_of(const std::filesystem::path& trials) {
  try {
    return parse_trial_records(read_file(trials), trials.string());
  } catch (const std::exception&) {
    return {};
  }
}

std::size_t count_lines_with(const std::string& text, const std::string& part) {
  std::size_t n = 0, at = 0;
  while ((at = text.find(part, at)) != std::string::npos) {
    ++n;
    at += part.size();
  }
  return n;
}

}  // namespace

TEST_CASE("A person's session by synthetic keys: instructions, yes and no, a break, Escape, then --resume",
          "[experiment][person][gl]") {
  TempDir dir;
  test::write_file(dir / "spec.yaml", spec_text("display: {development_run: true}\n"));
  // Trials 0 and 1, the break after two answers, trial 2, then Escape on trial 3's answer.
  const test::ProcessResult first = test::run_process(
      experiment_args(dir, "instructions:Space,stimulus:y,answer:y,answer:n,break:Space,answer:y,answer:Escape"), dir.path());
  INFO(first.err);
  REQUIRE(first.status == 0);

  std::vector<TrialRecord> rows = read_trial_records((dir / "P1" / "trials.csv").string());
  REQUIRE(rows.size() == 3);
  // The y pressed during trial 0's stimulus is not its answer: the answer screen's key is.
  CHECK(rows[0].response == TrialResponse::yes);
  CHECK(rows[1].response == TrialResponse::no);
  CHECK(rows[2].response == TrialResponse::yes);
  for (const TrialRecord& r : rows) {
    CHECK(r.observer == "human");
    CHECK(r.session == "1");
    CHECK(r.reaction_time_ms >= 0);
    CHECK(r.fixation_kept);
    // The stimulus's frames were drawn and timed: at least its duration (it ends at the
    // first frame past 0.3 s), not much more on an idle machine.
    CHECK(r.stimulus_frames > 0);
    CHECK(r.stimulus_duration_s >= 0.25);
    CHECK(r.stimulus_duration_s < 3.0);
    CHECK(r.dropped_frames >= 0);
  }
  const std::string log = read_file(dir / "P1" / "session.log");
  CHECK(log.find("a person at the window") != std::string::npos);
  CHECK(log.find("vsync off") != std::string::npos);
  CHECK(log.find("development run") != std::string::npos);
  CHECK(log.find("session 1 ended by the participant") != std::string::npos);

  // The data dictionary describes every column of trials.csv, in order.
  const nlohmann::ordered_json sidecar = nlohmann::ordered_json::parse(read_file(dir / "P1" / "trials.json"));
  std::vector<std::string> described;
  for (const auto& [name, entry] : sidecar.items()) {
    described.push_back(name);
    CHECK(!entry.at("Description").get<std::string>().empty());
  }
  CHECK(described == trial_record_header());
  CHECK(sidecar.at("stimulus_duration_s").at("Units") == "seconds");
  CHECK(sidecar.at("response").at("Levels").contains("aborted"));

  // --resume: trial 3 again, then the session completes.
  std::vector<std::string> args = experiment_args(dir, "instructions:Space,answer:n");
  args.push_back("--resume");
  const test::ProcessResult second = test::run_process(args, dir.path());
  INFO(second.err);
  REQUIRE(second.status == 0);
  rows = read_trial_records((dir / "P1" / "trials.csv").string());
  REQUIRE(rows.size() == 4);
  CHECK(rows[3].trial == 3);
  CHECK(rows[3].session == "2");
  CHECK(rows[3].response == TrialResponse::no);
  CHECK(read_file(dir / "P1" / "session.log").find("session 2 complete: 4 trials") != std::string::npos);
}

TEST_CASE("A person's session without vsync is refused unless the spec is a development run", "[experiment][person][gl]") {
  TempDir dir;
  test::write_file(dir / "spec.yaml", spec_text(""));
  const test::ProcessResult refused = test::run_process(experiment_args(dir, "instructions:Space"), dir.path());
  CHECK(refused.status == 2);
  CHECK(refused.err.find("display.development_run") != std::string::npos);
  CHECK(refused.err.find("vsync is off") != std::string::npos);
  CHECK(!std::filesystem::exists(dir / "P1"));  // a refusal leaves nothing behind
}

TEST_CASE("Synthetic keys left unpushed fail the session, and a bad script is refused", "[experiment][person][gl]") {
  TempDir dir;
  test::write_file(dir / "spec.yaml", spec_text("display: {development_run: true}\n"));
  const test::ProcessResult bad = test::run_process(experiment_args(dir, "instructions:Space,answr:y"), dir.path());
  CHECK(bad.status == 2);
  CHECK(bad.err.find("answr:y") != std::string::npos);
  // Four trials need four answers; a fifth is never asked for.
  const test::ProcessResult extra = test::run_process(
      experiment_args(dir, "instructions:Space,answer:y,answer:y,break:Space,answer:y,answer:y,answer:n"), dir.path());
  CHECK(extra.status == 1);
  CHECK(extra.err.find("1 keys not pushed (next: answer:n)") != std::string::npos);
  CHECK(read_trial_records((dir / "P1" / "trials.csv").string()).size() == 4);
}

namespace {

/// What the fake tracker is made to do, phase by phase, as the session's rows come in.
enum class Phase {
  centre,    ///< gaze on the cross until a trial is answered
  strayed,   ///< gaze far from the cross until a trial is aborted for it
  dropout,   ///< the tracker gone until a trial is aborted for want of samples
  back,      ///< the tracker back, gaze on the cross, to the end
};

/// Drives a gaze-contingent session of 4 trials against a fake tracker. `send(x, y)` sends
/// one sample at the screen's fractions (x, y), `drop()` takes the tracker away and `back()`
/// brings it back; each returns quickly. Checks the rows and session.log at the end.
void run_contingent_session(const std::string& gaze_yaml, const std::function<void(double, double)>& send,
                            const std::function<void()>& drop, const std::function<void()>& back) {
  TempDir dir;
  // No break: four answers; the strayed and the dropped trials come again.
  test::write_file(dir / "spec.yaml", spec_text("display: {development_run: true}\nfixation_radius_deg: 2\n" + gaze_yaml,
                                          "task: {break_every: 0, inter_trial_interval_s: 0.1}\n"));
  test::ChildProcess child(experiment_args(dir, "instructions:Space,answer:y,answer:y,answer:y,answer:y"), dir.path(),
                           dir / "out.txt", dir / "err.txt");
  const std::filesystem::path trials = dir / "P1" / "trials.csv";
  Phase phase = Phase::centre;
  std::size_t seen = 0;
  const auto start = std::chrono::steady_clock::now();
  while (test::process_is_alive(child.pid()) &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
    const std::vector<TrialRecord> rows = rows_of(trials);
    for (; seen < rows.size(); ++seen) {
      const TrialRecord& r = rows[seen];
      if (phase == Phase::centre && r.response == TrialResponse::yes) {
        phase = Phase::strayed;
      } else if (phase == Phase::strayed && r.response == TrialResponse::aborted) {
        phase = Phase::dropout;
        drop();
      } else if (phase == Phase::dropout && r.response == TrialResponse::aborted) {
        phase = Phase::back;
        back();
      }
    }
    if (phase == Phase::centre || phase == Phase::back) send(0.5, 0.5);
    if (phase == Phase::strayed) send(0.9, 0.5);  // 192 px right of the cross: about 21 degrees
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int status = child.wait();
  INFO(read_file(dir / "err.txt"));
  INFO(read_file(dir / "P1" / "session.log"));
  REQUIRE(status == 0);
  CHECK(phase == Phase::back);

  const std::vector<TrialRecord> rows = read_trial_records(trials.string());
  // The first answered trial, the one aborted for straying and the one aborted for want of
  // samples, in that order.
  const auto answered = std::find_if(rows.begin(), rows.end(), [](const TrialRecord& r) { return r.response == TrialResponse::yes; });
  REQUIRE(answered != rows.end());
  const auto strayed = std::find_if(answered, rows.end(), [](const TrialRecord& r) { return r.response == TrialResponse::aborted; });
  REQUIRE(strayed != rows.end());
  CHECK(!strayed->fixation_kept);
  CHECK(strayed->gaze_samples >= 1);
  CHECK(strayed->gaze_max_deviation_deg > 2.0);
  const auto lost = std::find_if(strayed + 1, rows.end(), [](const TrialRecord& r) { return r.response == TrialResponse::aborted; });
  REQUIRE(lost != rows.end());
  CHECK(!lost->fixation_kept);
  CHECK(2 * lost->gaze_samples < lost->stimulus_frames);
  // Each aborted trial came again and was answered; the session completed its four trials
  // after the tracker came back.
  for (const auto aborted : {strayed, lost}) {
    const std::int64_t trial = aborted->trial;
    CHECK(std::any_of(aborted + 1, rows.end(), [&](const TrialRecord& r) {
      return r.trial == trial && r.response == TrialResponse::yes && r.fixation_kept;
    }));
  }
  CHECK(std::count_if(rows.begin(), rows.end(), [](const TrialRecord& r) { return r.response == TrialResponse::yes; }) == 4);
  const std::string log = read_file(dir / "P1" / "session.log");
  CHECK(count_lines_with(log, "aborted: the fixation left 2 deg") == 1);
  CHECK(log.find("under half the stimulus's frames: aborted, it comes again") != std::string::npos);
  CHECK(log.find("session 1 complete: 4 trials") != std::string::npos);
  // The session says how its gaze arrived: most stimulus frames on a current sample, some
  // held or on the fallback while the tracker was away.
  CHECK(log.find("gaze over the stimuli this session: ") != std::string::npos);
  CHECK(log.find(" on a current sample (its age at the frame: median ") != std::string::npos);
}

/// The matched clips spec, small and short: 4 trials (2 scenes x 2 schedulers, one budget),
/// 0.3 s clips on a 480 x 270 screen, gaze-contingent by `gaze_sets` (--set arguments).
std::vector<std::string> clip_session_args(const TempDir& dir, const std::vector<std::string>& gaze_sets) {
  std::vector<std::string> argv = {kFovea, "experiment", std::string(FOVEA_SOURCE_DIR) + "/configs/experiments/matched_clips.yaml",
                                   "--participant", "C1", "--out", (dir / "C1").string(), "--quiet",
                                   "--synthetic-keys", "instructions:Space,answer:1,answer:1,answer:1,answer:1"};
  for (const std::string set :
       {"clip_comparison.repetitions=1", "clip_comparison.blocks=1", "clip_comparison.clip_s=0.3",
        "clip_comparison.budgets_tests=[2000]", "clip_comparison.warmup_frames=10", "task.inter_trial_interval_s=0.1",
        "display.development_run=true", "screen.width_px=480", "screen.height_px=270", "fixation_radius_deg=2"}) {
    argv.push_back("--set");
    argv.push_back(set);
  }
  for (const std::string& set : gaze_sets) {
    argv.push_back("--set");
    argv.push_back(set);
  }
  return argv;
}

std::string text_or_empty(const std::filesystem::path& path) {
  try {
    return read_file(path);
  } catch (const std::exception&) {
    return "";
  }
}

/// Drives a gaze-contingent clip session of 4 trials against a tracker as
/// run_contingent_session does a disc session, from the files the session writes: gaze on
/// the cross until the first trial is answered, then astray until a clip is stopped for it,
/// then the tracker gone until a clip does not count for want of samples, then back. Checks
/// the rows and session.log at the end.
void run_contingent_clip_session(const std::vector<std::string>& gaze_sets, const std::function<void(double, double)>& send,
                                 const std::function<void()>& drop, const std::function<void()>& back,
                                 const std::string& connected_phrase, std::size_t max_connections) {
  TempDir dir;
  test::ChildProcess child(clip_session_args(dir, gaze_sets), dir.path(), dir / "out.txt", dir / "err.txt");
  const std::filesystem::path trials = dir / "C1" / "trials.csv";
  const std::filesystem::path log_path = dir / "C1" / "session.log";
  Phase phase = Phase::centre;
  const auto start = std::chrono::steady_clock::now();
  while (test::process_is_alive(child.pid()) && std::chrono::steady_clock::now() - start < std::chrono::seconds(150)) {
    const std::string log = text_or_empty(log_path);
    if (phase == Phase::centre && count_lines_with(text_or_empty(trials), "\n") >= 2) phase = Phase::strayed;
    if (phase == Phase::strayed && log.find("the fixation left 2 deg during a clip") != std::string::npos) {
      phase = Phase::dropout;
      drop();
    }
    if (phase == Phase::dropout && log.find("had a valid gaze sample, under half") != std::string::npos) {
      phase = Phase::back;
      back();
    }
    if (phase == Phase::centre || phase == Phase::back) send(0.5, 0.5);
    if (phase == Phase::strayed) send(0.9, 0.5);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int status = child.wait();
  const std::string log = text_or_empty(log_path);
  INFO(read_file(dir / "err.txt"));
  INFO(log);
  REQUIRE(status == 0);
  CHECK(phase == Phase::back);
  // Every trial answered once; the stopped clips were shown again, not recorded.
  CHECK(count_lines_with(read_file(trials), "\n") == 1 + 4);
  const std::string source = gaze_sets.front().substr(std::string("gaze.source=").size());
  CHECK(log.find("one " + source + " tracker connection for the session") != std::string::npos);
  // One connection served the clips: the tracker connected at the start and again only
  // around its dropout (a stream listens once), not once a clip.
  const std::string clip_frames = read_file(dir / "C1" / "clip_frames.csv");
  const std::size_t clips_shown = count_lines_with(clip_frames, ",test,0,") + count_lines_with(clip_frames, ",reference,0,");
  INFO(clips_shown << " clips shown");
  CHECK(count_lines_with(log, connected_phrase) >= 1);
  CHECK(count_lines_with(log, connected_phrase) <= max_connections);
  CHECK(count_lines_with(log, connected_phrase) < clips_shown);
  CHECK(count_lines_with(log, "the fixation left 2 deg during a clip") >= 1);
  CHECK(log.find("frames of a clip had a valid gaze sample, under half: it is shown again") != std::string::npos);
  CHECK(log.find("session 1 complete: 4 trials") != std::string::npos);
  CHECK(log.find("gaze over the clips this session: ") != std::string::npos);
  // clip_frames.csv numbers the attempts (its fourth column): some trial was shown again.
  const std::string frames = read_file(dir / "C1" / "clip_frames.csv");
  bool shown_again = false;
  for (std::size_t line = frames.find('\n'); line != std::string::npos && line + 1 < frames.size();
       line = frames.find('\n', line + 1)) {
    std::size_t at = line + 1;
    for (int comma = 0; comma < 3; ++comma) at = frames.find(',', at) + 1;
    shown_again |= frames.compare(at, 2, "0,") != 0;
  }
  CHECK(shown_again);
}

/// What a fake tracker is made to do: send a sample at the screen's fractions, go away, come
/// back; and the gaze keys that point a session at it.
struct FakeTracker {
  std::vector<std::string> gaze_sets;  ///< --set gaze.source=..., gaze.port=..., source first
  std::string gaze_yaml;               ///< the same as a spec's gaze map
  std::function<void(double, double)> send;
  std::function<void()> drop;
  std::function<void()> back;
  /// What session.log says each time the session's tracker (re)connects, and how often a
  /// session of one connection may say it: at the start, and while it is away and back (a
  /// Gazepoint source retries against a server that accepts and says nothing).
  std::string connected_phrase;
  std::size_t max_connections = 4;
};

/// A fake Gazepoint Control: drop closes the client's connection, which the source opens again.
FakeTracker fake_gazepoint() {
  struct State {
    test::FakeGazepoint fake;
    bool connected = false;
  };
  const auto state = std::make_shared<State>();
  const std::string port = std::to_string(state->fake.port());
  FakeTracker t;
  t.gaze_sets = {"gaze.source=gazepoint", "gaze.port=" + port};
  t.gaze_yaml = "gaze: {source: gazepoint, port: " + port + "}\n";
  t.connected_phrase = "gaze: gazepoint: connected to";
  t.send = [state](double x, double y) {
    if (!state->connected) state->connected = state->fake.accept_client(0.01) && state->fake.wait_for_commands(2, 1.0);
    if (state->connected && !state->fake.send("<REC FPOGX=\"" + format_number(x) + "\" FPOGY=\"" + format_number(y) +
                                              "\" FPOGS=\"1.0\" FPOGD=\"0.1\" FPOGID=\"1\" FPOGV=\"1\" />\r\n"))
      state->connected = false;  // the client went: take its next connection
  };
  t.drop = [state] {
    state->fake.close_client();
    state->connected = false;
  };
  t.back = [] {};
  return t;
}

/// A fake Pupil Capture: drop quits it, back starts it again on the same port.
FakeTracker fake_pupil() {
  struct State {
    std::unique_ptr<test::FakePupilCapture> fake = std::make_unique<test::FakePupilCapture>();
    int port = 0;
  };
  const auto state = std::make_shared<State>();
  state->port = state->fake->remote_port();
  const std::string port = std::to_string(state->port);
  FakeTracker t;
  t.gaze_sets = {"gaze.source=pupil", "gaze.port=" + port, "gaze.surface=screen"};
  t.gaze_yaml = "gaze: {source: pupil, port: " + port + ", surface: screen}\n";
  t.connected_phrase = "gaze: pupil: connected to Pupil Remote";
  t.send = [state](double x, double y) {
    if (state->fake) state->fake->publish_surface("screen", {{x, y, 0.95, true, state->fake->now_s()}});
  };
  t.drop = [state] { state->fake.reset(); };                                                  // Pupil Capture quits
  t.back = [state] { state->fake = std::make_unique<test::FakePupilCapture>(state->port); };  // and starts again
  return t;
}

/// fovea's own stream sender, as the EyeLink, Tobii and LSL bridges use it: drop kills it,
/// back starts a new one, which asks fovea's clock again.
FakeTracker stream_sender() {
  struct State {
    int port = test::free_port_pair();
    std::unique_ptr<StreamSender> sender;
    std::optional<StreamClockSync> sync;
    void start() {
      sender = std::make_unique<StreamSender>("127.0.0.1", port, 0.1);
      sync.reset();
    }
  };
  const auto state = std::make_shared<State>();
  state->start();
  const std::string port = std::to_string(state->port);
  FakeTracker t;
  t.gaze_sets = {"gaze.source=stream", "gaze.port=" + port};
  t.gaze_yaml = "gaze: {source: stream, port: " + port + "}\n";
  t.connected_phrase = "gaze: stream: listening for samples";
  t.max_connections = 1;
  t.send = [state](double x, double y) {
    if (!state->sender) return;
    if (!state->sync) {
      // fovea answers its clock once the session has opened the stream: until then, try again.
      try {
        state->sync = state->sender->sync_clock(gaze_wall_clock_s, 3);
      } catch (const std::runtime_error&) {
        return;
      }
    }
    StreamMessage m;
    m.time_s = gaze_wall_clock_s() + state->sync->offset_s;
    m.x = x;
    m.y = y;
    m.units = StreamUnits::norm;
    m.tracker_time_s = gaze_wall_clock_s();
    state->sender->send(m);
  };
  t.drop = [state] { state->sender.reset(); };  // the sender is killed
  t.back = [state] { state->start(); };         // and started again
  return t;
}

}  // namespace

TEST_CASE("A gaze-contingent session against a fake Gazepoint: a stray aborts and requeues, a dropout aborts, a reconnect goes on",
          "[experiment][person][gl][gazepoint]") {
  const FakeTracker t = fake_gazepoint();
  run_contingent_session(t.gaze_yaml, t.send, t.drop, t.back);
}

TEST_CASE("A gaze-contingent session against a fake Pupil Capture: a stray aborts and requeues, a dropout aborts, a restart goes on",
          "[experiment][person][gl][pupil]") {
  const FakeTracker t = fake_pupil();
  run_contingent_session(t.gaze_yaml, t.send, t.drop, t.back);
}

TEST_CASE("A gaze-contingent session against a stream sender: a stray aborts and requeues, a killed sender aborts, a restarted one goes on",
          "[experiment][person][gl][stream]") {
  const FakeTracker t = stream_sender();
  run_contingent_session(t.gaze_yaml, t.send, t.drop, t.back);
}

TEST_CASE("A gaze-contingent clip session against a fake Gazepoint: one connection, a stray and a dropout shown again, completion",
          "[experiment][person][gl][clips][gazepoint]") {
  const FakeTracker t = fake_gazepoint();
  run_contingent_clip_session(t.gaze_sets, t.send, t.drop, t.back, t.connected_phrase, t.max_connections);
}

TEST_CASE("A gaze-contingent clip session against a fake Pupil Capture: one connection, a stray and a dropout shown again, completion",
          "[experiment][person][gl][clips][pupil]") {
  const FakeTracker t = fake_pupil();
  run_contingent_clip_session(t.gaze_sets, t.send, t.drop, t.back, t.connected_phrase, t.max_connections);
}

TEST_CASE("A gaze-contingent clip session against a stream sender: one connection, a stray and a killed sender shown again, a restart goes on",
          "[experiment][person][gl][clips][stream]") {
  const FakeTracker t = stream_sender();
  run_contingent_clip_session(t.gaze_sets, t.send, t.drop, t.back, t.connected_phrase, t.max_connections);
}

TEST_CASE("A person's two-interval session by synthetic keys: two animations per trial, answered first or second",
          "[experiment][person][gl][forced_choice]") {
  TempDir dir;
  test::write_file(dir / "spec.yaml",
                   spec_text("display: {development_run: true}\n",
                             "task: {kind: 2ifc, break_every: 0, inter_trial_interval_s: 0.1, interstimulus_interval_s: 0.2}\n"));
  const test::ProcessResult run = test::run_process(
      experiment_args(dir, "instructions:Space,answer:1,answer:2,answer:2,answer:1"), dir.path());
  INFO(run.err);
  REQUIRE(run.status == 0);
  const std::vector<TrialRecord> rows = read_trial_records((dir / "P1" / "trials.csv").string());
  REQUIRE(rows.size() == 4);
  const TrialResponse keyed[] = {TrialResponse::first, TrialResponse::second, TrialResponse::second, TrialResponse::first};
  int with_gap_first = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const TrialRecord& r = rows[i];
    INFO("row " << i);
    CHECK(r.response == keyed[i]);
    REQUIRE((r.gap_interval == 1 || r.gap_interval == 2));
    with_gap_first += r.gap_interval == 1 ? 1 : 0;
    CHECK(r.correct == ((r.gap_interval == 1) == (r.response == TrialResponse::first) ? 1 : 0));
    CHECK(!std::isnan(r.other_direction_deg));
    // Both animations were drawn and timed: twice 0.3 s at least, the blank between them not counted.
    CHECK(r.stimulus_duration_s >= 0.5);
    CHECK(r.stimulus_duration_s < 6.0);
    CHECK(r.stimulus_frames >= 2);
  }
  const std::string log = read_file(dir / "P1" / "session.log");
  CHECK(log.find("a person at the window") != std::string::npos);
  WARN("two-interval person session: the gap was in the first animation on " << with_gap_first << " of 4 trials");
}

#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gaze/gaze.hpp"
#include "gaze/replay_gaze.hpp"
#include "run/gaze_log.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "frame/animation.hpp"

using namespace fovea;

namespace {

/// The message read_gaze_csv gives for `text`, or "" when it reads.
std::string read_error(const std::string& text) {
  test::TempDir dir;
  test::write_file(dir / "g.csv", text);
  try {
    read_gaze_csv((dir / "g.csv").string());
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    return message.substr(message.find("g.csv") + 5);  // ":<line>: what"
  }
  return "";
}

GazeRecordRow row(double t, double x, double y, bool valid = true, double age_s = 0) {
  return GazeRecordRow{t, x, y, valid, age_s};
}

}  // namespace

TEST_CASE("read_gaze_csv: with a header by name, without one by position", "[gaze][replay]") {
  test::TempDir dir;
  test::write_file(dir / "fovea.csv",
             "t_s,x_px,y_px,valid,source,age_ms\r\n0,10,20,1,pupil,4.5\r\n0.01,11,21,0,hold,9.5\r\n");
  const auto a = read_gaze_csv((dir / "fovea.csv").string());
  REQUIRE(a.size() == 2);
  CHECK(a[0].t_s == 0);
  CHECK(a[0].x_px == 10);
  CHECK(a[0].y_px == 20);
  CHECK(a[0].valid);
  CHECK(a[0].age_s == Approx(0.0045).epsilon(1e-12));
  CHECK_FALSE(a[1].valid);
  CHECK(a[1].age_s == 0);  // an invalid row's age is not used

  // Another tool's export: columns in another order, extra columns ignored.
  test::write_file(dir / "other.csv", "y_px,frame,t_s,x_px\n5,0,1.5,6\n");
  const auto b = read_gaze_csv((dir / "other.csv").string());
  REQUIRE(b.size() == 1);
  CHECK(b[0].t_s == 1.5);
  CHECK(b[0].x_px == 6);
  CHECK(b[0].y_px == 5);
  CHECK(b[0].valid);

  test::write_file(dir / "bare.csv", "# recorded by hand\n\n0, 1, 2\n0.5, 3, 4, 0\n1, 5, 6, true\n");
  const auto c = read_gaze_csv((dir / "bare.csv").string());
  REQUIRE(c.size() == 3);
  CHECK(c[0].valid);
  CHECK_FALSE(c[1].valid);
  CHECK(c[2].x_px == 5);
}

TEST_CASE("read_gaze_csv: errors name the file, the line and what was expected", "[gaze][replay]") {
  CHECK(read_error("t_s,x_px,y_px\n0,1,2\n0,3,4\n") == ":3: t_s 0 does not come after the previous row's 0");
  CHECK(read_error("t_s,x_px,y_px,valid\n0,1,2,yes\n") == ":2: valid: expected 1, 0, true or false, found \"yes\"");
  CHECK(read_error("t_s,x_px,y_px\n0,nan,2\n") == ":2: x_px: expected a finite number, found \"nan\"");
  CHECK(read_error("t_s,x_px,y_px\n0,1,\n") == ":2: y_px: expected a finite number, found \"\"");
  CHECK(read_error("time,x,y\n0,1,2\n") == ":1: the header needs columns t_s, x_px and y_px (valid, age_ms optional)");
  CHECK(read_error("0,1\n") == ":1: expected at least 3 fields, found 2");
  CHECK(read_error("t_s,x_px,y_px\n") == ": the gaze recording has no rows");
  CHECK(read_error("t_s,x_px,y_px,valid\n0,,,0\n1,5,6,1\n").empty());  // an invalid row needs no point
  // A last row without its line end may be cut (a 1.25 read as 1.2): refused at its line, not
  // replayed as a point the tracker never gave.
  CHECK(read_error("t_s,x_px,y_px\n0,1,2\n0.01,3,4.2").rfind(":3: the last row has no line end", 0) == 0);
  CHECK(read_error("t_s,x_px,y_px\n0,1,2\n0.01,3,4.2\n").empty());
  CHECK_THROWS_WITH(read_gaze_csv("/nonexistent/gaze.csv"), "/nonexistent/gaze.csv: cannot read the gaze recording: no such file");
}

TEST_CASE("ReplayGaze: rows exactly, interpolation between valid rows, newest sample across gaps", "[gaze][replay]") {
  ReplayGaze replay({row(1.0, 100, 200, true, 0.004), row(2.0, 300, 400), row(3.0, 0, 0, false), row(4.0, 50, 60),
                     row(10.0, 70, 80)},
                    1.0);
  GazeSample s = replay.sample(0.5);  // before the recording
  CHECK_FALSE(s.valid);

  s = replay.sample(1.0);
  CHECK(s.valid);
  CHECK(s.x_px == 100);
  CHECK(s.y_px == 200);
  CHECK(s.time_s == 1.0 - 0.004);  // the recorded age is kept

  s = replay.sample(1.25);
  CHECK(s.x_px == 150);
  CHECK(s.y_px == 250);
  CHECK(s.time_s == Approx(1.25 - 0.003).epsilon(1e-12));

  s = replay.sample(2.5);  // after a valid row, before an invalid one: the newest sample, ageing
  CHECK(s.valid);
  CHECK(s.x_px == 300);
  CHECK(s.time_s == 2.0);

  CHECK_FALSE(replay.sample(3.0).valid);
  CHECK_FALSE(replay.sample(3.9).valid);

  s = replay.sample(7.0);  // rows 6 s apart, more than max_gap_s: no sweep between them, the
  CHECK(s.valid);          // earlier row ageing (an export that left out a dropout)
  CHECK(s.x_px == 50);
  CHECK(s.time_s == 4.0);

  s = replay.sample(12.0);  // after the end: the last row, ageing
  CHECK(s.valid);
  CHECK(s.x_px == 70);
  CHECK(s.time_s == 10.0);

  s = replay.sample(1.5);  // back in time (against the contract) still gives the right answer
  CHECK(s.x_px == 200);

  CHECK_THROWS_AS(ReplayGaze({}, 1), std::invalid_argument);
  CHECK_THROWS_AS(ReplayGaze({row(1, 0, 0), row(1, 0, 0)}, 1), std::invalid_argument);
  CHECK_THROWS_AS(ReplayGaze({row(1, 0, 0)}, -1), std::invalid_argument);
}

TEST_CASE("replay: a tracker session with gaps, held points and ages replays frame for frame", "[gaze][replay]") {
  // A tracker on the run's clock with varying latency and a 300 ms dropout, recorded as a
  // run records it, then replayed through a Gaze with the same fallback.
  class Tracker final : public GazeSource {
   public:
    GazeSample sample(double now_s) override {
      GazeSample s;
      const int frame = static_cast<int>(std::lround(now_s * 100));
      s.valid = frame < 20 || frame > 50;
      s.x_px = 100 + 7.25 * frame;
      s.y_px = 900 - 3.5 * frame;
      s.time_s = now_s - 0.0015 * (frame % 4);
      return s;
    }
  };
  GazeSettings settings;
  settings.max_age_ms = 100;
  settings.fallback.hold_ms = 95;
  const ScreenSettings screen;
  test::TempDir dir;
  std::vector<FrameGaze> live;
  {
    Gaze gaze(std::make_unique<Tracker>(), "pupil", settings, screen);
    GazeLog log((dir / "gaze.csv").string());
    for (int k = 0; k < 80; ++k) {
      FrameStats stats;
      stats.gaze_time_s = k * 0.01;
      stats.gaze = gaze.at(stats.gaze_time_s);
      log.write(stats);
      live.push_back(stats.gaze);
    }
  }
  settings.source = GazeSourceKind::replay;
  settings.file = (dir / "gaze.csv").string();
  Gaze replay(settings, screen, 1);
  int held = 0, centred = 0;
  for (int k = 0; k < 80; ++k) {
    const FrameGaze f = replay.at(k * 0.01);
    INFO("frame " << k);
    const std::string origin = live[k].source;
    CHECK(std::string(f.source) == (origin == "pupil" ? "replay" : origin));
    CHECK(f.valid == live[k].valid);
    CHECK(f.x_px == live[k].x_px);
    CHECK(f.y_px == live[k].y_px);
    if (std::isnan(live[k].age_ms))
      CHECK(std::isnan(f.age_ms));
    else
      CHECK(f.age_ms == Approx(live[k].age_ms).margin(1e-9).epsilon(0));
    held += origin == "hold";
    centred += origin == "centre";
  }
  CHECK(held > 5);  // the dropout exercised both fallbacks
  CHECK(centred > 5);
}

TEST_CASE("replay: a run's own gaze.csv replays to the same frames, bit for bit", "[gaze][replay]") {
  AnimationSettings settings;
  EntityGroupSettings balls;
  balls.count = 60;
  balls.speed_mps = 1.0;
  settings.world.entities = {balls};
  settings.schedule.kind = SchedulerKind::priority_queues;
  settings.budget.mode = BudgetMode::work;
  settings.budget.tests = 200;
  settings.gaze.source = GazeSourceKind::scripted;
  settings.gaze.scripted.fixation_mean_ms = 60;  // many saccades in a short run

  test::TempDir dir;
  std::vector<FrameStats> original;
  {
    Animation world(settings, 3);
    GazeLog log((dir / "gaze.csv").string());
    for (int k = 0; k < 120; ++k) {
      original.push_back(world.step());
      log.write(original.back());
    }
  }
  settings.gaze.source = GazeSourceKind::replay;
  settings.gaze.file = (dir / "gaze.csv").string();
  Animation world(settings, 3);
  for (const FrameStats& o : original) {
    const FrameStats r = world.step();
    INFO("frame " << o.frame);
    CHECK(std::string(r.gaze.source) == "replay");
    CHECK(r.gaze.x_px == o.gaze.x_px);
    CHECK(r.gaze.y_px == o.gaze.y_px);
    CHECK(r.gaze.age_ms == o.gaze.age_ms);
    CHECK(r.sphere_tests == o.sphere_tests);
    CHECK(r.metrics.p_est == o.metrics.p_est);
    CHECK(r.metrics.nabla_est_m == o.metrics.nabla_est_m);
  }
}

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gaze/external_gaze.hpp"
#include "gaze/gaze.hpp"

using namespace fovea;

namespace {

GazeSample at(double x, double y, double t, bool valid = true, double confidence = 1.0) {
  GazeSample s;
  s.x_px = x;
  s.y_px = y;
  s.time_s = t;
  s.valid = valid;
  s.confidence = confidence;
  return s;
}

GazeSettings external(double max_age_ms, double hold_ms) {
  GazeSettings g;
  g.source = GazeSourceKind::external;
  g.max_age_ms = max_age_ms;
  g.fallback.hold_ms = hold_ms;
  return g;
}

const ScreenSettings kScreen;  // 1920 x 1080

/// A Gaze over an external source, and the source, as the Python module reaches it.
struct ExternalGaze {
  Gaze gaze;
  ExternalGazeSource& source;
  explicit ExternalGaze(const GazeSettings& settings)
      : gaze(settings, kScreen, 1), source(dynamic_cast<ExternalGazeSource&>(gaze.source())) {}
};

}  // namespace

TEST_CASE("ExternalGazeSource: made from gaze.source external, on the run's clock, empty until pushed", "[gaze][external]") {
  ExternalGaze g(external(100, 200));
  CHECK(g.source.clock() == GazeClock::run);
  CHECK(std::string(gaze_source_name(GazeSourceKind::external)) == "external");
  CHECK_FALSE(g.source.sample(0).valid);
  const FrameGaze f = g.gaze.at(0);
  CHECK(std::string(f.source) == "centre");
  CHECK(f.x_px == 960);
  CHECK(f.dropped == 0);
  // Checking a config leaves it as it is: building it contacts nothing.
  CHECK(without_live_input(external(100, 200)).source == GazeSourceKind::external);
}

TEST_CASE("ExternalGazeSource: a pushed sample is used with its age on the run's clock, held, then the centre",
          "[gaze][external]") {
  // The same steps as gaze_fallback_test's stalled tracker: max_age_ms, then hold_ms, then the centre.
  ExternalGaze g(external(100, 200));
  // The run's clock at 10 s, nothing pushed yet: the centre.
  CHECK(std::string(g.gaze.at(10.0).source) == "centre");
  REQUIRE(g.source.push(at(500, 600, 10.0)));
  FrameGaze f = g.gaze.at(10.04);
  CHECK(std::string(f.source) == "external");
  CHECK(f.valid);
  CHECK(f.x_px == 500);
  CHECK(f.y_px == 600);
  CHECK(f.age_ms == Approx(40).epsilon(1e-9));
  CHECK(std::string(g.gaze.at(10.099).source) == "external");
  const FrameGaze stale = g.gaze.at(10.101);
  CHECK(std::string(stale.source) == "hold");
  CHECK_FALSE(stale.valid);
  CHECK(stale.x_px == 500);
  CHECK(std::string(g.gaze.at(10.199).source) == "hold");
  f = g.gaze.at(10.201);
  CHECK(std::string(f.source) == "centre");
  CHECK(f.x_px == 960);
  CHECK(std::isnan(f.age_ms));

  // A new sample takes over at once.
  REQUIRE(g.source.push(at(10, 20, 10.3)));
  f = g.gaze.at(10.3);
  CHECK(std::string(f.source) == "external");
  CHECK(f.x_px == 10);
  CHECK(f.age_ms == 0);
}

TEST_CASE("ExternalGazeSource: the frame takes the newest sample due by its time, not one pushed for later",
          "[gaze][external]") {
  ExternalGaze g(external(100, 200));
  REQUIRE(g.source.push(at(100, 100, 1.00)));
  REQUIRE(g.source.push(at(200, 200, 1.02)));
  REQUIRE(g.source.push(at(300, 300, 1.04)));  // within the future tolerance of a frame at 1.0 ...
  REQUIRE(g.source.push(at(400, 400, 1.20)));  // ... and beyond it
  FrameGaze f = g.gaze.at(1.0);
  CHECK(f.x_px == 300);
  CHECK(f.age_ms == Approx(-40).margin(1e-9));
  CHECK(f.valid);
  f = g.gaze.at(1.1);  // the 1.04 sample, 60 ms old; the 1.20 one is not due
  CHECK(f.x_px == 300);
  CHECK(f.valid);
  f = g.gaze.at(1.2);
  CHECK(f.x_px == 400);

  // Before the first sample is due, nothing current: the centre.
  ExternalGaze early(external(100, 200));
  REQUIRE(early.source.push(at(1, 2, 1.5)));
  CHECK(std::string(early.gaze.at(0.0).source) == "centre");
  CHECK(std::string(early.gaze.at(1.5).source) == "external");
}

TEST_CASE("ExternalGazeSource: an invalid sample holds the last valid point for hold_ms, then the centre",
          "[gaze][external]") {
  ExternalGaze g(external(100, 200));
  REQUIRE(g.source.push(at(300, 400, 0.0)));
  CHECK(g.gaze.at(0.0).valid);
  // A blink: trackers give NaN coordinates with it, which an invalid sample may carry.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE(g.source.push(at(nan, nan, 0.05, false)));
  FrameGaze f = g.gaze.at(0.05);
  CHECK(std::string(f.source) == "hold");
  CHECK_FALSE(f.valid);
  CHECK(f.x_px == 300);
  CHECK(f.age_ms == Approx(50).epsilon(1e-9));
  CHECK(std::string(g.gaze.at(0.199).source) == "hold");
  CHECK(std::string(g.gaze.at(0.201).source) == "centre");
  CHECK(g.source.dropped() == 0);
}

TEST_CASE("ExternalGazeSource: rejected pushes are counted, say why, and do not move the point", "[gaze][external]") {
  ExternalGaze g(external(100, 200));
  CHECK(g.source.last_rejection().empty());
  REQUIRE(g.source.push(at(300, 400, 1.0)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    GazeSample sample;
    const char* why;
  } rejected[] = {
      {at(nan, 10, 1.01), "x_px is nan: a valid sample needs finite coordinates"},
      {at(10, inf, 1.01), "y_px is inf: a valid sample needs finite coordinates"},
      {at(10, 10, nan), "time_s is nan: a sample needs a finite time"},
      {at(10, 10, 1.01, false, 2.0), "confidence is 2: it must lie in [0, 1]"},
      {at(10, 10, 1.01, true, -0.5), "confidence is -0.5: it must lie in [0, 1]"},
      {at(10, 10, 1.01, true, nan), "confidence is nan: it must lie in [0, 1]"},
      {at(10, 10, 0.5), "time_s 0.5 s is before the newest sample's 1 s: samples must come in time order, on the "
                        "run's clock"},
      {at(10, 10, 1e9), "time_s 1000000000 s is more than 2 s ahead of the run's clock (0 s, the frame's time): a glitched "
                        "time stamp, or one not mapped onto the run's clock"},
  };
  std::uint64_t count = 0;
  for (const auto& r : rejected) {
    INFO(r.why);
    CHECK_FALSE(g.source.push(r.sample));
    CHECK(g.source.last_rejection() == r.why);
    CHECK(g.source.dropped() == ++count);
  }
  const FrameGaze f = g.gaze.at(1.05);
  CHECK(std::string(f.source) == "external");
  CHECK(f.x_px == 300);
  CHECK(f.y_px == 400);
  CHECK(f.dropped == count);
  std::vector<GazeSample> recent;
  g.source.take_recent(recent);
  CHECK(recent.size() == 1);

  // The same time again is accepted (the later push wins); a rejection's reason stays until the next.
  CHECK(g.source.push(at(50, 60, 1.0)));
  CHECK(g.gaze.at(1.06).x_px == 50);
  CHECK_FALSE(g.source.last_rejection().empty());
}

TEST_CASE("ExternalGazeSource: a time from the far future is refused, not made the clock, and later samples are used",
          "[gaze][external]") {
  // Before: one glitched time stamp (1e9 s) was accepted as the newest sample, and every real
  // sample after it refused as older, for the rest of the run.
  ExternalGaze g(external(100, 200));
  (void)g.gaze.at(1.0);  // the run's clock at 1 s
  CHECK_FALSE(g.source.push(at(10, 20, 1e9)));
  CHECK(g.source.dropped() == 1);
  CHECK(g.source.last_rejection() ==
        "time_s 1000000000 s is more than 2 s ahead of the run's clock (1 s, the frame's time): a glitched time stamp, or "
        "one not mapped onto the run's clock");
  REQUIRE(g.source.push(at(300, 400, 1.01)));
  FrameGaze f = g.gaze.at(1.02);
  CHECK(std::string(f.source) == "external");
  CHECK(f.x_px == 300);
  CHECK(f.dropped == 1);

  // The bound itself, kMaxAheadS past the clock (1.02 s now), is accepted; just past it is not.
  const double edge_s = 1.02 + ExternalGazeSource::kMaxAheadS;
  CHECK_FALSE(g.source.push(at(1, 1, std::nextafter(edge_s, 1e300))));
  CHECK(g.source.dropped() == 2);
  CHECK(g.source.push(at(500, 600, edge_s)));
  CHECK(g.source.dropped() == 2);
  // It waits for its frame, as any sample pushed ahead.
  CHECK(g.gaze.at(1.03).x_px == 300);
  CHECK(g.gaze.at(edge_s).x_px == 500);

  // Before the first frame the clock is 0: the bound is kMaxAheadS itself.
  ExternalGaze fresh(external(100, 200));
  CHECK_FALSE(fresh.source.push(at(1, 1, std::nextafter(ExternalGazeSource::kMaxAheadS, 1e300))));
  CHECK(fresh.source.push(at(1, 1, ExternalGazeSource::kMaxAheadS)));
}

TEST_CASE("ExternalGazeSource: take_recent gives what was pushed since the last call, the newest 512 at most",
          "[gaze][external]") {
  ExternalGazeSource source;
  std::vector<GazeSample> recent;
  source.take_recent(recent);
  CHECK(recent.empty());
  for (int i = 0; i < 3; ++i) REQUIRE(source.push(at(i, i, 0.001 * i, i != 1)));
  source.take_recent(recent);
  REQUIRE(recent.size() == 3);
  CHECK(recent[0].time_s == 0);
  CHECK_FALSE(recent[1].valid);
  CHECK(recent[2].x_px == 2);
  source.take_recent(recent);  // nothing new: nothing appended
  CHECK(recent.size() == 3);

  recent.clear();
  const int pushed = 1000;
  for (int i = 0; i < pushed; ++i) REQUIRE(source.push(at(i, 0, 1.0 + 0.001 * i)));
  source.take_recent(recent);
  REQUIRE(recent.size() == ExternalGazeSource::kCapacity);
  CHECK(recent.front().x_px == pushed - static_cast<double>(ExternalGazeSource::kCapacity));
  CHECK(recent.back().x_px == pushed - 1);
  for (std::size_t i = 1; i < recent.size(); ++i) CHECK(recent[i].time_s > recent[i - 1].time_s);
  // A flood ahead of the frame keeps the newest too: the last one pushed is due at its time.
  CHECK(source.sample(1.0 + 0.001 * (pushed - 1)).x_px == pushed - 1);
}

TEST_CASE("ExternalGazeSource: one thread pushes while another samples and takes the record", "[gaze][external][threads]") {
  ExternalGaze g(external(100, 200));
  std::atomic<bool> stop{false};
  std::atomic<int> accepted{0};
  // The pusher stamps samples on the run's clock ahead of the frames, as a tracker's callback
  // would, but never more than a second ahead of them (ExternalGazeSource::kMaxAheadS is 2 s).
  std::atomic<double> clock_s{0.0};
  std::thread pusher([&] {
    for (int i = 0; !stop.load(); ++i) {
      const double t_s = 0.001 * i;
      while (t_s > clock_s.load() + 1.0 && !stop.load()) std::this_thread::yield();
      if (g.source.push(at(i % 1920, 540, t_s))) accepted.fetch_add(1);
      if (i % 64 == 0) std::this_thread::yield();
    }
  });
  std::vector<GazeSample> recent;
  double last_used_s = -1;
  double last_recorded_s = -1;
  bool monotone = true;
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  for (int frame = 0; std::chrono::steady_clock::now() < end; ++frame) {
    const double now_s = 0.001 * frame;
    clock_s.store(now_s);
    const GazeSample s = g.source.sample(now_s);
    if (s.valid) {
      monotone = monotone && s.time_s >= last_used_s;
      last_used_s = s.time_s;
    }
    (void)g.gaze.at(now_s);
    recent.clear();
    g.source.take_recent(recent);
    CHECK(recent.size() <= ExternalGazeSource::kCapacity);
    for (const GazeSample& r : recent) {
      monotone = monotone && r.time_s > last_recorded_s;
      last_recorded_s = r.time_s;
    }
  }
  stop.store(true);
  pusher.join();
  CHECK(monotone);
  CHECK(accepted.load() > 0);
  CHECK(g.source.dropped() == 0);
}

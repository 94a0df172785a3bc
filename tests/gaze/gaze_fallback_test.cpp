#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "gaze/gaze.hpp"
#include "gaze/mouse_gaze.hpp"

using namespace fovea;

namespace {

/// A source whose next sample the test sets: valid or not, any time stamp, on either clock.
class StubSource final : public GazeSource {
 public:
  GazeSample next;
  GazeClock on = GazeClock::run;
  std::uint64_t drops = 0;
  GazeSample sample(double) override { return next; }
  GazeClock clock() const override { return on; }
  std::uint64_t dropped() const override { return drops; }
};

/// A pointer the test moves.
class StubPointer final : public PointerInput {
 public:
  PointerState state;
  PointerState pointer() override { return state; }
};

GazeSample at(double x, double y, double t, bool valid = true) {
  GazeSample s;
  s.x_px = x;
  s.y_px = y;
  s.time_s = t;
  s.valid = valid;
  return s;
}

GazeSettings fallback(double max_age_ms, double hold_ms, GazeFallbackKind then = GazeFallbackKind::centre) {
  GazeSettings g;
  g.max_age_ms = max_age_ms;
  g.fallback.hold_ms = hold_ms;
  g.fallback.then = then;
  return g;
}

const ScreenSettings kScreen;  // 1920 x 1080

}  // namespace

TEST_CASE("Gaze: a valid current sample is used, with its age, and drops are passed on", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  StubSource& source = *owned;
  Gaze gaze(std::move(owned), "pupil", fallback(100, 200), kScreen);
  source.next = at(300, 400, 1.0);
  source.drops = 7;
  const FrameGaze f = gaze.at(1.04);
  CHECK(f.x_px == 300);
  CHECK(f.y_px == 400);
  CHECK(std::string(f.source) == "pupil");
  CHECK(f.valid);
  CHECK(f.age_ms == Approx(40).epsilon(1e-9));
  CHECK(f.dropped == 7);
}

TEST_CASE("Gaze: an invalid sample holds the last valid point for hold_ms, then the centre", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  StubSource& source = *owned;
  Gaze gaze(std::move(owned), "replay", fallback(100, 200), kScreen);
  source.next = at(300, 400, 0.0);
  CHECK(gaze.at(0.0).valid);

  source.next = at(0, 0, 0.05, false);  // a blink
  FrameGaze f = gaze.at(0.05);
  CHECK(std::string(f.source) == "hold");
  CHECK_FALSE(f.valid);
  CHECK(f.x_px == 300);
  CHECK(f.y_px == 400);
  CHECK(f.age_ms == Approx(50).epsilon(1e-9));

  f = gaze.at(0.199);  // just within hold_ms of the held sample
  CHECK(std::string(f.source) == "hold");
  f = gaze.at(0.201);
  CHECK(std::string(f.source) == "centre");
  CHECK(f.x_px == 960);
  CHECK(f.y_px == 540);
  CHECK(std::isnan(f.age_ms));

  // A new valid sample takes over at once.
  source.next = at(10, 20, 0.3);
  f = gaze.at(0.3);
  CHECK(std::string(f.source) == "replay");
  CHECK(f.x_px == 10);
}

TEST_CASE("Gaze: a stalled tracker's newest sample stops counting after max_age_ms", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  StubSource& source = *owned;
  Gaze gaze(std::move(owned), "gazepoint", fallback(100, 200), kScreen);
  source.next = at(500, 600, 10.0);  // the tracker's last message; it never sends another
  CHECK(std::string(gaze.at(10.05).source) == "gazepoint");
  CHECK(std::string(gaze.at(10.099).source) == "gazepoint");
  const FrameGaze stale = gaze.at(10.101);
  CHECK(std::string(stale.source) == "hold");
  CHECK_FALSE(stale.valid);
  CHECK(stale.x_px == 500);
  CHECK(std::string(gaze.at(10.199).source) == "hold");
  CHECK(std::string(gaze.at(10.201).source) == "centre");
}

TEST_CASE("Gaze: a source never valid gives the centre from the first frame", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  owned->next = at(0, 0, 0, false);
  Gaze gaze(std::move(owned), "pupil", fallback(100, 200), kScreen);
  const FrameGaze f = gaze.at(0);
  CHECK(std::string(f.source) == "centre");
  CHECK_FALSE(f.valid);
}

TEST_CASE("Gaze: ages of wall-clock sources are taken on the wall clock, not the run's", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  StubSource& source = *owned;
  source.on = GazeClock::wall;
  Gaze gaze(std::move(owned), "pupil", fallback(5000, 200), kScreen);
  source.next = at(1, 2, gaze_wall_clock_s() - 0.02);  // 20 ms old now
  // The run's clock (1e6 s) would make the sample ancient; the wall clock keeps it current.
  const FrameGaze f = gaze.at(1e6);
  CHECK(f.valid);
  CHECK(f.age_ms >= 20);
  CHECK(f.age_ms < 5000);  // a loaded machine may pause between the two lines above

  // A sample from the future beyond the tolerance (a tracker's clock that jumped) is not current.
  source.next = at(1, 2, gaze_wall_clock_s() + 1.0);
  CHECK_FALSE(gaze.at(1e6).valid);
  source.next = at(1, 2, gaze_wall_clock_s() + 0.001);  // within: estimation error
  CHECK(gaze.at(1e6).valid);
}

TEST_CASE("Gaze: the mouse fallback follows the pointer, and needs a window", "[gaze][mouse]") {
  StubPointer pointer;
  pointer.state = {480, 135, 960, 540, true};  // a half-size window
  auto owned = std::make_unique<StubSource>();
  owned->next = at(0, 0, 0, false);
  Gaze gaze(std::move(owned), "pupil", fallback(100, 0, GazeFallbackKind::mouse), kScreen, GazeEnvironment{&pointer});
  FrameGaze f = gaze.at(0);
  CHECK(std::string(f.source) == "mouse");
  CHECK(f.x_px == 960);
  CHECK(f.y_px == 270);
  pointer.state.in_window = false;  // no pointer either: the centre
  CHECK(std::string(gaze.at(0).source) == "centre");

  try {
    Gaze headless(std::make_unique<StubSource>(), "pupil", fallback(100, 0, GazeFallbackKind::mouse), kScreen);
    FAIL("a mouse fallback without a window was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("gaze.fallback.then") && Catch::Contains("headless"));
  }
}

TEST_CASE("MouseGaze: window pixels map onto the screen's, outside the window gives no sample", "[gaze][mouse]") {
  StubPointer pointer;
  MouseGaze mouse(pointer, kScreen);
  pointer.state = {0, 0, 1920, 1080, true};
  CHECK(mouse.sample(0).valid);
  pointer.state = {600, 300, 800, 450, true};  // a small window: scaled onto the screen
  GazeSample s = mouse.sample(0);
  CHECK(s.x_px == 1440);
  CHECK(s.y_px == 720);
  pointer.state = {1600, 900, 800, 450, true};  // reported beyond the window (a drag): no sample
  CHECK_FALSE(mouse.sample(0).valid);
  pointer.state = {100, 100, 0, 0, true};  // a minimised window
  CHECK_FALSE(mouse.sample(0).valid);
  pointer.state = {100, 100, 1920, 1080, false};
  s = mouse.sample(0);
  CHECK_FALSE(s.valid);
  CHECK(mouse.clock() == GazeClock::wall);
  CHECK(std::abs(s.time_s - gaze_wall_clock_s()) < 1.0);

  GazeSettings settings;
  settings.source = GazeSourceKind::mouse;
  try {
    make_gaze_source(settings, kScreen, 1);
    FAIL("the mouse source without a window was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("gaze.source: mouse") && Catch::Contains("headless"));
  }
  CHECK(make_gaze_source(settings, kScreen, 1, GazeEnvironment{&pointer}) != nullptr);
}

TEST_CASE("Gaze: switching the source live forgets the held point, keeps the fallback", "[gaze]") {
  auto owned = std::make_unique<StubSource>();
  owned->next = at(300, 400, 0.0);
  GazeSettings settings = fallback(100, 1000);
  Gaze gaze(std::move(owned), "pupil", settings, kScreen);
  CHECK(gaze.at(0).valid);

  settings.source = GazeSourceKind::fixed;
  settings.x_px = 100;
  settings.y_px = 50;
  gaze.switch_source(settings, 1);
  FrameGaze f = gaze.at(0.01);
  CHECK(std::string(f.source) == "fixed");
  CHECK(f.x_px == 100);

  // A switch that cannot work leaves the current source in place.
  settings.source = GazeSourceKind::mouse;
  CHECK_THROWS_AS(gaze.switch_source(settings, 1), std::invalid_argument);
  f = gaze.at(0.02);
  CHECK(std::string(f.source) == "fixed");
  CHECK(f.age_ms == 0);
}

TEST_CASE("make_gaze_source: the trackers come from the program, the core has none of its own", "[gaze]") {
  // This test executable links the core only: asking it for a tracker says what is missing.
  GazeSettings settings;
  for (const GazeSourceKind kind : {GazeSourceKind::pupil, GazeSourceKind::gazepoint}) {
    settings.source = kind;
    try {
      make_gaze_source(settings, kScreen, 1);
      FAIL("a tracker was made without the trackers");
    } catch (const std::invalid_argument& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(std::string("gaze.source: ") + gaze_source_name(kind) +
                                             " needs fovea's eye-tracker support"));
    }
  }
  // A program's own factory is used as given.
  const TrackerFactory stub = [](const GazeSettings&, const ScreenSettings&) -> std::unique_ptr<GazeSource> {
    return std::make_unique<StubSource>();
  };
  CHECK(make_gaze_source(settings, kScreen, 1, GazeEnvironment{nullptr, stub}) != nullptr);
}

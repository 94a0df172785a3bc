// A tracker driving the frame loop end to end: the Animation's frames follow a (fake)
// Gazepoint server, hold through its loss, fall back to the centre, and record the drop.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "trackers/fake_gazepoint.hpp"
#include "trackers/trackers.hpp"
#include "frame/animation.hpp"

using namespace fovea;

namespace {

/// Steps the world until `done(stats)` or `timeout_s` of wall time; the last frame's stats.
template <class Done>
FrameStats step_until(Animation& world, Done done, double timeout_s, std::vector<std::string>* origins = nullptr) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  FrameStats stats = world.step();
  while (!done(stats) && std::chrono::steady_clock::now() < end) {
    if (origins) origins->push_back(stats.gaze.source);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a frame every few ms, as a paced run
    stats = world.step();
  }
  return stats;
}

}  // namespace

TEST_CASE("a run on a Gazepoint tracker follows it, holds through its loss, falls back, counts the drop",
          "[gaze][gazepoint][world]") {
  test::FakeGazepoint tracker;
  AnimationSettings settings;
  EntityGroupSettings balls;
  balls.count = 20;
  settings.world.entities = {balls};
  settings.gaze.source = GazeSourceKind::gazepoint;
  settings.gaze.port = tracker.port();
  settings.gaze.max_age_ms = 100;
  settings.gaze.fallback.hold_ms = 500;  // a 400 ms window to see a held frame in, even on a loaded machine
  Animation world(settings, 1, with_trackers({}));

  // Until the tracker has said anything, the frames use the centre.
  FrameStats f = world.step();
  CHECK(std::string(f.gaze.source) == "centre");
  CHECK(f.gaze.x_px == 960);

  REQUIRE(tracker.accept_client(2.0));
  REQUIRE(tracker.wait_for_commands(2, 2.0));
  REQUIRE(tracker.send("<REC FPOGX=\"0.25\" FPOGY=\"0.75\" FPOGV=\"1\" />\r\n"));
  f = step_until(world, [](const FrameStats& s) { return std::string(s.gaze.source) == "gazepoint"; }, 2.0);
  REQUIRE(std::string(f.gaze.source) == "gazepoint");
  CHECK(f.gaze.valid);
  CHECK(f.gaze.x_px == 480);
  CHECK(f.gaze.y_px == 810);
  CHECK(f.gaze.age_ms >= 0);
  CHECK(f.gaze.age_ms <= 100);
  CHECK(f.gaze.dropped == 0);

  // The tracker goes away: the point is held, then the centre; the loss is counted.
  tracker.close_client();
  std::vector<std::string> origins;
  f = step_until(
      world, [](const FrameStats& s) { return std::string(s.gaze.source) == "centre" && s.gaze.dropped >= 1; }, 3.0,
      &origins);
  CHECK(std::string(f.gaze.source) == "centre");
  CHECK(f.gaze.dropped >= 1);
  CHECK(std::find(origins.begin(), origins.end(), "hold") != origins.end());

  std::vector<std::string> messages;
  world.gaze().take_messages(messages);
  REQUIRE(messages.size() >= 2);
  CHECK_THAT(messages[0], Catch::Contains("connected"));
  CHECK_THAT(messages[1], Catch::Contains("lost"));
}

// Pupil Capture driving the frame loop end to end: the Animation's frames follow a fake
// Pupil Capture's surface gaze, hold through its loss, fall back to the centre, and record
// the lost connection.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "trackers/fake_pupil_capture.hpp"
#include "trackers/trackers.hpp"
#include "frame/animation.hpp"

using namespace fovea;

TEST_CASE("a run on Pupil Capture follows its surface gaze, holds through its loss, falls back, counts the drop",
          "[gaze][pupil][world]") {
  std::optional<test::FakePupilCapture> pupil(std::in_place);
  AnimationSettings settings;
  EntityGroupSettings balls;
  balls.count = 20;
  settings.world.entities = {balls};
  settings.gaze.source = GazeSourceKind::pupil;
  settings.gaze.port = pupil->remote_port();
  settings.gaze.surface = "screen";
  settings.gaze.max_age_ms = 100;
  settings.gaze.fallback.hold_ms = 500;  // a 400 ms window to see a held frame in, even on a loaded machine
  Animation world(settings, 1, with_trackers({}));

  // Until the tracker is connected and publishing, the frames use the centre.
  FrameStats f = world.step();
  CHECK(std::string(f.gaze.source) == "centre");

  // Publish every few milliseconds, as Pupil Capture does, until the frames follow: the
  // first messages go nowhere while the subscription is being made.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::string(f.gaze.source) != "pupil" && std::chrono::steady_clock::now() < deadline) {
    pupil->publish_surface("screen", {{0.25, 0.75, 0.95, true, pupil->now_s()}});
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    f = world.step();
  }
  REQUIRE(std::string(f.gaze.source) == "pupil");
  CHECK(f.gaze.valid);
  CHECK(f.gaze.x_px == 480);  // norm_pos (0.25, 0.75), origin bottom-left, y up
  CHECK(f.gaze.y_px == 270);
  CHECK(f.gaze.age_ms > -20);  // the clock offset is estimated to a few milliseconds
  CHECK(f.gaze.age_ms <= 100);
  CHECK(f.gaze.dropped == 0);

  // Pupil Capture quits: hold, then the centre; the lost connection is counted.
  pupil.reset();
  std::vector<std::string> origins;
  const auto lost_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!(std::string(f.gaze.source) == "centre" && f.gaze.dropped >= 1) &&
         std::chrono::steady_clock::now() < lost_deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    f = world.step();
    origins.push_back(f.gaze.source);
  }
  CHECK(std::string(f.gaze.source) == "centre");
  CHECK(f.gaze.dropped >= 1);
  CHECK(std::find(origins.begin(), origins.end(), "hold") != origins.end());

  std::vector<std::string> messages;
  world.gaze().take_messages(messages);
  REQUIRE_FALSE(messages.empty());
  CHECK_THAT(messages[0], Catch::Contains("connected"));
}

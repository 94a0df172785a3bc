#include <catch2/catch.hpp>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <msgpack.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fake_pupil_capture.hpp"
#include "gaze/gaze_source.hpp"
#include "trackers/pupil_gaze.hpp"

using namespace fovea;
using fovea::test::FakePupilCapture;
using fovea::test::FakeSurfaceGaze;

namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

/// Intervals short enough that every fault shows within a fraction of a second.
PupilTimings fast_timings() {
  PupilTimings t;
  t.request_timeout_s = 0.2;
  t.backoff_first_s = 0.02;
  t.backoff_max_s = 0.1;
  t.stall_timeout_s = 0.3;
  t.clock_sync_period_s = 10.0;  // no re-sync inside a test unless it asks for one
  t.clock_samples = 5;
  return t;
}

GazeSettings pupil_settings(int port, PupilTopic topic = PupilTopic::surface) {
  GazeSettings g;
  g.source = GazeSourceKind::pupil;
  g.host = "127.0.0.1";
  g.port = port;
  g.surface = "screen";
  g.topic = topic;
  g.min_confidence = 0.6;
  return g;
}

ScreenSettings full_hd() { return {.width_px = 1920, .height_px = 1080}; }

double elapsed_s(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

/// Polls `condition` every 2 ms until it holds (true) or `timeout_s` passes (false).
bool wait_until(const std::function<bool()>& condition, double timeout_s = 3.0) {
  const auto start = std::chrono::steady_clock::now();
  while (!condition()) {
    if (elapsed_s(start) > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

/// The newest sample is the one stamped `pupil_time_s` on the fake's clock.
bool newest_is(PupilGaze& pupil, double pupil_time_s) {
  const GazeSample s = pupil.sample(0.0);
  return std::abs(s.time_s + pupil.clock_offset_s() - pupil_time_s) < 1e-6;
}

/// Calls `publish` every 20 ms until the newest sample is stamped `pupil_time_s`. A PUB
/// drops messages for a subscriber whose subscription it has not yet seen, so the first
/// message after a (re)connection must be repeated; once one arrives, all later ones do.
bool publish_until_received(PupilGaze& pupil, double pupil_time_s, const std::function<void()>& publish,
                            double timeout_s = 3.0) {
  const auto start = std::chrono::steady_clock::now();
  while (elapsed_s(start) < timeout_s) {
    publish();
    if (wait_until([&] { return newest_is(pupil, pupil_time_s); }, 0.02)) return true;
  }
  return false;
}

/// A valid surface message with one on-surface entry stamped now, repeated until it arrives.
/// Returns its time stamp (fake's clock).
double send_good_surface_message(FakePupilCapture& fake, PupilGaze& pupil, double x = 0.5, double y = 0.5) {
  const double t = fake.now_s();
  REQUIRE(publish_until_received(pupil, t, [&] { fake.publish_surface("screen", {{x, y, 0.95, true, t}}); }));
  return t;
}

/// A connected source whose subscription has been seen to deliver, with its queue and
/// messages emptied.
void connect_and_flow(FakePupilCapture& fake, PupilGaze& pupil) {
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  send_good_surface_message(fake, pupil);
  std::vector<GazeSample> ignored;
  pupil.take_recent(ignored);
  std::vector<std::string> messages;
  pupil.take_messages(messages);
}

/// A source connected to a fake Pupil Capture, with a first surface message received and
/// taken (connect_and_flow): the fixture of most tests below (TEST_CASE_METHOD).
struct Flowing {
  FakePupilCapture fake;
  PupilGaze pupil{pupil_settings(fake.remote_port()), full_hd(), fast_timings()};

  Flowing() { connect_and_flow(fake, pupil); }
};

std::vector<GazeSample> wait_for_samples(PupilGaze& pupil, std::size_t count) {
  std::vector<GazeSample> samples;
  wait_until([&] {
    pupil.take_recent(samples);
    return samples.size() >= count;
  });
  return samples;
}

std::vector<std::string> messages_of(PupilGaze& pupil) {
  std::vector<std::string> messages;
  pupil.take_messages(messages);
  return messages;
}

std::string pack(const std::function<void(Packer&)>& write) {
  msgpack::sbuffer buffer;
  Packer packer(buffer);
  write(packer);
  return std::string(buffer.data(), buffer.size());
}

/// A surface payload with one valid entry (at norm_pos (0.1, 0.1), where no good message of
/// these tests lies, and 1000 s on Pupil's clock), except for the field `odd_key`, which
/// `write_odd` writes instead, or which is left out when `write_odd` is null.
std::string surface_payload(const std::string& odd_key = "", const std::function<void(Packer&)>& write_odd = nullptr) {
  const std::vector<std::string> keys = {"norm_pos", "confidence", "on_surf", "timestamp"};
  const bool left_out = !write_odd && std::find(keys.begin(), keys.end(), odd_key) != keys.end();
  return pack([&](Packer& p) {
    p.pack_map(1);
    p.pack("gaze_on_surfaces");
    p.pack_array(1);
    p.pack_map(left_out ? 3 : 4);
    for (const std::string& key : keys) {
      if (key == odd_key && left_out) continue;
      p.pack(key);
      if (key == odd_key) {
        write_odd(p);
      } else if (key == "norm_pos") {
        p.pack_array(2);
        p.pack(0.1);
        p.pack(0.1);
      } else if (key == "confidence") {
        p.pack(0.9);
      } else if (key == "on_surf") {
        p.pack(true);
      } else {
        p.pack(1000.0);
      }
    }
  });
}

/// A surface payload whose one on-surface entry lies at (x, y).
std::string norm_pos_payload(double x, double y) {
  return surface_payload("norm_pos", [=](Packer& p) {
    p.pack_array(2);
    p.pack(x);
    p.pack(y);
  });
}

}  // namespace

TEST_CASE_METHOD(Flowing, "pupil: norm_pos maps to screen pixels, y flipped from Pupil's bottom-left origin",
                 "[pupil]") {

  const double t = fake.now_s();
  fake.publish_surface("screen", {{0.25, 0.75, 0.9, true, t},
                                  {0.0, 0.0, 0.8, true, t + 0.004},
                                  {1.0, 1.0, 0.7, true, t + 0.008},
                                  {0.5, 0.5, 1.0, true, t + 0.012}});
  const std::vector<GazeSample> s = wait_for_samples(pupil, 4);
  REQUIRE(s.size() == 4);
  CHECK(s[0].x_px == 480.0);
  CHECK(s[0].y_px == 270.0);
  CHECK(s[0].confidence == 0.9);
  CHECK(s[1].x_px == 0.0);
  CHECK(s[1].y_px == 1080.0);
  CHECK(s[2].x_px == 1920.0);
  CHECK(s[2].y_px == 0.0);
  CHECK(s[3].x_px == 960.0);
  CHECK(s[3].y_px == 540.0);
  for (const GazeSample& g : s) CHECK(g.valid);
  CHECK(pupil.clock() == GazeClock::wall);
  CHECK(pupil.dropped() == 0);
}

TEST_CASE_METHOD(Flowing, "pupil: entries off the surface or below min_confidence never appear", "[pupil]") {

  const double t = fake.now_s();
  fake.publish_surface("screen", {{0.1, 0.1, 0.9, true, t},
                                  {0.2, 0.2, 0.59, true, t + 0.001},   // below 0.6
                                  {1.3, -0.2, 0.99, false, t + 0.002}, // off the surface
                                  {0.3, 0.3, 0.6, true, t + 0.003}});  // exactly the minimum
  // The next message is all filtered out: the tracker has no fixation on the screen now.
  fake.publish_surface("screen", {{0.4, 0.4, 0.2, true, t + 0.004}, {0.5, 0.5, 0.9, false, t + 0.006}});
  const std::vector<GazeSample> s = wait_for_samples(pupil, 3);
  REQUIRE(s.size() == 3);
  CHECK(s[0].valid);
  CHECK(s[0].x_px == Approx(192.0));
  CHECK(s[1].valid);
  CHECK(s[1].x_px == Approx(576.0));
  CHECK(s[1].confidence == 0.6);
  CHECK_FALSE(s[2].valid);
  CHECK(s[2].time_s + pupil.clock_offset_s() == Approx(t + 0.006).margin(1e-6));
  CHECK_FALSE(pupil.sample(0.0).valid);
  CHECK(pupil.dropped() == 0);
}

TEST_CASE("pupil: the clock offset is estimated and sample times are on fovea's clock", "[pupil]") {
  FakePupilCapture fake(0, 1234.5);
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  CHECK(std::isnan(pupil.clock_offset_s()));
  connect_and_flow(fake, pupil);
  CHECK(pupil.clock_offset_s() == Approx(1234.5).margin(0.005));
  CHECK(fake.requests("t") >= 5);

  const double t = send_good_surface_message(fake, pupil);
  const GazeSample g = pupil.sample(123.0);  // now_s is ignored by a live source
  CHECK(g.time_s == Approx(t - pupil.clock_offset_s()).margin(1e-9));
  // Stamped now: its age on the wall clock is small.
  CHECK(gaze_wall_clock_s() - g.time_s == Approx(0.0).margin(0.5));

}

TEST_CASE("pupil: the clock offset is re-estimated every sync period", "[pupil]") {
  FakePupilCapture fake(0, -50.25);
  PupilTimings timings = fast_timings();
  timings.clock_sync_period_s = 0.05;
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), timings);
  connect_and_flow(fake, pupil);
  CHECK(pupil.clock_offset_s() == Approx(-50.25).margin(0.005));
  // Another client moves Pupil's clock (Pupil Remote's T): the next periodic sync finds it.
  fake.set_clock_offset(17.0);
  REQUIRE(wait_until([&] { return std::abs(pupil.clock_offset_s() - 17.0) < 0.005; }));
  send_good_surface_message(fake, pupil);
}

TEST_CASE("pupil: a jump of Pupil's clock is noticed from the samples and measured at once", "[pupil]") {
  FakePupilCapture fake(0, 100.0);
  PupilTimings timings = fast_timings();
  timings.clock_sync_period_s = 1000;  // no periodic sync during the test
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), timings);
  connect_and_flow(fake, pupil);
  REQUIRE(pupil.clock_offset_s() == Approx(100.0).margin(0.005));
  for (const double jump_s : {105.0, 90.0}) {  // forward: samples from the future; back: ancient
    fake.set_clock_offset(jump_s);
    REQUIRE(wait_until([&] {
      fake.publish_surface("screen", {{0.5, 0.5, 0.9, true, fake.now_s()}});
      return std::abs(pupil.clock_offset_s() - jump_s) < 0.005;
    }));
    // Samples stamped after the new measurement are current again.
    const double t = send_good_surface_message(fake, pupil);
    CHECK(gaze_wall_clock_s() - pupil.sample(0).time_s == Approx(0.0).margin(0.5));
    CHECK(pupil.sample(0).time_s == Approx(t - jump_s).margin(0.01));
  }
}

TEST_CASE("pupil: the connection is announced once with its SUB port and clock offset", "[pupil]") {
  FakePupilCapture fake;
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  const auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("pupil: connected to Pupil Remote at tcp://127.0.0.1:" + std::to_string(fake.remote_port())) == 0);
  CHECK(messages[0].find("SUB port " + std::to_string(fake.pub_port())) != std::string::npos);
  const std::size_t offset_at = messages[0].find("clock offset ");
  REQUIRE(offset_at != std::string::npos);
  CHECK(std::stod(messages[0].substr(offset_at + 13)) == Approx(1234.5).margin(0.005));
}

TEST_CASE("pupil: the gaze. topic maps gaze in the world image to the screen", "[pupil]") {
  FakePupilCapture fake;
  PupilGaze pupil(pupil_settings(fake.remote_port(), PupilTopic::gaze), full_hd(), fast_timings());
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  const double t = fake.now_s();
  REQUIRE(publish_until_received(pupil, t, [&] { fake.publish_gaze(0.25, 0.75, 0.9, t); }));
  const GazeSample g = pupil.sample(0.0);
  CHECK(g.valid);
  CHECK(g.x_px == 480.0);
  CHECK(g.y_px == 270.0);
  CHECK(g.confidence == 0.9);

  // Low confidence, then gaze beside the image: no fixation on the screen, not malformed.
  std::vector<GazeSample> ignored;
  pupil.take_recent(ignored);
  fake.publish_gaze(0.5, 0.5, 0.3, t + 0.01);
  fake.publish_gaze(1.2, 0.5, 0.9, t + 0.02);
  fake.publish_gaze(0.75, 0.25, 0.8, t + 0.03);
  const std::vector<GazeSample> s = wait_for_samples(pupil, 3);
  REQUIRE(s.size() == 3);
  CHECK_FALSE(s[0].valid);
  CHECK_FALSE(s[1].valid);
  CHECK(s[2].valid);
  CHECK(s[2].x_px == 1440.0);
  CHECK(s[2].y_px == 810.0);
  CHECK(pupil.dropped() == 0);
}

TEST_CASE_METHOD(Flowing, "pupil: another surface's messages are ignored, not counted", "[pupil]") {
  const double t = fake.now_s();
  // "surfaces.screen" is a prefix of "surfaces.screen_left": the subscription lets it in.
  fake.publish_surface("screen_left", {{0.1, 0.1, 1.0, true, t}});
  const double good = send_good_surface_message(fake, pupil, 0.9, 0.9);
  std::vector<GazeSample> s;
  pupil.take_recent(s);
  for (const GazeSample& g : s) CHECK(g.x_px == Approx(1728.0));
  CHECK(newest_is(pupil, good));
  CHECK(pupil.dropped() == 0);
}

TEST_CASE("pupil: a tracker absent at start costs one message, then connects when it appears", "[pupil]") {
  int port = 0;
  {
    FakePupilCapture probe;  // a port nothing listens on once it is gone
    port = probe.remote_port();
  }
  PupilTimings timings = fast_timings();
  timings.request_timeout_s = 0.5;
  const auto start = std::chrono::steady_clock::now();
  PupilGaze pupil(pupil_settings(port), full_hd(), timings);
  CHECK(elapsed_s(start) < 0.25);  // well under the request timeout: nothing waited on the network
  CHECK_FALSE(pupil.connected());
  CHECK_FALSE(pupil.sample(0.0).valid);

  std::vector<std::string> messages;
  REQUIRE(wait_until([&] {
    pupil.take_messages(messages);
    return !messages.empty();
  }));
  CHECK(messages[0] == "pupil: no answer from Pupil Remote at tcp://127.0.0.1:" + std::to_string(port) +
                           " within 500 ms; using the fallback and retrying");
  // A retry later (each attempt waits 500 ms, then 20 ms, 40 ms ... of backoff), still one message.
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  pupil.take_messages(messages);
  CHECK(messages.size() == 1);

  FakePupilCapture fake(port);
  connect_and_flow(fake, pupil);
  CHECK(pupil.dropped() == 0);
}

TEST_CASE("pupil: a tracker that quits is lost once, then found again on a new PUB port", "[pupil]") {
  auto fake = std::make_unique<FakePupilCapture>();
  const int remote_port = fake->remote_port();
  const int old_pub_port = fake->pub_port();
  const PupilTimings timings = fast_timings();
  PupilGaze pupil(pupil_settings(remote_port), full_hd(), timings);
  connect_and_flow(*fake, pupil);
  const GazeSample last = pupil.sample(0.0);
  REQUIRE(last.valid);

  const auto quit = std::chrono::steady_clock::now();
  fake->stop();
  REQUIRE(wait_until([&] { return !pupil.connected(); }));
  // Lost after the stall timeout and one unanswered probe, not before.
  CHECK(elapsed_s(quit) >= timings.stall_timeout_s);
  CHECK(elapsed_s(quit) < timings.stall_timeout_s + timings.request_timeout_s + 0.5);
  CHECK(pupil.sample(0.0).time_s == last.time_s);  // nothing newer: the frame falls back on age
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a few quiet retries
  auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("pupil: lost Pupil Remote at tcp://127.0.0.1:" + std::to_string(remote_port)) == 0);
  // One lost connection, one dropped input: the SUB's DISCONNECTED counted it, the probe
  // that then went unanswered does not count it again.
  CHECK(pupil.dropped() == 1);

  fake = std::make_unique<FakePupilCapture>(remote_port, FakePupilCapture::kDefaultClockOffset_s, old_pub_port);
  CHECK(fake->pub_port() != old_pub_port);
  connect_and_flow(*fake, pupil);
  const double t = send_good_surface_message(*fake, pupil, 0.25, 0.75);
  CHECK(newest_is(pupil, t));
  CHECK(pupil.sample(0.0).x_px == 480.0);
}

TEST_CASE("pupil: a tracker restarted within the stall timeout is found on its new PUB port", "[pupil]") {
  auto fake = std::make_unique<FakePupilCapture>();
  const int remote_port = fake->remote_port();
  const int old_pub_port = fake->pub_port();
  PupilGaze pupil(pupil_settings(remote_port), full_hd(), fast_timings());
  connect_and_flow(*fake, pupil);

  // Gone and back before the SUB's silence is probed: Pupil Remote answers the probe, but
  // the SUB is reconnecting to a port nobody publishes on.
  fake.reset();
  fake = std::make_unique<FakePupilCapture>(remote_port, FakePupilCapture::kDefaultClockOffset_s, old_pub_port);
  std::vector<std::string> messages;
  REQUIRE(wait_until([&] {
    pupil.take_messages(messages);
    return messages.size() >= 2;
  }));
  CHECK(messages[0].find("publishes on another SUB port than " + std::to_string(old_pub_port)) != std::string::npos);
  CHECK(messages[1].find("SUB port " + std::to_string(fake->pub_port())) != std::string::npos);
  send_good_surface_message(*fake, pupil);
}

TEST_CASE_METHOD(Flowing, "pupil: a tracker that hangs is lost by the probe and found when it answers again",
                 "[pupil]") {
  fake.set_answering(false);
  REQUIRE(wait_until([&] { return !pupil.connected(); }));
  const auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0].find("pupil: lost Pupil Remote") == 0);
  // The lost connection is a dropped input (docs/gaze.md), though no socket was closed: a
  // hung Capture keeps its TCP connections open. Before (issue 42): 0.
  CHECK(pupil.dropped() == 1);

  fake.set_answering(true);
  connect_and_flow(fake, pupil);
  CHECK(pupil.connected());
  CHECK(pupil.dropped() == 1);  // the quiet retries are not losses of their own
}

TEST_CASE("pupil: a silent SUB with an answering Pupil Remote stays connected", "[pupil]") {
  FakePupilCapture fake;
  const PupilTimings timings = fast_timings();
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), timings);
  connect_and_flow(fake, pupil);
  const int before = fake.requests("SUB_PORT");
  // The surface out of the camera's view: Pupil publishes nothing for a while.
  REQUIRE(wait_until([&] { return fake.requests("SUB_PORT") >= before + 2; }, 3 * timings.stall_timeout_s + 1.0));
  CHECK(pupil.connected());
  CHECK(messages_of(pupil).empty());
  send_good_surface_message(fake, pupil);
}

TEST_CASE_METHOD(Flowing, "pupil: every malformed payload is dropped whole and the source goes on", "[pupil]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  struct Case {
    const char* name;
    std::string payload;
  };
  std::vector<FakeSurfaceGaze> too_many(PupilGaze::kMaxEntries + 1, FakeSurfaceGaze{0.1, 0.1, 0.9, true, 1000.0});
  const std::vector<Case> cases = {
      {"invalid msgpack (a reserved byte)", std::string("\xc1\xc1\xc1", 3)},
      {"truncated msgpack", std::string("\x81\xb0") + "gaze_on_surf"},
      {"empty payload", std::string()},
      {"payload not a map", pack([](Packer& p) {
         p.pack_array(3);
         p.pack(1);
         p.pack(2);
         p.pack(3);
       })},
      {"gaze_on_surfaces not an array", pack([](Packer& p) {
         p.pack_map(1);
         p.pack("gaze_on_surfaces");
         p.pack("many");
       })},
      {"gaze_on_surfaces missing", pack([](Packer& p) {
         p.pack_map(1);
         p.pack("timestamp");
         p.pack(1000.0);
       })},
      {"entry not a map", pack([](Packer& p) {
         p.pack_map(1);
         p.pack("gaze_on_surfaces");
         p.pack_array(1);
         p.pack(0.5);
       })},
      {"confidence a string", surface_payload("confidence", [](Packer& p) { p.pack("high"); })},
      {"on_surf an integer", surface_payload("on_surf", [](Packer& p) { p.pack(1); })},
      {"norm_pos a map", surface_payload("norm_pos", [](Packer& p) {
         p.pack_map(1);
         p.pack("x");
         p.pack(0.5);
       })},
      {"norm_pos of three numbers", surface_payload("norm_pos", [](Packer& p) {
         p.pack_array(3);
         p.pack(0.5);
         p.pack(0.5);
         p.pack(0.5);
       })},
      {"norm_pos of strings", surface_payload("norm_pos", [](Packer& p) {
         p.pack_array(2);
         p.pack("0.5");
         p.pack("0.5");
       })},
      {"timestamp a boolean", surface_payload("timestamp", [](Packer& p) { p.pack(true); })},
      {"norm_pos missing", surface_payload("norm_pos", nullptr)},
      {"confidence missing", surface_payload("confidence", nullptr)},
      {"on_surf missing", surface_payload("on_surf", nullptr)},
      {"timestamp missing", surface_payload("timestamp", nullptr)},
      {"NaN x", norm_pos_payload(nan, 0.5)},
      {"NaN y", norm_pos_payload(0.5, nan)},
      {"infinite x", norm_pos_payload(inf, 0.5)},
      {"minus infinite y", norm_pos_payload(0.5, -inf)},
      {"NaN confidence", surface_payload("confidence", [=](Packer& p) { p.pack(nan); })},
      {"infinite timestamp", surface_payload("timestamp", [=](Packer& p) { p.pack(inf); })},
      {"confidence 1.7", surface_payload("confidence", [](Packer& p) { p.pack(1.7); })},
      {"confidence -0.1", surface_payload("confidence", [](Packer& p) { p.pack(-0.1); })},
      {"on_surf entry at norm_pos x 1.5", norm_pos_payload(1.5, 0.5)},
      {"on_surf entry at norm_pos y -0.5", norm_pos_payload(0.5, -0.5)},
      {"an array declaring 4 billion elements in 5 bytes", std::string("\xdd\xff\xff\xff\xff", 5)},
      {"a map declaring 4 billion pairs in 5 bytes", std::string("\xdf\xff\xff\xff\xff", 5)},
      {"gaze_on_surfaces declaring 4 billion entries", pack([](Packer& p) {
                                                           p.pack_map(1);
                                                           p.pack("gaze_on_surfaces");
                                                         }) + std::string("\xdd\xff\xff\xff\xff", 5)},
      {"an array of 2000 elements, over the parser's bound, beside a good entry", pack([](Packer& p) {
         p.pack_map(2);
         p.pack("fixations_on_surfaces");
         p.pack_array(2000);
         for (int i = 0; i < 2000; ++i) p.pack_nil();
         p.pack("gaze_on_surfaces");
         p.pack_array(1);
         p.pack_map(4);
         p.pack("norm_pos");
         p.pack_array(2);
         p.pack(0.1);
         p.pack(0.1);
         p.pack("confidence");
         p.pack(0.9);
         p.pack("on_surf");
         p.pack(true);
         p.pack("timestamp");
         p.pack(1000.0);
       })},
      {"a string declaring 4 GB", std::string("\xdb\xff\xff\xff\xff", 5)},
      {"arrays nested 1000 deep", std::string(1000, '\x91') + std::string("\xc0", 1)},
      {"more entries than kMaxEntries", [&] {
         return pack([&](Packer& p) {
           p.pack_map(1);
           p.pack("gaze_on_surfaces");
           p.pack_array(static_cast<std::uint32_t>(too_many.size()));
           for (const FakeSurfaceGaze& e : too_many) {
             p.pack_map(4);
             p.pack("norm_pos");
             p.pack_array(2);
             p.pack(e.x_norm);
             p.pack(e.y_norm);
             p.pack("confidence");
             p.pack(e.confidence);
             p.pack("on_surf");
             p.pack(e.on_surf);
             p.pack("timestamp");
             p.pack(e.timestamp_s);
           }
         });
       }()},
      {"bytes after the map", surface_payload() + std::string("\x01", 1)},
  };

  for (const Case& c : cases) {
    INFO(c.name);
    const std::uint64_t before = pupil.dropped();
    fake.publish_frames({"surfaces.screen", c.payload});
    REQUIRE(wait_until([&] { return pupil.dropped() > before; }));
    // The good message published after it still arrives: the source went on.
    send_good_surface_message(fake, pupil);
    CHECK(pupil.dropped() == before + 1);  // the whole message, once
  }
  // Only the good messages' samples came through (all at x 960): nothing of a malformed
  // message, whose entries lie at x 192.
  std::vector<GazeSample> s;
  pupil.take_recent(s);
  for (const GazeSample& g : s) {
    CHECK(g.valid);
    CHECK(g.x_px == 960.0);
  }
  CHECK(pupil.connected());
}

TEST_CASE_METHOD(Flowing, "pupil: a 10 MB message costs one lost connection and the source goes on", "[pupil]") {
  const std::uint64_t before = pupil.dropped();
  fake.publish_frames({"surfaces.screen", std::string(10u << 20, '\x90')});
  REQUIRE(wait_until([&] { return pupil.dropped() > before; }));
  send_good_surface_message(fake, pupil, 0.25, 0.75);
  CHECK(pupil.dropped() == before + 1);
  CHECK(pupil.sample(0.0).x_px == 480.0);
  CHECK(pupil.connected());
}

TEST_CASE_METHOD(Flowing, "pupil: binary topics and single-frame messages are dropped, extra frames ignored",
                 "[pupil]") {
  const std::string good_payload = surface_payload();

  SECTION("garbage after the subscribed prefix (the only garbage a subscription lets in)") {
    const std::uint64_t before = pupil.dropped();
    fake.publish_frames({std::string("surfaces.screen\x00\xff\x01\x02", 19), good_payload});
    REQUIRE(wait_until([&] { return pupil.dropped() > before; }));
    send_good_surface_message(fake, pupil);
    CHECK(pupil.dropped() == before + 1);
  }
  SECTION("a topic longer than any Pupil sends") {
    const std::uint64_t before = pupil.dropped();
    fake.publish_frames({"surfaces.screen" + std::string(1000, 'x'), good_payload});
    REQUIRE(wait_until([&] { return pupil.dropped() > before; }));
    send_good_surface_message(fake, pupil);
    CHECK(pupil.dropped() == before + 1);
  }
  SECTION("a single frame") {
    const std::uint64_t before = pupil.dropped();
    fake.publish_frames({"surfaces.screen"});
    REQUIRE(wait_until([&] { return pupil.dropped() > before; }));
    send_good_surface_message(fake, pupil);
    CHECK(pupil.dropped() == before + 1);
  }
  SECTION("frames after the payload are read and ignored") {
    const double t = fake.now_s();
    const std::string payload = pack([&](Packer& p) {
      p.pack_map(1);
      p.pack("gaze_on_surfaces");
      p.pack_array(1);
      p.pack_map(4);
      p.pack("norm_pos");
      p.pack_array(2);
      p.pack(0.25);
      p.pack(0.75);
      p.pack("confidence");
      p.pack(0.9);
      p.pack("on_surf");
      p.pack(true);
      p.pack("timestamp");
      p.pack(t);
    });
    REQUIRE(publish_until_received(pupil, t, [&] {
      fake.publish_frames({"surfaces.screen", payload, std::string(1000, 'i'), std::string(10, 'j')});
    }));
    CHECK(pupil.sample(0.0).x_px == 480.0);
    CHECK(pupil.dropped() == 0);
  }
}

TEST_CASE("pupil: a bad SUB_PORT answer is dropped and the connection retried", "[pupil]") {
  FakePupilCapture fake;
  fake.answer_next("SUB_PORT", "not a port");
  fake.answer_next("SUB_PORT", "70000");
  fake.answer_next("SUB_PORT", "0");
  fake.answer_next("SUB_PORT", std::string("50021\x00", 6));
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  CHECK(pupil.dropped() == 4);
  CHECK(fake.requests("SUB_PORT") == 5);
  const auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 2);  // the first bad answer, then the connection
  CHECK(messages[0].find("answered SUB_PORT with \"not a port\", not a port number") != std::string::npos);
  CHECK(messages[1].find("pupil: connected") == 0);
  send_good_surface_message(fake, pupil);
}

TEST_CASE("pupil: an over-long or a two-part SUB_PORT reply is said as such, quoted in part", "[pupil]") {
  // Before (issue 42): a 5 KB reply was "no answer" (ZeroMQ closed the connection at 4 KiB),
  // and of a two-part reply only the first part was quoted, as if it were the reply.
  FakePupilCapture fake;
  const std::string prefix = "pupil: Pupil Remote at tcp://127.0.0.1:" + std::to_string(fake.remote_port()) +
                             " answered SUB_PORT with ";
  const std::string suffix = ", not a port number; using the fallback and retrying";
  std::string expected;
  SECTION("5 KB") {
    fake.answer_next("SUB_PORT", std::string(5000, '5'));
    expected = "an over-long reply (more than 4096 bytes), \"" + std::string(60, '5') + "... (5000 bytes)\"";
  }
  SECTION("one byte past the limit") {
    fake.answer_next("SUB_PORT", std::string(PupilGaze::kMaxReplyBytes + 1, '5'));
    expected = "an over-long reply (more than 4096 bytes), \"" + std::string(60, '5') + "... (4097 bytes)\"";
  }
  SECTION("at the limit: a reply, though not a port") {
    fake.answer_next("SUB_PORT", std::string(PupilGaze::kMaxReplyBytes, '5'));
    expected = "\"" + std::string(60, '5') + "... (4096 bytes)\"";
  }
  SECTION("two parts") {
    fake.answer_next_parts("SUB_PORT", {"50021", "more\n"});
    expected = "a reply of 2 parts, \"50021\", \"more\\n\"";
  }
  SECTION("five parts") {
    fake.answer_next_parts("SUB_PORT", {"a", "b", "c", "d", "e"});
    expected = "a reply of 5 parts, \"a\", \"b\", \"c\", ...";
  }
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  CHECK(pupil.dropped() == 1);
  const auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 2);  // the odd reply, then the connection
  CHECK(messages[0] == prefix + expected + suffix);
  CHECK(messages[1].find("pupil: connected") == 0);
  send_good_surface_message(fake, pupil);
}

TEST_CASE("pupil: a SUB_PORT reply ZeroMQ refuses (over 1 MiB) is no answer, and the source goes on", "[pupil]") {
  FakePupilCapture fake;
  fake.answer_next("SUB_PORT", std::string(PupilGaze::kMaxMessageBytes + 1, '5'));
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  REQUIRE(wait_until([&] { return pupil.connected(); }));
  const auto messages = messages_of(pupil);
  REQUIRE(messages.size() == 2);
  CHECK(messages[0].find("pupil: no answer from Pupil Remote") == 0);
  send_good_surface_message(fake, pupil);
}

TEST_CASE("pupil: a t answer that is not a finite time is dropped and the offset still estimated", "[pupil]") {
  FakePupilCapture fake;
  fake.answer_next("t", "nan");
  fake.answer_next("t", "inf");
  fake.answer_next("t", "12:00");
  fake.answer_next("t", std::string(5000, '1'));  // over-long (before: the connection closed, no usable time)
  PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
  connect_and_flow(fake, pupil);
  CHECK(pupil.dropped() == 4);
  CHECK(pupil.clock_offset_s() == Approx(FakePupilCapture::kDefaultClockOffset_s).margin(0.005));
}

TEST_CASE("pupil: destruction is prompt while connected, retrying, or waiting for an answer", "[pupil]") {
  const auto destroy_s = [](std::unique_ptr<PupilGaze>& pupil) {
    const auto start = std::chrono::steady_clock::now();
    pupil.reset();
    return elapsed_s(start);
  };
  SECTION("connected") {
    FakePupilCapture fake;
    auto pupil = std::make_unique<PupilGaze>(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
    connect_and_flow(fake, *pupil);
    CHECK(destroy_s(pupil) < 0.5);  // generous for a loaded machine, far under the waits it cuts short
  }
  SECTION("retrying with a long backoff") {
    int port = 0;
    {
      FakePupilCapture probe;
      port = probe.remote_port();
    }
    PupilTimings timings = fast_timings();
    timings.request_timeout_s = 0.05;
    timings.backoff_first_s = 30.0;
    timings.backoff_max_s = 30.0;
    auto pupil = std::make_unique<PupilGaze>(pupil_settings(port), full_hd(), timings);
    REQUIRE(wait_until([&] { return !messages_of(*pupil).empty(); }));
    CHECK(destroy_s(pupil) < 0.5);  // generous for a loaded machine, far under the waits it cuts short
  }
  SECTION("waiting for an answer that does not come") {
    FakePupilCapture fake;
    fake.set_answering(false);
    PupilTimings timings = fast_timings();
    timings.request_timeout_s = 30.0;
    auto pupil = std::make_unique<PupilGaze>(pupil_settings(fake.remote_port()), full_hd(), timings);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(destroy_s(pupil) < 0.5);  // generous for a loaded machine, far under the waits it cuts short
  }
}

TEST_CASE("pupil: settings that cannot work throw, naming the key", "[pupil]") {
  const auto message_of = [](const GazeSettings& settings, const PupilTimings& timings = fast_timings()) {
    try {
      PupilGaze pupil(settings, full_hd(), timings);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  GazeSettings s = pupil_settings(0);
  s.port = 70000;
  CHECK(message_of(s).find("gaze.port") == 0);
  s = pupil_settings(0);
  s.host = "";
  CHECK(message_of(s).find("gaze.host") == 0);
  s = pupil_settings(0);
  s.surface = "";
  CHECK(message_of(s).find("gaze.surface") == 0);
  s = pupil_settings(0);
  s.min_confidence = 1.5;
  CHECK(message_of(s).find("gaze.min_confidence") == 0);
  PupilTimings t = fast_timings();
  t.clock_samples = 0;
  CHECK(message_of(pupil_settings(0), t).find("PupilTimings") == 0);
}

TEST_CASE("pupil: signals to the process never interrupt the receiver", "[pupil]") {
  // A run catches SIGINT and SIGTERM on its frame thread; a signal the kernel handed to the
  // receiver thread instead would interrupt a ZeroMQ call there (EINTR) and end the session.
  struct sigaction quiet {};
  quiet.sa_handler = [](int) {};
  struct sigaction previous {};
  REQUIRE(sigaction(SIGUSR1, &quiet, &previous) == 0);
  {
    FakePupilCapture fake;
    PupilGaze pupil(pupil_settings(fake.remote_port()), full_hd(), fast_timings());
    connect_and_flow(fake, pupil);
    // With SIGUSR1 blocked here (and in the fake's thread, and in libzmq's own), the kernel
    // can hand it only to a thread that does not block it: were that the receiver, its
    // poll would fail with EINTR. A signal no thread takes stays pending until unblocked.
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
    for (int i = 0; i < 20; ++i) {
      kill(getpid(), SIGUSR1);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pthread_sigmask(SIG_UNBLOCK, &usr1, nullptr);
    send_good_surface_message(fake, pupil);
    CHECK(pupil.connected());
    CHECK(messages_of(pupil).empty());
  }
  sigaction(SIGUSR1, &previous, nullptr);
}

// The renderer offscreen, on Mesa's software renderer (SDL's offscreen driver and EGL): the
// pictures a window would show, checked pixel by pixel. No GPU and no display needed.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "render/capture.hpp"
#include "render/gl_window.hpp"
#include "render/viewer.hpp"
#include "support/csv_text.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using namespace fovea;

namespace {

const Vec3 kBallColour{0.8, 0.2, 0.1};  // linear RGB
const Vec3 kBackground{0.025, 0.028, 0.035};

/// One ball in a 10 m box, seen by the default camera, with the gaze held at (400, 300).
AnimationSettings one_ball_scene() {
  AnimationSettings s;
  s.world.box_size_m = Vec3(10.0);
  EntityGroupSettings ball;
  ball.name = "ball";
  ball.count = 1;
  ball.model.shape = Shape::ball;
  ball.model.size_m = 1.0;
  ball.model.resolution_voxels = 12;
  ball.material.colour = kBallColour;
  ball.speed_mps = 0;
  ball.spin_radps = 0;
  s.world.entities = {ball};
  s.gaze.source = GazeSourceKind::fixed;
  s.gaze.x_px = 400;
  s.gaze.y_px = 300;
  return s;
}

RenderSettings small_picture() {
  RenderSettings r;
  r.width_px = 480;  // a quarter of the 1920 x 1080 screen
  r.height_px = 270;
  r.panel = false;
  r.background = kBackground;
  r.overlays.rings_deg.clear();
  r.overlays.frame_graph = false;
  return r;
}

int srgb8(double linear) { return static_cast<int>(std::lround(std::pow(linear, 1 / 2.2) * 255)); }

}  // namespace

TEST_CASE("Render offscreen: entity, background and fixation marker where the view puts them", "[render][gl]") {
  const AnimationSettings settings = one_ball_scene();
  Viewer viewer(small_picture(), DisplayMode::offscreen, settings.perception.view.screen, "test");
  Animation world(settings, 1);
  EntityState state;
  state.position_m = Vec3(7.0, 6.0, 5.0);
  world.set_state(0, state);
  world.step();
  viewer.attach(world);
  viewer.draw(world, 1, "");
  const Image picture = viewer.capture();
  REQUIRE(picture.width_px == 480);
  REQUIRE(picture.height_px == 270);
  const double scale = 0.25;

  // The ball's centre, projected by the perception model's View, shows the ball's colour:
  // lit, so darker or brighter, but in the ratio of its channels after sRGB encoding.
  const ScreenPoint centre = world.view().project(world.states()[0].position_m);
  REQUIRE(centre.on_screen);
  const std::uint8_t* ball = picture.at(static_cast<int>(centre.x_px * scale), static_cast<int>(centre.y_px * scale));
  INFO("ball pixel " << int(ball[0]) << " " << int(ball[1]) << " " << int(ball[2]));
  REQUIRE(ball[1] > 10);
  CHECK(double(ball[0]) / ball[1] == Approx(std::pow(0.8 / 0.2, 1 / 2.2)).epsilon(0.06));
  CHECK(double(ball[0]) / ball[2] == Approx(std::pow(0.8 / 0.1, 1 / 2.2)).epsilon(0.08));

  // The point mirrored through the screen's centre is background, and so is a corner.
  const int mx = static_cast<int>((1920 - centre.x_px) * scale), my = static_cast<int>((1080 - centre.y_px) * scale);
  for (const auto& [x, y] : {std::pair{mx, my}, std::pair{4, 266}}) {
    const std::uint8_t* p = picture.at(x, y);
    INFO("pixel at " << x << ", " << y);
    CHECK(std::abs(p[0] - srgb8(kBackground.x)) <= 1);
    CHECK(std::abs(p[1] - srgb8(kBackground.y)) <= 1);
    CHECK(std::abs(p[2] - srgb8(kBackground.z)) <= 1);
  }

  // The fixation cross sits on the gaze point, (400, 300) on the screen; beside it, background.
  const std::uint8_t* mark = picture.at(100, 75);
  CHECK(mark[0] > 200);
  CHECK(mark[1] > 200);
  CHECK(mark[2] > 200);
  const std::uint8_t* beside = picture.at(100 + 3, 75 + 3);
  CHECK(std::abs(beside[1] - srgb8(kBackground.y)) <= 1);

  // The panel and every overlay drawn too, and no OpenGL error anywhere.
  viewer.controls().show_panel = true;
  viewer.controls().render.overlays.sphere_tree = true;
  viewer.controls().render.overlays.frame_graph = true;
  viewer.record(10, 0, 0);
  viewer.draw(world, 1, "status");
  viewer.present();
  CHECK_NOTHROW(check_gl("after the test's frames"));
}

TEST_CASE("Render offscreen: the nearer entity hides the farther, and a face toward the light is lit fully", "[render][gl]") {
  // Two balls on the camera's line of sight at its height (the default camera looks along
  // -z from y = 7.5): the near one blue, drawn first (group 0), the far one red, drawn after
  // it. Only the depth test keeps the far one hidden; only culling the right faces shows the
  // near one's front face, lit head-on by a light travelling along -z.
  AnimationSettings settings = one_ball_scene();
  settings.world.entities.push_back(settings.world.entities[0]);
  settings.world.entities[0].material.colour = Vec3(0.1, 0.2, 0.8);
  settings.world.entities[1].name = "far";
  RenderSettings r = small_picture();
  r.light_direction = Vec3(0, 0, -1);
  Viewer viewer(r, DisplayMode::offscreen, settings.perception.view.screen, "test");
  Animation world(settings, 1);
  EntityState near_state, far_state;
  near_state.position_m = Vec3(5.0, 7.5, 7.0);
  far_state.position_m = Vec3(5.0, 7.5, 5.0);
  world.set_state(0, near_state);
  world.set_state(1, far_state);
  world.step();
  viewer.attach(world);
  viewer.draw(world, 1, "");
  const Image picture = viewer.capture();
  const ScreenPoint centre = world.view().project(world.states()[0].position_m);
  const std::uint8_t* p = picture.at(static_cast<int>(centre.x_px / 4), static_cast<int>(centre.y_px / 4));
  INFO("pixel " << int(p[0]) << " " << int(p[1]) << " " << int(p[2]));
  // Lambert factor 1 on the face toward the camera: the material colour itself, in sRGB.
  CHECK(std::abs(p[0] - srgb8(0.1)) <= 3);
  CHECK(std::abs(p[1] - srgb8(0.2)) <= 3);
  CHECK(std::abs(p[2] - srgb8(0.8)) <= 3);
}

TEST_CASE("Render offscreen: a window of another shape letterboxes the same picture", "[render][gl]") {
  const AnimationSettings settings = one_ball_scene();
  RenderSettings r = small_picture();
  r.height_px = 360;  // 480 x 360: the 16:9 picture is 480 x 270, 45 rows of black above and below
  Viewer viewer(r, DisplayMode::offscreen, settings.perception.view.screen, "test");
  Animation world(settings, 1);
  world.step();
  viewer.attach(world);
  viewer.draw(world, 1, "");
  const Image whole = read_framebuffer(0, 0, 480, 360);
  for (const int y : {0, 44, 315, 359}) {
    INFO("row " << y);
    CHECK(int(whole.at(240, y)[0]) + whole.at(240, y)[1] + whole.at(240, y)[2] == 0);
  }
  CHECK(std::abs(whole.at(4, 50)[1] - srgb8(kBackground.y)) <= 1);
  // The fixation cross at (400, 300) on the screen: (100, 75) in the picture, 45 rows down.
  CHECK(whole.at(100, 75 + 45)[1] > 200);
  // capture() gives the picture alone.
  const Image picture = viewer.capture();
  CHECK(picture.width_px == 480);
  CHECK(picture.height_px == 270);
  CHECK(picture.at(100, 75)[1] > 200);
}

TEST_CASE("Render offscreen: stimulus mode draws no overlay and no panel", "[render][gl]") {
  const AnimationSettings settings = one_ball_scene();
  RenderSettings r = small_picture();
  r.stimulus = true;
  r.panel = true;
  Viewer viewer(r, DisplayMode::offscreen, settings.perception.view.screen, "test");
  Animation world(settings, 1);
  world.step();
  viewer.attach(world);
  viewer.draw(world, 1, "");
  const Image picture = viewer.capture();
  // Where the fixation cross and the panel would be: background.
  for (const auto& [x, y] : {std::pair{100, 75}, std::pair{30, 20}}) {
    const std::uint8_t* p = picture.at(x, y);
    INFO("pixel at " << x << ", " << y);
    CHECK(std::abs(p[1] - srgb8(kBackground.y)) <= 1);
  }
}

TEST_CASE("Render offscreen: a 300-frame capture writes 300 PNGs and the same world as headless",
          "[render][gl][cli][slow]") {
  test::TempDir dir;
  const std::vector<std::string> common = {FOVEA_BINARY, "run", "--frames", "300", "--quiet",
                                           "--set", "world.entities[1].count=10", "--set", "world.entities[0].count=40"};
  std::vector<std::string> drawn = common;
  for (const char* a : {"--capture", "pictures", "--set", "render.width_px=192", "--set", "render.height_px=108", "--out", "drawn"})
    drawn.push_back(a);
  const test::ProcessResult d = test::run_process(drawn, dir.path());
  INFO(d.err);
  REQUIRE(d.status == 0);
  int pngs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "pictures")) {
    const std::string bytes = test::read_file(entry.path());
    CHECK(bytes.substr(1, 3) == "PNG");
    ++pngs;
  }
  CHECK(pngs == 300);
  CHECK(std::filesystem::exists(dir / "pictures" / "frame_000000.png"));
  CHECK(std::filesystem::exists(dir / "pictures" / "frame_000299.png"));

  // The same config and seed draw the same pictures, byte for byte (offscreen the panel and
  // the frame-time graph, which show wall-clock times, are off unless asked for).
  std::vector<std::string> again = common;
  again[3] = "40";  // --frames
  for (const char* a : {"--capture", "pictures_again", "--set", "render.width_px=192", "--set", "render.height_px=108", "--out", "again"})
    again.push_back(a);
  REQUIRE(test::run_process(again, dir.path()).status == 0);
  for (const char* name : {"frame_000000.png", "frame_000039.png"})
    CHECK(test::read_file(dir / "pictures" / name) == test::read_file(dir / "pictures_again" / name));

  std::vector<std::string> headless = common;
  for (const char* a : {"--headless", "--out", "headless"}) headless.push_back(a);
  REQUIRE(test::run_process(headless, dir.path()).status == 0);
  // Drawing changes nothing the world computes: frames.csv without its wall-clock columns
  // (render_ms and frame_interval_ms among them) is the same.
  const std::string drawn_csv = test::read_file(dir / "drawn" / "frames.csv");
  CHECK(drawn_csv.find("render_ms") != std::string::npos);
  CHECK(test::without_wall_clock(drawn_csv) == test::without_wall_clock(test::read_file(dir / "headless" / "frames.csv")));
}

TEST_CASE("Render: a capture folder holding an earlier capture is refused, a failed picture keeps the frames", "[render][gl][cli]") {
  test::TempDir dir;
  const std::vector<std::string> run = {FOVEA_BINARY, "run", "--frames", "6", "--quiet", "--capture", "pictures",
                                        "--set", "render.width_px=96", "--set", "render.height_px=54",
                                        "--set", "world.entities[0].count=20", "--set", "world.entities[1].count=0"};
  std::vector<std::string> first = run;
  first.insert(first.end(), {"--out", "first"});
  REQUIRE(test::run_process(first, dir.path()).status == 0);
  std::vector<std::string> second = run;
  second.insert(second.end(), {"--out", "second"});
  const test::ProcessResult mixed = test::run_process(second, dir.path());
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("earlier capture") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "second"));

  // The fourth picture cannot be written (a folder holds its name): the run stops there with
  // status 1, and frames.csv and summary.json keep the four frames done, picture 3's among them.
  std::filesystem::create_directories(dir / "blocked" / "frame_000003.png");
  std::vector<std::string> blocked = {FOVEA_BINARY, "run", "--frames", "6", "--quiet", "--capture", "blocked",
                                      "--set", "render.width_px=96", "--set", "render.height_px=54", "--out", "third"};
  const test::ProcessResult b = test::run_process(blocked, dir.path());
  INFO(b.err);
  CHECK(b.status == 1);
  CHECK(b.err.find("stopped after frame 3") != std::string::npos);
  const std::string frames = test::read_file(dir / "third" / "frames.csv");
  CHECK(std::count(frames.begin(), frames.end(), '\n') == 1 + 4);
  CHECK(std::filesystem::exists(dir / "third" / "summary.json"));
  CHECK(std::filesystem::exists(dir / "blocked" / "frame_000002.png"));
  CHECK_FALSE(std::filesystem::exists(dir / "blocked" / "frame_000003.png.partial"));
}

TEST_CASE("Render: --capture with --headless is refused before anything is written", "[render][cli]") {
  test::TempDir dir;
  const test::ProcessResult r =
      test::run_process({FOVEA_BINARY, "run", "--frames", "3", "--headless", "--capture", "pictures"}, dir.path());
  CHECK(r.status == 2);
  CHECK(r.err.find("--offscreen") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "results"));
  CHECK_FALSE(std::filesystem::exists(dir / "pictures"));
}

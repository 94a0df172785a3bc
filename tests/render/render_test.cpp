// The renderer offscreen, on Mesa's software renderer (SDL's offscreen driver and EGL): the
// pictures a window would show, checked pixel by pixel. No GPU and no display needed.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "render/capture.hpp"
#include "render/gl_window.hpp"
#include "render/viewer.hpp"
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

TEST_CASE("Render offscreen: a 300-frame capture writes 300 PNGs and the same world as headless", "[render][gl][cli]") {
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

  std::vector<std::string> headless = common;
  for (const char* a : {"--headless", "--out", "headless"}) headless.push_back(a);
  REQUIRE(test::run_process(headless, dir.path()).status == 0);
  // Drawing changes nothing the world computes: frames.csv without its wall-clock columns
  // (render_ms and frame_interval_ms among them) is the same.
  const auto strip = [](const std::string& csv) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> cells;
      std::istringstream l(line);
      for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
      rows.push_back(cells);
    }
    std::string out;
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        const std::string& name = rows[0][c];
        if (name.size() < 3 || name.compare(name.size() - 3, 3, "_ms") != 0) out += row[c] + ",";
      }
      out += "\n";
    }
    return out;
  };
  const std::string drawn_csv = test::read_file(dir / "drawn" / "frames.csv");
  CHECK(drawn_csv.find("render_ms") != std::string::npos);
  CHECK(strip(drawn_csv) == strip(test::read_file(dir / "headless" / "frames.csv")));
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

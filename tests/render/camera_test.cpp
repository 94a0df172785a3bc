// The renderer's camera: its OpenGL transform must be View's pinhole exactly, so what the
// eye sees and what the perception model computes are one projection. No GL needed.

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "render/camera.hpp"
#include "render/overlays.hpp"

using namespace fovea;

namespace {

ViewSettings camera_at(Vec3 position, Vec3 target) {
  ViewSettings s;
  s.camera.frame_box = false;
  s.camera.position_m = position;
  s.camera.target_m = target;
  return s;
}

}  // namespace

TEST_CASE("Camera: the clip transform puts world points on the pixels View::project gives", "[render][camera]") {
  const Aabb box{Vec3(0.0), Vec3(10.0)};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 10.0);
  const std::vector<ViewSettings> views = {ViewSettings{}, camera_at({-3, 12, 4}, {5, 2, 6}), camera_at({5, 5, 30}, {5, 5, 5})};
  for (const ViewSettings& settings : views) {
    const View view(settings, box);
    double near_m = 0, far_m = 0;
    depth_range(view, box, near_m, far_m);
    const glm::mat4 clip = view_projection(view, near_m, far_m);
    const double w = settings.screen.width_px, h = settings.screen.height_px;
    for (int i = 0; i < 200; ++i) {
      const Vec3 p(u(rng), u(rng), u(rng));
      const ScreenPoint expected = view.project(p);
      REQUIRE(expected.in_front);
      const glm::vec4 c = clip * glm::vec4(glm::vec3(p), 1.0f);
      REQUIRE(c.w > 0);
      // Normalised device coordinates to screen pixels, y down.
      const double x_px = (c.x / c.w + 1) * 0.5 * w, y_px = (1 - c.y / c.w) * 0.5 * h;
      CHECK(x_px == Approx(expected.x_px).margin(0.05));
      CHECK(y_px == Approx(expected.y_px).margin(0.05));
      // Inside the depth range: every point of the box is drawn, none clipped away.
      CHECK(std::abs(c.z / c.w) <= 1.0);
    }
  }
}

TEST_CASE("Camera: the picture keeps the screen's aspect inside any window", "[render][camera]") {
  ScreenSettings screen;  // 1920 x 1080
  const PictureViewport same = fit_viewport(1280, 720, screen);
  CHECK(same.x_px == 0);
  CHECK(same.y_px == 0);
  CHECK(same.width_px == 1280);
  CHECK(same.height_px == 720);
  CHECK(same.scale == Approx(1280.0 / 1920.0));
  const PictureViewport tall = fit_viewport(800, 800, screen);
  CHECK(tall.width_px == 800);
  CHECK(tall.height_px == 450);
  CHECK(tall.y_px == 175);  // letterboxed above and below
  const PictureViewport wide = fit_viewport(2000, 540, screen);
  CHECK(wide.height_px == 540);
  CHECK(wide.width_px == 960);
  CHECK(wide.x_px == 520);
}

TEST_CASE("Camera: orbit turns about the target at its distance, fly moves the eye", "[render][camera]") {
  const Aabb box{Vec3(0.0), Vec3(10.0)};
  const View view(ViewSettings{}, box);
  const double distance = glm::length(view.camera_position_m() - view.camera_target_m());

  CameraControl orbit(view, CameraMode::orbit, 10);
  CameraSettings start = orbit.settings();
  CHECK(glm::length(start.position_m - view.camera_position_m()) < 1e-9);  // no input, no move
  CameraInput drag;
  drag.drag_dx_px = 120;
  drag.drag_dy_px = -40;
  REQUIRE(orbit.apply(drag));
  const CameraSettings turned = orbit.settings();
  CHECK(glm::length(turned.target_m - view.camera_target_m()) < 1e-9);
  CHECK(glm::length(turned.position_m - turned.target_m) == Approx(distance));
  CHECK(glm::length(turned.position_m - start.position_m) > 0.5);
  CameraInput wheel;
  wheel.wheel = 2;
  orbit.apply(wheel);
  CHECK(glm::length(orbit.settings().position_m - orbit.settings().target_m) == Approx(distance * 0.81));

  CameraControl fly(view, CameraMode::fly, 10);
  CameraInput forward;
  forward.move_forward = 1;
  forward.dt_s = 0.5;
  REQUIRE(fly.apply(forward));
  const CameraSettings moved = fly.settings();
  const Vec3 step = moved.position_m - view.camera_position_m();
  // Forward is the line of sight: 5 m/s (half the world's extent per second) for half a second.
  CHECK(glm::length(step) == Approx(2.5));
  CHECK(glm::dot(glm::normalize(step), view.camera_forward()) == Approx(1.0));
  // The View built from the moved camera is valid and looks the same way.
  const View after(ViewSettings{moved, ScreenSettings{}}, box);
  CHECK(glm::dot(after.camera_forward(), view.camera_forward()) == Approx(1.0));
}

TEST_CASE("Overlays: eccentricity rings lie at their visual angle from the fixation point", "[render][overlays]") {
  ScreenSettings screen;
  for (const double e : {1.0, 5.0, 20.0})
    for (const double fx : {960.0, 100.0})
      for (int k = 0; k < 8; ++k) {
        const double a = k * 0.785398;
        const double r = eccentricity_radius_px(screen, fx, 540, a, e);
        REQUIRE(std::isfinite(r));
        const double angle = screen_visual_angle_deg(screen, fx, 540, fx + r * std::cos(a), 540 + r * std::sin(a));
        CHECK(angle == Approx(e).margin(1e-3));
      }
  // Along a ray on a flat screen the angle stays below 90 degrees: no ring beyond it.
  CHECK(std::isnan(eccentricity_radius_px(screen, 960, 540, 0, 95)));
}

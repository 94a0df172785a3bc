#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "core/math.hpp"
#include "perception/view.hpp"

using namespace fovea;

namespace {

const Aabb kBox10{Vec3(0.0), Vec3(10.0)};

/// A camera at the origin looking down -z, y up, on a 1000 x 500 px screen whose pixels are
/// 0.05 cm square, 57 cm from the eye. Focal length 250 px at a 90 degree vertical fov.
ViewSettings simple_view(double fov_deg = 90.0) {
  ViewSettings v;
  v.camera.frame_box = false;
  v.camera.position_m = Vec3(0.0);
  v.camera.target_m = Vec3(0.0, 0.0, -1.0);
  v.camera.up = Vec3(0.0, 1.0, 0.0);
  v.camera.vertical_fov_deg = fov_deg;
  v.screen.width_px = 1000;
  v.screen.height_px = 500;
  v.screen.width_cm = 50.0;
  v.screen.height_cm = 25.0;
  v.screen.viewing_distance_cm = 57.0;
  return v;
}

double degrees_between(const Vec3& a, const Vec3& b) {
  return glm::degrees(std::acos(glm::dot(a, b) / (glm::length(a) * glm::length(b))));
}

}  // namespace

TEST_CASE("a point on the viewing axis projects to the screen centre", "[view]") {
  const View simple(simple_view(), kBox10);
  const ScreenPoint p = simple.project(Vec3(0.0, 0.0, -7.0));
  CHECK(p.x_px == Approx(500.0).margin(1e-9).epsilon(0));
  CHECK(p.y_px == Approx(250.0).margin(1e-9).epsilon(0));
  CHECK(p.depth_m == Approx(7.0));
  CHECK(p.in_front);
  CHECK(p.on_screen);

  // The framing camera looks at the box centre, which is on its axis by construction.
  const View framed(ViewSettings{}, kBox10);
  const ScreenPoint c = framed.project(Vec3(5.0));
  CHECK(c.x_px == Approx(960.0).margin(1e-9).epsilon(0));
  CHECK(c.y_px == Approx(540.0).margin(1e-9).epsilon(0));
  CHECK(c.depth_m == Approx(glm::length(framed.camera_position_m() - Vec3(5.0))));
}

TEST_CASE("a point at the top edge of the vertical field of view projects to y 0", "[view]") {
  for (const double fov_deg : {30.0, 50.0, 90.0, 120.0}) {
    const View view(simple_view(fov_deg), kBox10);
    const double depth_m = 4.0;
    const double top_m = depth_m * std::tan(glm::radians(fov_deg) / 2);
    const ScreenPoint top = view.project(Vec3(0.0, top_m, -depth_m));
    CHECK(top.y_px == Approx(0.0).margin(1e-9).epsilon(0));
    CHECK(top.x_px == Approx(500.0).margin(1e-9).epsilon(0));
    CHECK(top.on_screen);
    const ScreenPoint bottom = view.project(Vec3(0.0, -top_m, -depth_m));
    CHECK(bottom.y_px == Approx(500.0).margin(1e-9).epsilon(0));
  }
}

TEST_CASE("points behind the camera or on its plane are not in front", "[view]") {
  const View view(simple_view(), kBox10);
  const ScreenPoint behind = view.project(Vec3(0.0, 0.0, 3.0));
  CHECK_FALSE(behind.in_front);
  CHECK_FALSE(behind.on_screen);
  CHECK(behind.depth_m == Approx(-3.0));
  const ScreenPoint on_plane = view.project(Vec3(2.0, 1.0, 0.0));
  CHECK_FALSE(on_plane.in_front);
  CHECK_FALSE(on_plane.on_screen);
  CHECK(view.project(Vec3(0.0, 0.0, -2 * View::kNearLimit_m)).in_front);
}

TEST_CASE("off-axis points land on the pixels computed by hand", "[view]") {
  // Focal length 250 px (half of 500 px over tan 45 degrees), centre (500, 250).
  const View view(simple_view(), kBox10);
  const ScreenPoint p = view.project(Vec3(1.0, 0.5, -2.0));  // 500 + 250 * 1 / 2, 250 - 250 * 0.5 / 2
  CHECK(p.x_px == Approx(625.0).margin(1e-9).epsilon(0));
  CHECK(p.y_px == Approx(187.5).margin(1e-9).epsilon(0));
  CHECK(p.depth_m == Approx(2.0));
  CHECK(p.on_screen);
  const ScreenPoint q = view.project(Vec3(-1.0, -0.5, -2.0));
  CHECK(q.x_px == Approx(375.0).margin(1e-9).epsilon(0));
  CHECK(q.y_px == Approx(312.5).margin(1e-9).epsilon(0));
  const ScreenPoint wide = view.project(Vec3(10.0, 0.0, -2.0));  // x = 500 + 1250
  CHECK(wide.x_px == Approx(1750.0).margin(1e-9).epsilon(0));
  CHECK(wide.in_front);
  CHECK_FALSE(wide.on_screen);

  // A turned camera: looking down +x with z up, so right is -y.
  ViewSettings turned = simple_view();
  turned.camera.target_m = Vec3(1.0, 0.0, 0.0);
  turned.camera.up = Vec3(0.0, 0.0, 1.0);
  const ScreenPoint t = View(turned, kBox10).project(Vec3(2.0, -1.0, 0.5));
  CHECK(t.x_px == Approx(625.0).margin(1e-9).epsilon(0));
  CHECK(t.y_px == Approx(187.5).margin(1e-9).epsilon(0));
  CHECK(t.depth_m == Approx(2.0));
}

TEST_CASE("pixels per metre matches two projected points a metre apart", "[view]") {
  const View view(ViewSettings{}, kBox10);
  const Vec3 eye = view.camera_position_m();
  const Vec3 forward = glm::normalize(view.camera_target_m() - eye);
  const Vec3 across = glm::normalize(glm::cross(forward, Vec3(0.0, 1.0, 0.0)));
  for (const double depth_m : {3.0, 12.0, 40.0}) {
    const Vec3 a = eye + depth_m * forward + 0.2 * across;
    const ScreenPoint pa = view.project(a);
    const ScreenPoint pb = view.project(a + across);
    const double distance_px = std::hypot(pb.x_px - pa.x_px, pb.y_px - pa.y_px);
    CHECK(distance_px == Approx(view.pixels_per_metre(depth_m)).epsilon(1e-12));
  }
  // The default screen: 540 px over tan(25 degrees) at one metre.
  CHECK(view.pixels_per_metre(1.0) == Approx(540.0 / std::tan(glm::radians(25.0))));
}

TEST_CASE("a physical offset equal to the viewing distance is 45 degrees, on either axis", "[view]") {
  // 0.1 cm per pixel across, 0.15 cm per pixel down: 57 cm is 570 px across and 380 px down.
  ViewSettings v = simple_view();
  v.screen.width_px = 2000;
  v.screen.width_cm = 200.0;
  v.screen.height_px = 1000;
  v.screen.height_cm = 150.0;
  const View view(v, kBox10);
  CHECK(view.visual_angle_deg(1000, 500, 1570, 500) == Approx(45.0).epsilon(1e-12));
  CHECK(view.visual_angle_deg(1000, 500, 430, 500) == Approx(45.0).epsilon(1e-12));
  CHECK(view.visual_angle_deg(1000, 500, 1000, 880) == Approx(45.0).epsilon(1e-12));
  CHECK(view.visual_angle_deg(1000, 500, 1000, 120) == Approx(45.0).epsilon(1e-12));
  // Either side of the centre along one line: the angles add.
  CHECK(view.visual_angle_deg(430, 500, 1570, 500) == Approx(90.0).epsilon(1e-12));
  CHECK(view.visual_angle_deg(1000, 500, 1000, 500) == 0.0);
}

TEST_CASE("the visual angle is symmetric and off-centre pairs look smaller", "[view]") {
  const View view(ViewSettings{}, kBox10);
  const double points[][2] = {{0, 0}, {960, 540}, {1919, 1079}, {100, 900}, {1500.5, 20.25}};
  for (const auto& a : points)
    for (const auto& b : points)
      CHECK(view.visual_angle_deg(a[0], a[1], b[0], b[1]) == view.visual_angle_deg(b[0], b[1], a[0], a[1]));
  // The same 100 px span subtends less near the edge, where the screen is farther and oblique.
  CHECK(view.visual_angle_deg(1800, 540, 1900, 540) < view.visual_angle_deg(910, 540, 1010, 540));
}

TEST_CASE("small visual angles agree with the small-angle formula", "[view]") {
  const View view(ViewSettings{}, kBox10);
  const ScreenSettings& s = view.settings().screen;
  const double cm_per_px_x = s.width_cm / s.width_px, cm_per_px_y = s.height_cm / s.height_px;
  // Straddling the centre, the span seen square-on: angle ~ size / distance.
  CHECK(view.visual_angle_deg(959, 540, 961, 540) ==
        Approx(glm::degrees(2 * cm_per_px_x / s.viewing_distance_cm)).epsilon(1e-6));
  CHECK(view.visual_angle_deg(960, 539, 960, 541) ==
        Approx(glm::degrees(2 * cm_per_px_y / s.viewing_distance_cm)).epsilon(1e-6));
  // The defaults' rule of thumb: 1 cm at 57 cm is about 1 degree.
  CHECK(view.visual_angle_deg(960, 540, 960 + 1.0 / cm_per_px_x, 540) == Approx(1.0).epsilon(0.01));
}

TEST_CASE("frame_box reproduces the world's placeholder camera for a 10 m box", "[view]") {
  // The Animation's placeholder camera: target = centre, position = centre + (0, 0.25 extent, extent / tan(fov / 2)),
  // with the 50 degree default: z = 5 + 10 / tan(25 degrees) = 26.445069205095585.
  const View view(ViewSettings{}, kBox10);
  CHECK(view.camera_target_m().x == 5.0);
  CHECK(view.camera_target_m().y == 5.0);
  CHECK(view.camera_target_m().z == 5.0);
  CHECK(view.camera_position_m().x == Approx(5.0).margin(1e-12).epsilon(0));
  CHECK(view.camera_position_m().y == Approx(7.5).margin(1e-12).epsilon(0));
  CHECK(view.camera_position_m().z == Approx(26.445069205095585).margin(1e-12).epsilon(0));
  // The settings' own position and target are ignored while framing.
  ViewSettings moved;
  moved.camera.position_m = Vec3(100.0);
  CHECK(View(moved, kBox10).camera_position_m().z == Approx(26.445069205095585).margin(1e-12).epsilon(0));
  // ... and the whole box is in the picture.
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 p((corner & 1) ? 10.0 : 0.0, (corner & 2) ? 10.0 : 0.0, (corner & 4) ? 10.0 : 0.0);
    CHECK(view.project(p).on_screen);
  }
}

TEST_CASE("a field of view of 0 is the screen's own, so camera and eye angles agree", "[view]") {
  ViewSettings v = simple_view(0.0);  // 25 cm tall at 57 cm
  const View view(v, kBox10);
  const double screen_fov_deg = glm::degrees(2 * std::atan(12.5 / 57.0));
  CHECK(view.vertical_fov_deg() == Approx(screen_fov_deg).epsilon(1e-12));
  CHECK(View(ViewSettings{}, kBox10).vertical_fov_deg() == 50.0);
  // Square pixels on the physical screen too: a point's angle off the camera axis equals the
  // visual angle of its picture off the screen centre.
  for (const Vec3& p : {Vec3(0.3, 0.1, -2.0), Vec3(-1.0, 0.4, -5.0), Vec3(0.0, 0.2, -1.0)}) {
    const ScreenPoint s = view.project(p);
    REQUIRE(s.on_screen);
    CHECK(view.visual_angle_deg(500, 250, s.x_px, s.y_px) == Approx(degrees_between(p, Vec3(0, 0, -1))).epsilon(1e-9));
  }
}

TEST_CASE("degenerate views are refused with the setting named", "[view]") {
  using Catch::Matchers::Contains;
  ViewSettings same = simple_view();
  same.camera.target_m = same.camera.position_m;
  CHECK_THROWS_AS(View(same, kBox10), std::invalid_argument);
  CHECK_THROWS_WITH(View(same, kBox10), Contains("perception.view.camera.position_m"));

  ViewSettings parallel = simple_view();
  parallel.camera.up = Vec3(0.0, 0.0, 2.0);
  CHECK_THROWS_WITH(View(parallel, kBox10), Contains("perception.view.camera.up is parallel to the line of sight"));
  ViewSettings no_up = simple_view();
  no_up.camera.up = Vec3(0.0);
  CHECK_THROWS_WITH(View(no_up, kBox10), Contains("perception.view.camera.up"));

  ViewSettings narrow = simple_view();
  narrow.screen.width_px = 0;
  CHECK_THROWS_WITH(View(narrow, kBox10), Contains("perception.view.screen.width_px"));
  ViewSettings flat = simple_view();
  flat.screen.height_cm = -1;
  CHECK_THROWS_WITH(View(flat, kBox10), Contains("perception.view.screen.height_cm"));
  ViewSettings close = simple_view();
  close.screen.viewing_distance_cm = 0;
  CHECK_THROWS_WITH(View(close, kBox10), Contains("perception.view.screen.viewing_distance_cm"));
  for (const double fov_deg : {-1.0, 180.0, std::nan("")}) {
    ViewSettings bad = simple_view(fov_deg);
    CHECK_THROWS_WITH(View(bad, kBox10), Contains("perception.view.camera.vertical_fov_deg"));
  }
  // Framing an empty box leaves no line of sight.
  CHECK_THROWS_WITH(View(ViewSettings{}, Aabb{Vec3(1.0), Vec3(1.0)}), Contains("perception.view.camera.frame_box"));
  CHECK_NOTHROW(View(simple_view(), kBox10));
}

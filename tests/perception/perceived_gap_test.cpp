#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/math.hpp"
#include "core/rng.hpp"
#include "perception/perceived_gap.hpp"

using namespace fovea;

namespace {

/// perceive_gap as it was written before GapPerceiver, one gap at a time through View's own
/// project, pixels_per_metre and visual_angle_deg: the reference the batch must match bit
/// for bit (docs/perception.md, "What perceiving costs").
PerceivedGap reference_perceive_gap(const View& view, const PerceptionModel& model, double fixation_x_px,
                                    double fixation_y_px, const Vec3& centre_m, const Vec3& end_a_m, const Vec3& end_b_m,
                                    double slack_m) {
  PerceivedGap p;
  const ScreenPoint centre = view.project(centre_m);
  p.centre_x_px = centre.x_px;
  p.centre_y_px = centre.y_px;
  p.visible = centre.on_screen;
  if (!centre.in_front) return p;
  p.eccentricity_px = std::hypot(centre.x_px - fixation_x_px, centre.y_px - fixation_y_px);
  p.eccentricity_deg = view.visual_angle_deg(fixation_x_px, fixation_y_px, centre.x_px, centre.y_px);
  const ScreenPoint a = view.project(end_a_m);
  const ScreenPoint b = view.project(end_b_m);
  double dir_x = 1, dir_y = 0;
  if (a.in_front && b.in_front) {
    const double dx = b.x_px - a.x_px, dy = b.y_px - a.y_px;
    const double length = std::hypot(dx, dy);
    p.gap_px = length + slack_m * view.pixels_per_metre(std::min(a.depth_m, b.depth_m));
    if (length > 0) {
      dir_x = dx / length;
      dir_y = dy / length;
    }
  } else {
    p.gap_px = (glm::length(end_b_m - end_a_m) + slack_m) * view.pixels_per_metre(centre.depth_m);
  }
  const double h = p.gap_px / 2;
  p.gap_deg = view.visual_angle_deg(centre.x_px - h * dir_x, centre.y_px - h * dir_y, centre.x_px + h * dir_x,
                                    centre.y_px + h * dir_y);
  if (p.visible) p.probability = model.probability(p.eccentricity_deg, p.gap_deg);
  return p;
}

/// The same double, bit for bit; any NaN matches any NaN (the payload is not a result).
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

struct Gap {
  Vec3 centre, a, b;
  double slack;
};

/// Gaps around and behind a camera at `eye` looking along `forward`: mostly ordinary ones
/// in view, then the cases the branches of perceive_gap tell apart.
std::vector<Gap> gaps_for(const View& view, std::uint64_t seed) {
  Rng rng(seed, 7);
  const Vec3 eye = view.camera_position_m();
  const Vec3 forward = view.camera_forward();
  std::vector<Gap> gaps;
  for (int i = 0; i < 600; ++i) {
    // Depths from behind the camera to far in front; widths from on axis to far off screen.
    const double depth = i % 5 == 0 ? rng.uniform(-3.0, 0.5) : rng.uniform(0.5, 30.0);
    const Vec3 across = rng.unit_vector() * rng.uniform(0.0, i % 3 == 0 ? 40.0 : 6.0);
    const Vec3 centre = eye + depth * forward + across;
    const Vec3 offset = rng.unit_vector() * rng.uniform(0.0, i % 7 == 0 ? 8.0 : 0.5);
    Gap g{centre, centre - offset, centre + offset * rng.uniform(0.2, 1.5), i % 4 == 0 ? 0.0 : rng.uniform(0.0, 0.2)};
    if (i % 11 == 0) g.b = g.a;                                      // ends coincide: no direction
    if (i % 13 == 0) g.a = eye - forward * rng.uniform(0.0, 2.0);    // one end behind the camera
    if (i % 17 == 0) g.b = eye + forward * (View::kNearLimit_m / 2); // one end on the near limit
    if (i % 19 == 0) g.centre = eye + forward * View::kNearLimit_m;  // the centre exactly at the limit
    gaps.push_back(g);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Vec3 ahead = eye + 5.0 * forward;
  gaps.push_back({ahead, ahead, ahead, 0.0});                              // nothing at all
  gaps.push_back({ahead, ahead - Vec3(0.1, 0, 0), ahead + Vec3(0.1, 0, 0), 1e300});
  gaps.push_back({Vec3(nan, 0, 0), ahead, ahead, 0.0});                    // broken poses
  gaps.push_back({ahead, Vec3(0, nan, 0), ahead, 0.0});
  gaps.push_back({ahead, ahead, ahead, nan});
  gaps.push_back({ahead, Vec3(inf, 0, 0), ahead, 0.0});
  gaps.push_back({eye, eye, eye, 0.0});                                    // in the eye
  return gaps;
}

void check_batch_matches_reference(const View& view, const PerceptionModel& model, double fx, double fy,
                                   const std::vector<Gap>& gaps, std::size_t batch_size) {
  const GapPerceiver perceiver(view, model, fx, fy);
  GapBatch batch;
  std::size_t mismatches = 0, visible = 0, in_front = 0, behind = 0;
  for (std::size_t begin = 0; begin < gaps.size(); begin += batch_size) {
    batch.clear();
    const std::size_t end = std::min(gaps.size(), begin + batch_size);
    for (std::size_t k = begin; k < end; ++k) batch.push(gaps[k].centre, gaps[k].a, gaps[k].b, gaps[k].slack);
    perceiver.perceive(batch);
    for (std::size_t k = begin; k < end; ++k) {
      const std::size_t i = k - begin;
      const Gap& g = gaps[k];
      const PerceivedGap r = reference_perceive_gap(view, model, fx, fy, g.centre, g.a, g.b, g.slack);
      const bool ok = same(batch.centre_x_px[i], r.centre_x_px) && same(batch.centre_y_px[i], r.centre_y_px) &&
                      batch.visible[i] == r.visible && same(batch.eccentricity_deg[i], r.eccentricity_deg) &&
                      same(batch.gap_px[i], r.gap_px) && same(batch.gap_deg[i], r.gap_deg) &&
                      same(batch.probability[i], r.probability);
      // One at a time through the public function, eccentricity_px included.
      const PerceivedGap one = perceive_gap(view, model, fx, fy, g.centre, g.a, g.b, g.slack);
      const bool one_ok = same(one.centre_x_px, r.centre_x_px) && same(one.centre_y_px, r.centre_y_px) &&
                          one.visible == r.visible && same(one.eccentricity_px, r.eccentricity_px) &&
                          same(one.eccentricity_deg, r.eccentricity_deg) && same(one.gap_px, r.gap_px) &&
                          same(one.gap_deg, r.gap_deg) && same(one.probability, r.probability);
      // And through the perceiver's own one-gap path, which leaves eccentricity_px out.
      const PerceivedGap own = perceiver.perceive_one(g.centre, g.a, g.b, g.slack);
      const bool own_ok = same(own.centre_x_px, r.centre_x_px) && same(own.centre_y_px, r.centre_y_px) &&
                          own.visible == r.visible && own.eccentricity_px == 0 &&
                          same(own.eccentricity_deg, r.eccentricity_deg) && same(own.gap_px, r.gap_px) &&
                          same(own.gap_deg, r.gap_deg) && same(own.probability, r.probability);
      if (!ok || !one_ok || !own_ok) {
        ++mismatches;
        INFO("gap " << k << " of a batch of " << batch_size);
        CHECK(same(batch.gap_deg[i], r.gap_deg));
        CHECK(same(batch.eccentricity_deg[i], r.eccentricity_deg));
        CHECK(same(batch.probability[i], r.probability));
        CHECK(ok);
        CHECK(one_ok);
        CHECK(own_ok);
      }
      visible += r.visible;
      in_front += batch.in_front[i];
      behind += !batch.in_front[i];
    }
  }
  CHECK(mismatches == 0);
  // The gaps reach every branch: visible, in front but off screen, behind.
  CHECK(visible > 50);
  CHECK(in_front - visible > 50);
  CHECK(behind > 50);
}

}  // namespace

TEST_CASE("GapPerceiver places a batch bit for bit as perceive_gap placed each gap alone", "[perceived_gap]") {
  const Aabb box{Vec3(0.0), Vec3(10.0)};
  ViewSettings framed;  // the default: framing the box, 1920 x 1080 at 57 cm
  ViewSettings inside;
  inside.camera.frame_box = false;
  inside.camera.position_m = Vec3(3.0, 3.0, 3.0);
  inside.camera.target_m = Vec3(6.0, 3.5, 4.0);
  inside.camera.up = Vec3(0.2, 1.0, 0.1);
  inside.camera.vertical_fov_deg = 0;  // the screen's own
  inside.screen.width_px = 1280;
  inside.screen.height_px = 1024;
  inside.screen.width_cm = 37.5;  // pixels not square
  inside.screen.height_cm = 30.0;
  inside.screen.viewing_distance_cm = 65.0;

  PerceptionModelSettings logistic;
  PerceptionModelSettings weibull;
  weibull.function = PsychometricFunction::weibull;
  weibull.width = 1.7;
  weibull.guess_rate = 0.1;
  weibull.threshold_deg = 0.2;

  std::uint64_t seed = 1;
  for (const ViewSettings& settings : {framed, inside}) {
    const View view(settings, box);
    const double w = settings.screen.width_px, h = settings.screen.height_px;
    for (const PerceptionModelSettings& model_settings : {logistic, weibull}) {
      const PerceptionModel model(model_settings);
      const std::vector<Gap> gaps = gaps_for(view, seed++);
      for (const auto& [fx, fy] : {std::pair{0.5 * w, 0.5 * h}, std::pair{0.0, 0.0}, std::pair{0.37 * w, 0.81 * h},
                                   std::pair{-200.0, 1.5 * h}})
        for (const std::size_t batch_size : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{63}, GapBatch::kCapacity})
          check_batch_matches_reference(view, model, fx, fy, gaps, batch_size);
    }
  }
}

TEST_CASE("The gaze-blind model orders gaps by their size alone, wherever they lie, and the eye's does not",
          "[perceived_gap][gaze_blind]") {
  const Aabb box{Vec3(0.0), Vec3(10.0)};
  const View view(ViewSettings{}, box);
  const PerceptionModel eye_model{PerceptionModelSettings{}};
  const PerceptionModel blind = eye_model.without_eccentricity();
  CHECK(blind.ignores_eccentricity());
  CHECK_FALSE(eye_model.ignores_eccentricity());
  const std::vector<Gap> gaps = gaps_for(view, 11);
  // Placed from a fixation off to one side: the eye's f falls off away from it.
  const GapPerceiver with_eye(view, eye_model, 300, 200), without(view, blind, 300, 200);
  struct Placed {
    double gap_deg, f_eye, f_blind;
  };
  std::vector<Placed> placed;
  std::size_t saturated = 0;
  for (const Gap& g : gaps) {
    const PerceivedGap e = with_eye.perceive_one(g.centre, g.a, g.b, g.slack);
    const PerceivedGap b = without.perceive_one(g.centre, g.a, g.b, g.slack);
    if (!e.visible || !(e.gap_deg > 0)) continue;
    REQUIRE(b.gap_deg == e.gap_deg);
    // f(0, g) itself, to 1e-9, and exactly where it is further than that from its ceiling.
    const double at_fixation = eye_model.probability(0.0, e.gap_deg);
    CHECK(std::abs(b.probability - at_fixation) <= 1e-9);
    if (at_fixation < 0.98 - 1e-9) CHECK(b.probability == at_fixation);
    saturated += at_fixation == 0.98;
    placed.push_back({e.gap_deg, e.probability, b.probability});
  }
  REQUIRE(placed.size() > 200);
  CHECK(saturated > 10);  // gaps f(0, g) cannot tell apart, which the blind model orders by size
  // Priority order (highest first, ties in list order, as the schedulers sort) against the
  // gap-only sort (largest first).
  const auto order_by = [&](auto key) {
    std::vector<std::size_t> order(placed.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return key(placed[i]) > key(placed[j]); });
    return order;
  };
  const auto by_gap = order_by([](const Placed& p) { return p.gap_deg; });
  CHECK(order_by([](const Placed& p) { return p.f_blind; }) == by_gap);
  CHECK(order_by([](const Placed& p) { return p.f_eye; }) != by_gap);
}

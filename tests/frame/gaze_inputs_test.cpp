#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "frame/animation.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// Packed rocks, small (test::starved_packed_rocks), the scripted viewer watching the
/// entities through a tracker 50 ms late at 500 Hz.
AnimationSettings packed_rocks_late_tracker() {
  AnimationSettings s = test::starved_packed_rocks();
  s.gaze.scripted.targets = ScriptedTargetKind::entities;
  s.gaze.latency_ms = 50;
  s.gaze.rate_hz = 500;
  return s;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("Gaze inputs: an arm evaluated with a gaze input measures what a driver scheduling with it did",
          "[frame][evaluation][gaze]") {
  // The driver schedules from its gaze input's fixation (and the oracle knows the truth from
  // it), and both are measured from the eye's: the arm that is the driver's scheduler, budget
  // and gaze input must give the driver's numbers, frame for frame.
  for (const SchedulerKind kind : {SchedulerKind::hybrid, SchedulerKind::oracle, SchedulerKind::sorted_sequential}) {
    for (const SchedulerGaze input : {SchedulerGaze::tracked, SchedulerGaze::landing, SchedulerGaze::blind}) {
      INFO(scheduler_name(kind) << ", " << scheduler_gaze_name(input));
      AnimationSettings settings = packed_rocks_late_tracker();
      settings.schedule.kind = kind;
      settings.schedule.gaze = input;
      settings.evaluate.schedulers = {kind};
      settings.evaluate.gaze = {SchedulerGaze::tracked, input};
      Animation world(settings, 9);
      double p_true = 0;
      int late = 0;
      for (int frame = 0; frame < 50; ++frame) {
        INFO("frame " << frame);
        const FrameStats stats = world.step();
        const std::span<const EvaluatedFrame> rows = world.evaluation().frames();
        REQUIRE(rows.size() == 2);
        const EvaluatedFrame& own = rows[1];
        CHECK(own.gaze == input);
        CHECK(own.sphere_tests == stats.sphere_tests);
        CHECK(own.metrics.interrupted == stats.metrics.interrupted);
        CHECK(same(own.metrics.p_true, stats.metrics.p_true));
        CHECK(same(own.metrics.p_true_visible, stats.metrics.p_true_visible));
        CHECK(same(own.metrics.p_est, stats.metrics.p_est));
        CHECK(same(own.metrics.p_episodes_true, stats.metrics.p_episodes_true));
        p_true += stats.metrics.p_true;
        late += stats.gaze.tracked_x_px != stats.gaze.x_px;
      }
      CHECK(p_true > 0);
      CHECK(late > 5);  // the tracker was somewhere else than the eye at times
    }
  }
}

TEST_CASE("Gaze inputs: round robin reads no gaze, the oracle reads it, and the meter reads the eye", "[frame][evaluation][gaze]") {
  AnimationSettings settings = packed_rocks_late_tracker();
  settings.evaluate.schedulers = {SchedulerKind::round_robin, SchedulerKind::oracle};
  settings.evaluate.gaze = {SchedulerGaze::tracked, SchedulerGaze::blind};
  Animation world(settings, 4);
  double oracle_tracked = 0, oracle_blind = 0;
  for (int frame = 0; frame < 60; ++frame) {
    world.step();
    const std::span<const EvaluatedFrame> rows = world.evaluation().frames();
    REQUIRE(rows.size() == 4);  // schedulers, then gaze inputs
    CHECK(rows[0].scheduler == SchedulerKind::round_robin);
    CHECK(rows[1].gaze == SchedulerGaze::blind);
    CHECK(same(rows[0].metrics.p_true, rows[1].metrics.p_true));  // round robin: no gaze read
    CHECK(rows[0].sphere_tests == rows[1].sphere_tests);
    oracle_tracked += rows[2].metrics.p_true;
    oracle_blind += rows[3].metrics.p_true;
  }
  // The oracle ordering by f at the true gap, with and without the eccentricity term, leaves
  // different gaps: where the viewer looks changes its order.
  CHECK(oracle_tracked != oracle_blind);
}

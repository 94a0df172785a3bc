// The narrow phase inside the frame: the metrics frames.csv records, against the truth and
// against a second run.

#include <catch2/catch.hpp>

#include <cmath>

#include "frame/animation.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

AnimationSettings packed_rocks(SchedulerKind kind, std::int64_t tests) {
  AnimationSettings s =
      test::world_of(Vec3(3.0), {test::rock_group({.count = 120, .variants = 4, .resolution_voxels = 10})});
  s.schedule.kind = kind;
  s.budget.tests = tests;
  s.ground_truth = true;
  s.gaze.source = GazeSourceKind::scripted;
  return s;
}

}  // namespace

TEST_CASE("Frame metrics: the estimate bounds the truth, and the counts add up", "[world][metrics]") {
  for (const SchedulerKind kind : {SchedulerKind::round_robin, SchedulerKind::priority_queues}) {
    Animation world(packed_rocks(kind, 300), 4);
    double nabla_est = 0, nabla_true = 0;
    std::int64_t interrupted = 0, false_collisions = 0;
    for (int i = 0; i < 60; ++i) {
      const FrameStats f = world.step();
      INFO(scheduler_name(kind) << ", frame " << i);
      CHECK(f.collisions == f.pairs);
      CHECK(f.metrics.nabla_est_m >= f.metrics.nabla_true_m);
      CHECK(f.metrics.p_est >= 0);
      CHECK(f.metrics.p_est <= static_cast<double>(f.metrics.interrupted));
      CHECK(f.metrics.missed_collisions == 0);  // repulse: only resolved ones are dropped, and they are apart
      CHECK(f.sphere_tests < 300 + 8);
      nabla_est += f.metrics.nabla_est_m;
      nabla_true += f.metrics.nabla_true_m;
      interrupted += f.metrics.interrupted;
      false_collisions += f.metrics.false_collisions;
    }
    CHECK(interrupted > 100);
    CHECK(false_collisions > 0);
    CHECK(nabla_true > 0);
    CHECK(nabla_est > nabla_true);
  }
}

TEST_CASE("Frame metrics: with no interruption nothing is estimated, and interpenetrate drops what is left",
          "[world][metrics]") {
  AnimationSettings ample = packed_rocks(SchedulerKind::round_robin, 1'000'000'000);
  ample.world.entities[0].sphere_tree.remove_hidden = false;  // every voxel covered: nothing can be missed
  Animation world(ample, 2);
  for (int i = 0; i < 40; ++i) {
    const FrameStats f = world.step();
    CHECK(f.metrics.interrupted == 0);
    CHECK(f.metrics.nabla_est_m == 0);
    CHECK(f.metrics.p_est == 0);
    CHECK(f.metrics.missed_collisions == 0);
    CHECK_FALSE(f.budget_exhausted);
  }
  AnimationSettings starved = packed_rocks(SchedulerKind::sequential, 50);
  starved.interrupt_policy = InterruptPolicy::interpenetrate;
  Animation dropping(starved, 2);
  std::int64_t missed = 0;
  for (int i = 0; i < 60; ++i) {
    const FrameStats f = dropping.step();
    CHECK(f.metrics.nabla_est_m == 0);  // nothing accepted unresolved
    CHECK(f.budget_exhausted);
    missed += f.metrics.missed_collisions;
  }
  CHECK(missed > 0);  // the rocks pass through each other and the dropped collisions touch
}

TEST_CASE("Frame metrics: a work budget and a seed give the same frames twice", "[world][metrics][determinism]") {
  Animation a(packed_rocks(SchedulerKind::sorted_sequential, 500), 9);
  Animation b(packed_rocks(SchedulerKind::sorted_sequential, 500), 9);
  for (int i = 0; i < 40; ++i) {
    const FrameStats x = a.step();
    const FrameStats y = b.step();
    CHECK(x.sphere_tests == y.sphere_tests);
    CHECK(x.metrics.interrupted == y.metrics.interrupted);
    CHECK(x.gaze.x_px == y.gaze.x_px);
    CHECK(x.gaze.y_px == y.gaze.y_px);
    CHECK(x.metrics.nabla_est_m == y.metrics.nabla_est_m);
    CHECK(x.metrics.p_est == y.metrics.p_est);
    CHECK(x.metrics.p_true == y.metrics.p_true);
  }
}

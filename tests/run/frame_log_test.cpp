#include <catch2/catch.hpp>

#include "run/frame_log.hpp"
#include "run/stepper.hpp"
#include "support/allocation_counter.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"
#include "frame/animation.hpp"
#include "world/motion.hpp"

using namespace fovea;

TEST_CASE("frame loop: stepping the world and writing its row allocate nothing in the steady state",
          "[record][frame_log]") {
  WorldSettings w;
  EntityGroupSettings rocks;
  rocks.count = 200;
  rocks.model.shape = Shape::rock;
  rocks.model.variants = 3;
  w.entities = {rocks};
  Stepper stepper(std::make_unique<Animation>(w, 1), nullptr);
  test::TempDir dir;
  FrameLog log((dir / "frames.csv").string());
  const auto step_and_write = [&] {
    const RunFrame& frame = stepper.step();
    log.write(frame.stats, frame.measures, frame.demo_values);
  };
  // Warm-up: the lists grow geometrically to the busiest frame seen, the narrow phase's hit
  // pool last, as deep descents of many collisions at once come along.
  for (int i = 0; i < 200; ++i) step_and_write();
  const long before = test::allocations();
  for (int i = 0; i < 1000; ++i) step_and_write();
  CHECK(test::allocations() - before == 0);
  CHECK(log.rows() == 1200);
}

TEST_CASE("FrameLog: columns, one row per frame, summaries per column", "[record][frame_log]") {
  WorldSettings w;
  EntityGroupSettings balls;
  balls.count = 10;
  w.entities = {balls};
  Animation world(w, 1);
  test::TempDir dir;
  {
    FrameLog log((dir / "frames.csv").string());
    for (int i = 0; i < 3; ++i) log.write(world.step(), {1.5});
    const auto summary = log.column_summaries();
    CHECK(summary["kinetic_energy_j"]["mean"] == 1.5);
    CHECK(summary["entities"]["max"] == 10);
    CHECK_FALSE(summary.contains("frame"));
    CHECK_FALSE(summary.contains("gaze_source"));  // text
    CHECK(summary["gaze_valid"]["min"] == 1);
    CHECK(log.quantile_stride() == 1);
  }
  const std::string csv = test::read_file(dir / "frames.csv");
  // The default fixed gaze: the screen's centre, valid, no age, nothing dropped.
  CHECK(csv.find("\n0,0.01,10,1.5,0,0,0,0,960,540,fixed,1,0,0,960,540,0,0,960,540,") != std::string::npos);
  CHECK(csv.rfind("frame,sim_time_s,entities,kinetic_energy_j,potential_energy_j,pairs,pairs_started,pairs_stopped,gaze_x_px,"
                  "gaze_y_px,gaze_source,gaze_valid,gaze_age_ms,gaze_dropped,gaze_tracked_x_px,gaze_tracked_y_px,gaze_tracked_age_ms,"
                  "gaze_saccade,gaze_landing_x_px,gaze_landing_y_px,gaze_collision_deg,collisions,resolved_colliding,"
                  "resolved_not_colliding,interrupted,sphere_tests,budget_exhausted,budget_overshoot_us,nabla_est,p_est,p_est_supra,"
                  "episodes_ended,p_episodes_est,contacts,wall_contacts,contact_points,"
                  "deepest_contact_m,contact_tests,contact_energy_j,bounces_limited,compressions_limited,integrate_ms,broadphase_ms,narrowphase_ms,response_ms,metrics_ms,frame_ms\n0,0.01,10,1.5,",
                  0) == 0);
}

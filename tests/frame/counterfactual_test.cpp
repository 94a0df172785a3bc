#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/budget.hpp"
#include "frame/animation.hpp"
#include "support/scenes.hpp"

using namespace fovea;

namespace {

/// 004's hard case, small (test::starved_packed_rocks), scheduled by 004's priority queues.
AnimationSettings packed_rocks() {
  AnimationSettings s = test::starved_packed_rocks();
  s.schedule.kind = SchedulerKind::priority_queues;
  return s;
}

/// Rocks falling into a pile (configs/examples/pile.yaml, shorter): contacts that last from
/// frame to frame, where coherence across frames engages. The response on, gravity on.
AnimationSettings pile() {
  AnimationSettings s = test::world_of({1.5, 4, 1.5}, {test::pile_rocks()});
  s.response.gravity_mps2 = {0, -9.81, 0};
  s.budget.mode = BudgetMode::unlimited;
  return s;
}

bool same_bytes(std::span<const EntityState> a, std::span<const EntityState> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

/// Equal as numbers, NaN equal to NaN (a value not computed in both).
bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// Every metric a frame records, compared exactly; `with_missed`: missed_collisions too
/// (the evaluation does not count it).
void check_same_metrics(const FrameMetrics& a, const FrameMetrics& b, bool with_missed) {
  CHECK(a.resolved_colliding == b.resolved_colliding);
  CHECK(a.resolved_not_colliding == b.resolved_not_colliding);
  CHECK(a.interrupted == b.interrupted);
  CHECK(same(a.nabla_est_m, b.nabla_est_m));
  CHECK(same(a.p_est, b.p_est));
  CHECK(same(a.nabla_true_m, b.nabla_true_m));
  CHECK(same(a.p_true, b.p_true));
  CHECK(a.false_collisions == b.false_collisions);
  if (with_missed) CHECK(a.missed_collisions == b.missed_collisions);
  CHECK(same(a.p_est_supra, b.p_est_supra));
  CHECK(same(a.p_true_supra, b.p_true_supra));
  CHECK(same(a.p_est_visible, b.p_est_visible));
  CHECK(same(a.p_true_visible, b.p_true_visible));
  CHECK(a.episodes_ended == b.episodes_ended);
  CHECK(same(a.p_episodes_est, b.p_episodes_est));
  CHECK(same(a.p_episodes_true, b.p_episodes_true));
  CHECK(same(a.gaze_collision_deg, b.gaze_collision_deg));
}

}  // namespace

TEST_CASE("Counterfactual evaluation: evaluating schedulers on the side changes nothing in the world",
          "[frame][evaluation][determinism]") {
  const AnimationSettings plain = packed_rocks();
  AnimationSettings evaluated = plain;
  evaluated.evaluate.schedulers = {SchedulerKind::round_robin, SchedulerKind::sequential,
                                   SchedulerKind::sorted_sequential, SchedulerKind::priority_queues};
  BudgetSettings fraction;
  fraction.mode = BudgetMode::fraction;
  fraction.fraction = 0.3;
  BudgetSettings unlimited;
  unlimited.mode = BudgetMode::unlimited;
  BudgetSettings starved;
  starved.tests = 100;
  evaluated.evaluate.budgets = {starved, fraction, unlimited};

  Animation a(plain, 3), b(evaluated, 3);
  std::int64_t interrupted = 0;
  for (int frame = 0; frame < 80; ++frame) {
    INFO("frame " << frame);
    const FrameStats sa = a.step();
    const FrameStats sb = b.step();
    REQUIRE(b.evaluation().frames().size() == 4 * 3);
    REQUIRE(same_bytes(a.states(), b.states()));
    CHECK(sa.collisions == sb.collisions);
    CHECK(sa.sphere_tests == sb.sphere_tests);
    CHECK(sa.budget_exhausted == sb.budget_exhausted);
    CHECK(sa.response.contacts == sb.response.contacts);
    check_same_metrics(sa.metrics, sb.metrics, true);
    interrupted += sa.metrics.interrupted;
  }
  CHECK(interrupted > 0);  // the budget was starved: the schedulers had something to decide
}

TEST_CASE("Counterfactual evaluation: the driver's own scheduler and budget, evaluated, measure what the driver did",
          "[frame][evaluation]") {
  // With coherence and refined priorities each arm keeps its own memory of its last frame
  // and the driver its own: an arm that is the driver's scheduler and budget starts each
  // frame from what the driver's did, so it still measures what the driver did. The pile has
  // contacts that last, where coherence engages, and a budget some frames stay within.
  // Aged and fast priorities (prioritise/fast_priority.hpp) too: the arm ages from its own
  // memory and places for its order as the driver's prioritise stage and reprioritiser do.
  struct Case {
    SchedulerKind kind;
    bool coherence_and_refined;
    bool in_pile;  ///< else packed rocks
    bool aging = false;
    bool fast = false;
  };
  for (const Case& each : {Case{SchedulerKind::round_robin, false, false}, Case{SchedulerKind::priority_queues, false, false},
                           Case{SchedulerKind::round_robin, true, false}, Case{SchedulerKind::priority_queues, true, false},
                           Case{SchedulerKind::hybrid, true, false}, Case{SchedulerKind::sequential, true, true},
                           Case{SchedulerKind::priority_queues, true, true}, Case{SchedulerKind::hybrid, true, true},
                           Case{SchedulerKind::sorted_sequential, true, false, true, false},
                           Case{SchedulerKind::sorted_sequential, false, false, true, true},
                           Case{SchedulerKind::hybrid, true, false, true, true}, Case{SchedulerKind::hybrid, true, true, true, false}}) {
    const SchedulerKind kind = each.kind;
    INFO(scheduler_name(kind) << (each.coherence_and_refined ? ", coherence and refined priorities" : "")
                              << (each.in_pile ? ", pile" : ", packed rocks") << (each.aging ? ", aged" : "")
                              << (each.fast ? ", fast" : ""));
    AnimationSettings settings = packed_rocks();
    if (each.in_pile) {
      settings = pile();
      settings.budget.mode = BudgetMode::work;
      settings.budget.tests = 9000;
      settings.ground_truth = true;
    }
    settings.schedule.kind = kind;
    settings.narrowphase.coherence = each.coherence_and_refined;
    if (each.coherence_and_refined) settings.schedule.priorities = PriorityGap::refined;
    settings.schedule.aging = each.aging;
    settings.schedule.fast_priorities = each.fast;
    settings.evaluate.schedulers = {SchedulerKind::sorted_sequential, kind};  // the run's budget
    Animation world(settings, 5);
    double p_true = 0;
    int exhausted = 0;
    bool diverged = false;
    const int frames = each.in_pile ? 200 : 60;
    for (int frame = 0; frame < frames; ++frame) {
      INFO("frame " << frame);
      const FrameStats stats = world.step();
      const std::span<const EvaluatedFrame> rows = world.evaluation().frames();
      REQUIRE(rows.size() == 2);
      const EvaluatedFrame& own = rows[1];
      CHECK(own.scheduler == kind);
      CHECK(own.budget_tests == settings.budget.tests);
      CHECK(own.sphere_tests == stats.sphere_tests);
      CHECK(own.budget_exhausted == stats.budget_exhausted);
      check_same_metrics(own.metrics, stats.metrics, false);
      p_true += stats.metrics.p_true;
      exhausted += stats.budget_exhausted ? 1 : 0;
      // Once apart they stay apart: the first frame says it.
      diverged = own.sphere_tests != stats.sphere_tests || own.metrics.interrupted != stats.metrics.interrupted;
      if (diverged) break;
    }
    if (diverged) continue;
    CHECK(p_true > 0);
    CHECK(exhausted > 0);
    if (each.in_pile) CHECK(exhausted < frames);
  }
}

TEST_CASE("Counterfactual evaluation: fraction budgets are shares of the frame's full resolution, measured",
          "[frame][evaluation]") {
  AnimationSettings settings = packed_rocks();
  settings.budget.mode = BudgetMode::unlimited;  // the driver at full resolution
  settings.evaluate.schedulers = {SchedulerKind::round_robin};
  BudgetSettings quarter, whole;
  quarter.mode = whole.mode = BudgetMode::fraction;
  quarter.fraction = 0.25;
  whole.fraction = 1.0;
  settings.evaluate.budgets = {quarter, whole};
  Animation world(settings, 7);
  std::int64_t quarter_interrupted = 0;
  for (int frame = 0; frame < 50; ++frame) {
    INFO("frame " << frame);
    const FrameStats stats = world.step();
    // An unlimited driver resolves everything; full resolution is what it spent.
    CHECK_FALSE(stats.budget_exhausted);
    CHECK(stats.metrics.interrupted == 0);
    CHECK(stats.metrics.p_est == 0);
    CHECK(world.evaluation().full_resolution_tests() == stats.sphere_tests);
    const std::span<const EvaluatedFrame> rows = world.evaluation().frames();
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].budget_tests == std::llround(0.25 * static_cast<double>(stats.sphere_tests)));
    CHECK(rows[0].sphere_tests >= std::min(rows[0].budget_tests, stats.sphere_tests));
    CHECK(rows[0].sphere_tests <= stats.sphere_tests);
    quarter_interrupted += rows[0].metrics.interrupted;
    CHECK(rows[1].budget_tests == stats.sphere_tests);
    CHECK(rows[1].sphere_tests == stats.sphere_tests);
    CHECK(rows[1].metrics.interrupted == 0);
    CHECK(rows[1].metrics.p_true == 0);
  }
  CHECK(quarter_interrupted > 0);
}

TEST_CASE("Frame metrics: suprathreshold P, visible P and the fixation's distance to the action, against the collisions",
          "[frame][metrics]") {
  AnimationSettings settings = packed_rocks();
  settings.metrics.min_f = 0.05;
  Animation world(settings, 11);
  double p_true = 0, p_visible = 0;
  for (int frame = 0; frame < 60; ++frame) {
    INFO("frame " << frame);
    const FrameStats stats = world.step();
    const NarrowPhase& np = world.narrowphase();
    double supra_true = 0, supra_est = 0;
    double nearest_deg = std::numeric_limits<double>::quiet_NaN();
    for (const std::uint32_t slot : np.order()) {
      const Collision& c = np.collision(slot);
      if (c.visible && !(nearest_deg <= c.eccentricity_deg)) nearest_deg = c.eccentricity_deg;
      if (!(c.status == CollisionStatus::colliding && c.interrupted)) continue;
      const double f_true = world.meter().truth(slot).probability;
      if (f_true >= settings.metrics.min_f) supra_true += f_true;
      if (c.probability >= settings.metrics.min_f) supra_est += c.probability;
    }
    CHECK(stats.metrics.p_true_supra == Approx(supra_true).margin(1e-12));
    CHECK(stats.metrics.p_est_supra == Approx(supra_est).margin(1e-12));
    CHECK(same(stats.metrics.gaze_collision_deg, nearest_deg));
    CHECK(stats.metrics.p_true_supra <= stats.metrics.p_true + 1e-12);
    CHECK(stats.metrics.p_true_visible <= stats.metrics.p_true + 1e-12);
    CHECK(stats.metrics.p_est_visible <= stats.metrics.p_est + 1e-12);
    p_true += stats.metrics.p_true;
    p_visible += stats.metrics.p_true_visible;
  }
  // Packed rocks hide some of each other's gaps, not all.
  CHECK(p_visible > 0);
  CHECK(p_visible < p_true);
}

TEST_CASE("Frame metrics: without the visibility test or ground truth, their columns are not numbers",
          "[frame][metrics]") {
  AnimationSettings settings = packed_rocks();
  settings.metrics.visibility = VisibilityKind::none;
  settings.ground_truth = false;
  Animation world(settings, 2);
  for (int frame = 0; frame < 5; ++frame) {
    const FrameStats stats = world.step();
    CHECK(std::isnan(stats.metrics.p_est_visible));
    CHECK(std::isnan(stats.metrics.p_true_visible));
    CHECK(std::isnan(stats.metrics.p_true_supra));
    CHECK(std::isnan(stats.metrics.p_episodes_true));
    CHECK_FALSE(std::isnan(stats.metrics.p_est_supra));
  }
}

TEST_CASE("Counterfactual evaluation: other trees run on the same collisions, and a set like the run's own gives its rows",
          "[frame][evaluation][spheretree]") {
  const AnimationSettings plain = packed_rocks();
  AnimationSettings evaluated = plain;
  evaluated.evaluate.schedulers = {SchedulerKind::round_robin, SchedulerKind::priority_queues};
  BudgetSettings fraction;
  fraction.mode = BudgetMode::fraction;
  fraction.fraction = 0.2;
  BudgetSettings unlimited;
  unlimited.mode = BudgetMode::unlimited;
  evaluated.evaluate.budgets = {fraction, unlimited};
  EvaluatedTreeSettings own;  // the run's own: octree, cell spheres
  EvaluatedTreeSettings medial;
  medial.builder = SphereTreeBuilder::medial;
  evaluated.evaluate.trees = {own, medial};

  Animation a(plain, 4), b(evaluated, 4);
  std::int64_t medial_full = 0, run_full = 0;
  for (int frame = 0; frame < 60; ++frame) {
    INFO("frame " << frame);
    const FrameStats sa = a.step();
    b.step();
    // The world goes on with its own trees, untouched by the other sets.
    REQUIRE(same_bytes(a.states(), b.states()));
    const std::vector<Animation::TreeEvaluationView> views = b.evaluations();
    REQUIRE(views.size() == 3);
    CHECK(views[0].tree == "run");
    CHECK(views[1].tree == "octree");
    CHECK(views[2].tree == "medial");
    const std::span<const EvaluatedFrame> run_rows = views[0].evaluation->frames();
    const std::span<const EvaluatedFrame> octree_rows = views[1].evaluation->frames();
    const std::span<const EvaluatedFrame> medial_rows = views[2].evaluation->frames();
    REQUIRE(run_rows.size() == 4);
    REQUIRE(octree_rows.size() == 4);
    REQUIRE(medial_rows.size() == 4);
    // The same trees, built again for the set: the same rows, to the bit.
    CHECK(views[1].evaluation->full_resolution_tests() == views[0].evaluation->full_resolution_tests());
    for (std::size_t r = 0; r < run_rows.size(); ++r) {
      CHECK(octree_rows[r].sphere_tests == run_rows[r].sphere_tests);
      CHECK(octree_rows[r].budget_tests == run_rows[r].budget_tests);
      check_same_metrics(octree_rows[r].metrics, run_rows[r].metrics, false);
    }
    // Medial trees on the same collisions: every collision has an outcome at full
    // resolution, and the truth (which does not depend on the trees) agrees.
    const FrameMetrics& run_full_metrics = run_rows[1].metrics;
    const FrameMetrics& medial_full_metrics = medial_rows[1].metrics;
    CHECK(medial_full_metrics.interrupted == 0);
    CHECK(medial_full_metrics.resolved_colliding + medial_full_metrics.resolved_not_colliding == sa.collisions);
    CHECK(run_full_metrics.resolved_colliding + run_full_metrics.resolved_not_colliding == sa.collisions);
    medial_full += views[2].evaluation->full_resolution_tests();
    run_full += views[0].evaluation->full_resolution_tests();
  }
  CHECK(medial_full > 0);
  CHECK(medial_full != run_full);  // other trees, other work
}

TEST_CASE("Counterfactual evaluation: at full resolution coherence leaves the world exactly as without it",
          "[frame][coherence][determinism]") {
  // The response gets the plain descent's contact pairs for a collision coherence resolved,
  // so the same poses give the same contacts and the same next poses; only the tests differ.
  // Packed rocks bounce apart; the pile's contacts last, where coherence engages most.
  for (const bool in_pile : {false, true}) {
    INFO((in_pile ? "pile" : "packed rocks"));
    AnimationSettings plain = in_pile ? pile() : packed_rocks();
    plain.budget.mode = BudgetMode::unlimited;
    plain.ground_truth = false;
    plain.metrics.visibility = VisibilityKind::none;
    AnimationSettings coherent = plain;
    coherent.narrowphase.coherence = true;
    Animation a(plain, 6), b(coherent, 6);
    int cheaper = 0;
    std::int64_t contacts = 0;
    for (int frame = 0; frame < (in_pile ? 200 : 80); ++frame) {
      INFO("frame " << frame);
      const FrameStats sa = a.step();
      const FrameStats sb = b.step();
      REQUIRE(same_bytes(a.states(), b.states()));
      CHECK(sa.collisions == sb.collisions);
      CHECK(sa.response.contacts == sb.response.contacts);
      CHECK(sa.metrics.resolved_colliding == sb.metrics.resolved_colliding);
      CHECK(sa.metrics.resolved_not_colliding == sb.metrics.resolved_not_colliding);
      CHECK(sb.metrics.interrupted == 0);
      cheaper += sb.sphere_tests < sa.sphere_tests ? 1 : 0;
      contacts += sa.response.contacts - sa.response.wall_contacts;
    }
    CHECK(contacts > 0);  // the response had contacts between entities to get right
    CHECK(cheaper > 0);   // coherence engaged
  }
}

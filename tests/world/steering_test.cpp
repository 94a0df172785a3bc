// Crowd steering (world/steering.hpp): arrival against a hand computation, the acceleration
// bound, upright yaw-only walkers facing their velocity, and crowds.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/rng.hpp"
#include "support/allocation_counter.hpp"
#include "world/steering.hpp"

using namespace fovea;

namespace {

constexpr double kDt_s = 1.0 / 60.0;
constexpr double kStandingHeight_m = 0.9;

double horizontal_speed_mps(const EntityState& s) {
  return std::hypot(s.linear_velocity_mps.x, s.linear_velocity_mps.z);
}
double horizontal_distance_m(const EntityState& s, const Vec3& goal_m) {
  return std::hypot(goal_m.x - s.position_m.x, goal_m.z - s.position_m.z);
}

/// One frame as the demo runs it: steer, then move (x += v dt, the integrator's first half).
SteeringStats frame(std::vector<EntityState>& states, const std::vector<std::uint32_t>& ids,
                    const std::vector<SteeringAgent>& agents) {
  const SteeringStats stats = steer_agents(states, ids, agents, kStandingHeight_m, kDt_s);
  for (std::uint32_t id : ids) states[id].position_m += states[id].linear_velocity_mps * kDt_s;
  return stats;
}

bool finite(const EntityState& s) {
  const auto ok = [](const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); };
  const Quat& q = s.orientation;
  return ok(s.position_m) && ok(s.linear_velocity_mps) && ok(s.angular_velocity_radps) && std::isfinite(q.w) &&
         std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z);
}

/// Upright: +y stays +y, the walker stands at its height with no vertical or angular motion.
void check_upright(const EntityState& s) {
  const Vec3 up = s.orientation * Vec3(0, 1, 0);
  CHECK(std::abs(up.x) <= 1e-12);
  CHECK(std::abs(up.y - 1.0) <= 1e-12);
  CHECK(std::abs(up.z) <= 1e-12);
  CHECK(s.position_m.y == kStandingHeight_m);
  CHECK(s.linear_velocity_mps.y == 0.0);
  CHECK(s.angular_velocity_radps == Vec3(0.0));
}

/// Facing the horizontal velocity when moving (the humanoid faces +z).
void check_facing(const EntityState& s) {
  const double speed_mps = horizontal_speed_mps(s);
  if (speed_mps <= kFacingSpeed_mps) return;
  const Vec3 forward = s.orientation * Vec3(0, 0, 1);
  CHECK(std::abs(forward.x - s.linear_velocity_mps.x / speed_mps) <= 1e-12);
  CHECK(std::abs(forward.z - s.linear_velocity_mps.z / speed_mps) <= 1e-12);
}

}  // namespace

TEST_CASE("Steering: one walker reaches its goal and stops there in the time a hand computation gives",
          "[world][steering]") {
  SteeringAgent agent;
  agent.goal_m = Vec3(6, 0, 8);  // 10 m away
  agent.preferred_speed_mps = 1.3;
  agent.max_acceleration_mps2 = 1.5;
  agent.arrive_radius_m = 1.5;  // above v^2 / a = 1.13 m: the ramp never asks for more than a
  std::vector<EntityState> states(1);
  states[0].position_m = Vec3(0, kStandingHeight_m, 0);
  const std::vector<std::uint32_t> ids{0};
  const std::vector<SteeringAgent> agents{agent};

  // Accelerate to v at a (v / a, covering v^2 / 2a), cruise to the arrive radius, then the
  // linear ramp: d' = -(v / R) d, so d = R exp(-v t / R) reaches a tolerance e after
  // (R / v) ln(R / e).
  const double v = agent.preferred_speed_mps, a = agent.max_acceleration_mps2, r = agent.arrive_radius_m;
  constexpr double kTolerance_m = 0.01;
  const double accelerate_s = v / a;
  const double cruise_s = (10.0 - r - v * v / (2 * a)) / v;
  const double ramp_s = (r / v) * std::log(r / kTolerance_m);
  const double expected_s = accelerate_s + cruise_s + ramp_s;

  double arrived_s = -1;
  double max_speed_mps = 0;
  for (int step = 1; step <= 3000 && arrived_s < 0; ++step) {
    frame(states, ids, agents);
    max_speed_mps = std::max(max_speed_mps, horizontal_speed_mps(states[0]));
    if (horizontal_distance_m(states[0], agent.goal_m) < kTolerance_m) arrived_s = step * kDt_s;
  }
  INFO("expected " << expected_s << " s, arrived " << arrived_s << " s");
  CHECK(arrived_s == Approx(expected_s).epsilon(0.01));
  CHECK(max_speed_mps <= v * (1 + 1e-12));
  CHECK(max_speed_mps >= v * (1 - 1e-12));  // it does cruise
  // And stays: ten more seconds, still there and all but still.
  for (int step = 0; step < 600; ++step) frame(states, ids, agents);
  CHECK(horizontal_distance_m(states[0], agent.goal_m) < 1e-3);
  CHECK(horizontal_speed_mps(states[0]) < 1e-3);
  check_upright(states[0]);
  CHECK(finite(states[0]));
}

TEST_CASE("Steering: the horizontal velocity never changes faster than the acceleration limit", "[world][steering]") {
  Rng rng(3);
  std::vector<EntityState> states(40);
  std::vector<std::uint32_t> ids;
  std::vector<SteeringAgent> agents;
  for (std::uint32_t i = 0; i < 40; ++i) {
    SteeringAgent agent;
    agent.goal_m = Vec3(rng.uniform(-20, 20), 0, rng.uniform(-20, 20));
    agent.preferred_speed_mps = rng.uniform(0.8, 2.0);
    agent.max_acceleration_mps2 = rng.uniform(0.5, 3.0);
    agent.arrive_radius_m = rng.uniform(0.0, 2.0);  // some too short to stop in: they overshoot and come back
    agents.push_back(agent);
    ids.push_back(i);
    // Starting with velocities the physics might leave: any direction, vertical and spin included.
    states[i].position_m = Vec3(rng.uniform(-20, 20), rng.uniform(0, 2), rng.uniform(-20, 20));
    states[i].linear_velocity_mps = rng.unit_vector() * rng.uniform(0.0, 4.0);
    states[i].angular_velocity_radps = rng.unit_vector();
    states[i].orientation = rng.rotation();
  }
  double worst_ratio = 0;
  for (int step = 0; step < 1200; ++step) {
    const std::vector<EntityState> before = states;
    frame(states, ids, agents);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const Vec3 change = states[i].linear_velocity_mps - before[i].linear_velocity_mps;
      const double horizontal_change_mps = std::hypot(change.x, change.z);
      worst_ratio = std::max(worst_ratio, horizontal_change_mps / (agents[i].max_acceleration_mps2 * kDt_s));
    }
  }
  CHECK(worst_ratio <= 1 + 1e-9);
  CHECK(worst_ratio >= 1 - 1e-9);  // the bound is reached, so the check above means something
}

TEST_CASE("Steering: walkers stay upright, yaw only, and face their velocity", "[world][steering]") {
  Rng rng(4);
  std::vector<EntityState> states(20);
  std::vector<std::uint32_t> ids;
  std::vector<SteeringAgent> agents;
  for (std::uint32_t i = 0; i < 20; ++i) {
    SteeringAgent agent;
    agent.goal_m = Vec3(rng.uniform(-10, 10), 5, rng.uniform(-10, 10));  // the goal's height does not matter
    agents.push_back(agent);
    ids.push_back(i);
    states[i].position_m = Vec3(rng.uniform(-10, 10), 3, rng.uniform(-10, 10));
    states[i].orientation = rng.rotation();  // knocked over
    states[i].angular_velocity_radps = rng.unit_vector() * 5.0;
    states[i].linear_velocity_mps = rng.unit_vector();
  }
  // One walker lying with its face up: +z points along +y, the heading comes from +x.
  states[0].orientation = glm::angleAxis(-0.5 * 3.141592653589793, Vec3(1, 0, 0));
  states[0].linear_velocity_mps = Vec3(0.0);
  states[0].position_m = Vec3(agents[0].goal_m.x, 0, agents[0].goal_m.z);
  for (int step = 0; step < 900; ++step) {
    frame(states, ids, agents);
    for (const EntityState& s : states) {
      check_upright(s);
      check_facing(s);
    }
  }
  const Vec3 forward = states[0].orientation * Vec3(0, 0, 1);
  CHECK(std::abs(forward.y) <= 1e-12);
  CHECK(std::abs(glm::length(forward) - 1.0) <= 1e-12);
}

TEST_CASE("Steering: a walker already at its goal stays, NaN-free, with its heading", "[world][steering]") {
  std::vector<EntityState> states(3);
  std::vector<SteeringAgent> agents(3);
  agents[0].goal_m = Vec3(1, 0, 2);
  agents[1].goal_m = Vec3(1, 0, 2);
  agents[1].arrive_radius_m = 0;  // no ramp at all
  agents[2].goal_m = Vec3(-4, 0, 0);
  agents[2].max_acceleration_mps2 = 0;  // cannot change its velocity
  const double yaw_rad = 0.7;
  for (std::size_t i = 0; i < 3; ++i) {
    states[i].position_m = Vec3(agents[i].goal_m.x, kStandingHeight_m, agents[i].goal_m.z);
    states[i].orientation = glm::angleAxis(yaw_rad, Vec3(0, 1, 0));
  }
  const std::vector<std::uint32_t> ids{0, 1, 2};
  for (int step = 0; step < 100; ++step) {
    const SteeringStats stats = frame(states, ids, agents);
    CHECK(stats.arrived == 3);
    CHECK(stats.moving == 0);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("walker " << i);
    CHECK(finite(states[i]));
    CHECK(states[i].linear_velocity_mps == Vec3(0.0));
    CHECK(states[i].position_m == Vec3(agents[i].goal_m.x, kStandingHeight_m, agents[i].goal_m.z));
    const Vec3 forward = states[i].orientation * Vec3(0, 0, 1);
    CHECK(forward.x == Approx(std::sin(yaw_rad)).margin(1e-12));
    CHECK(forward.z == Approx(std::cos(yaw_rad)).margin(1e-12));
  }
}

TEST_CASE("Steering: a crowd with different goals each arrive, deterministically, allocating nothing",
          "[world][steering]") {
  const auto run = [](std::vector<EntityState>& states, long& allocations) {
    Rng rng(5);
    constexpr std::uint32_t kWalkers = 60;
    // Every other entity is a rock steering must leave alone.
    states.assign(2 * kWalkers, EntityState{});
    std::vector<std::uint32_t> ids;
    std::vector<SteeringAgent> agents;
    for (std::uint32_t i = 0; i < kWalkers; ++i) {
      SteeringAgent agent;
      agent.goal_m = Vec3(rng.uniform(-20, 20), 0, rng.uniform(-20, 20));
      agent.preferred_speed_mps = rng.uniform(1.0, 1.6);
      agent.max_acceleration_mps2 = rng.uniform(1.5, 3.0);
      agent.arrive_radius_m = agent.preferred_speed_mps * agent.preferred_speed_mps / agent.max_acceleration_mps2;
      agents.push_back(agent);
      ids.push_back(2 * i);
      states[2 * i].position_m = Vec3(rng.uniform(-20, 20), 0, rng.uniform(-20, 20));
      states[2 * i + 1].position_m = Vec3(i, 7, 0);
      states[2 * i + 1].linear_velocity_mps = Vec3(0, -1, 0);
    }
    frame(states, ids, agents);
    const long before = test::allocations();
    SteeringStats stats;
    for (int step = 0; step < 60 * 60; ++step) stats = frame(states, ids, agents);  // a minute: 57 m at most to go
    allocations = test::allocations() - before;
    return std::make_pair(stats, agents);
  };
  std::vector<EntityState> states, again;
  long allocations = 0, allocations_again = 0;
  const auto [stats, agents] = run(states, allocations);
  run(again, allocations_again);
  CHECK(allocations == 0);
  CHECK(stats.arrived == agents.size());
  CHECK(stats.moving == 0);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    INFO("walker " << i);
    CHECK(horizontal_distance_m(states[2 * i], agents[i].goal_m) < 1e-3);
    // Untouched: steering changes only the walkers' states (and frame() moves only them).
    CHECK(states[2 * i + 1].position_m == Vec3(static_cast<double>(i), 7, 0));
    CHECK(states[2 * i + 1].linear_velocity_mps == Vec3(0, -1, 0));
  }
  CHECK(std::memcmp(states.data(), again.data(), states.size() * sizeof(EntityState)) == 0);
}

// The baselines of the schedulers study (results/studies/schedulers_v2/README.md): sequential
// orders by a key other than the priority, to measure what ordering by f(e, g) gives.

#include <limits>

#include "core/rng.hpp"
#include "schedule/sequential_by_key.hpp"

namespace fovea {
namespace {

double true_priority_key(const Collision& c, const ScheduleContext&, std::uint64_t) { return c.true_priority; }

/// Nearest the fixation first; off screen last.
double eccentricity_key(const Collision& c, const ScheduleContext&, std::uint64_t) {
  return c.visible ? -c.eccentricity_deg : -std::numeric_limits<double>::infinity();
}

/// A uniform draw from the pair, the frame and the seed (SplitMix64's finaliser): the same
/// order for the same run, whatever the slots, a new one every frame.
double random_key(const Collision& c, const ScheduleContext& context, std::uint64_t seed) {
  const std::uint64_t z = mix64(seed ^ (static_cast<std::uint64_t>(context.frame) * 0x9e3779b97f4a7c15ull) ^
                                 ((static_cast<std::uint64_t>(c.a) << 32) | c.b));
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

}  // namespace

/// The true p of each collision (the oracle's truth, computed by the frame outside the
/// budget): an upper bound on what ordering by a priority can do, not a scheduler a frame
/// could afford.
std::unique_ptr<Scheduler> make_oracle_scheduler(const ScheduleSettings&, std::uint64_t seed) {
  return make_sequential_by_key(SchedulerKind::oracle, true_priority_key, seed);
}

/// Perception without the gap: the distance of the centre of collision from the fixation.
std::unique_ptr<Scheduler> make_eccentricity_scheduler(const ScheduleSettings&, std::uint64_t seed) {
  return make_sequential_by_key(SchedulerKind::eccentricity, eccentricity_key, seed);
}

/// No order at all: what any order beats.
std::unique_ptr<Scheduler> make_random_scheduler(const ScheduleSettings&, std::uint64_t seed) {
  return make_sequential_by_key(SchedulerKind::random, random_key, seed);
}

}  // namespace fovea

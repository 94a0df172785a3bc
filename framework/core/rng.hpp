#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/math.hpp"

namespace fovea {

/// A small, fast, portable random generator (xoshiro256**, seeded through splitmix64).
///
/// fovea does not use <random>'s distributions because their output differs between
/// standard libraries; the generator is specified bit for bit. rotation() and the rock
/// generator also call std::sin / std::cos, which libm versions may round differently in
/// the last bit: a seed gives the same world for the same build and C library (Debian 12's
/// glibc for fovea's own results). Each purpose takes its own stream (seed, stream), so adding a
/// random choice in one part does not shift the numbers another part sees.
class Rng {
 public:
  /// `seed` comes from the config; `stream` names the purpose (see RngStream).
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0);

  /// The next raw 64-bit output of xoshiro256**, every bit uniform.
  std::uint64_t next_u64();
  /// Uniform in [0, 1), 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Uniform integer in [0, n), n > 0, without modulo bias.
  std::uint64_t below(std::uint64_t n);
  /// Uniform direction on the unit sphere (rejection sampling in the cube).
  Vec3 unit_vector();
  /// Uniform random rotation (Shoemake 1992, "Uniform random rotations").
  Quat rotation();

 private:
  std::uint64_t state_[4];
};

/// SplitMix64's finaliser (Steele, Lea and Flood 2014): 64 bits mixed so that nearby inputs
/// give unrelated outputs. Rng seeds from it; a key that must be random yet a pure function
/// of its inputs (the random scheduler's order) is it applied to them.
std::uint64_t mix64(std::uint64_t z);

/// Shuffles `items` in place by Fisher-Yates, drawing with `rng.below`: the same order from
/// the same stream with every standard library, which std::shuffle does not promise.
template <class T>
void fisher_yates(std::vector<T>& items, Rng& rng) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[rng.below(i)]);
}

/// Stream identifiers, one per purpose that draws random numbers.
enum class RngStream : std::uint64_t {
  model_shapes = 1,     ///< generated model shapes (world/model_generators.cpp), split by group and variant
  placement = 2,        ///< where the entities start (frame/animation.cpp), one stream for all groups
  initial_motion = 3,   ///< starting orientations and velocities, split by entity group
  gaze = 4,             ///< the scripted gaze's fixations (gaze/scripted_gaze.cpp)
  demo = 5,  ///< the demos' releases, shapes and cuts (demos/)
  trial_order = 6,      ///< psychophysics/: a block's or a pass's shuffle, split by its number
  trial_direction = 7,  ///< psychophysics/: targets' directions from fixation, split by block or trial
  observer = 8,  ///< the simulated observer's answers (psychophysics/session.hpp)
  evaluation_order = 9,  ///< the order evaluated arms run in under wall budgets (frame/counterfactual.cpp)
  launch_order = 10,  ///< the order `fovea sweep` launches a study's timed runs in (study/launch_order.cpp)
  tracker_noise = 11,  ///< the simulated eye tracker's noise on each sample (gaze/simulated_tracker.cpp)
  gap_interval = 12,  ///< psychophysics/: which interval of a two-interval trial has the gap, and the other's direction, split by trial
};

/// Stream for `purpose`, further split by an index (a group, an entity).
inline std::uint64_t rng_stream(RngStream purpose, std::uint64_t index = 0) {
  return (static_cast<std::uint64_t>(purpose) << 32) ^ index;
}

}  // namespace fovea

#pragma once

// The motion traces of the broad-phase benchmark, defined once: N cubes moving in straight
// lines and reflecting off the walls of a box, regenerated from a seed so every broad phase
// sees exactly the same boxes frame by frame (a recorded trace without storing 100,000 x 300
// boxes). docs/broadphase.md describes them.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "broadphase/sweep_and_prune.hpp"
#include "core/math.hpp"
#include "core/rng.hpp"

namespace fovea::bench {

enum class Layout {
  uniform,  ///< constant density: about half an overlapping pair per entity at any N
  packed,   ///< eight times that density: about four pairs per entity
};

inline const char* layout_name(Layout layout) { return layout == Layout::uniform ? "uniform" : "packed"; }

struct TraceSpec {
  Layout layout = Layout::uniform;
  int entities = 1000;
  int frames = 300;
  double min_half_m = 0.4;       ///< cube half sides, uniform in [min, max]: mean side 1 m
  double max_half_m = 0.6;
  double max_speed_mpf = 0.1;    ///< speeds uniform in [0, max] metres per frame: still to fast
  std::uint64_t seed = 1;

  /// Side of the box the centres move in. Two cubes of mean half side h overlap when their
  /// centres are within 2h on every axis, so the expected pairs are N^2/2 (4h/L)^3; half a
  /// pair per entity gives L = 4h N^(1/3). Packed halves L: eight times the density.
  double box_side_m() const {
    const double mean_half_m = 0.5 * (min_half_m + max_half_m);
    const double uniform_side = 4 * mean_half_m * std::cbrt(static_cast<double>(entities));
    return layout == Layout::uniform ? uniform_side : 0.5 * uniform_side;
  }
};

/// Steps a trace. Boxes are given as SweepAndPrune stores them (floats rounded outward), so
/// all broad phases get the same cubes to the bit and "exactly overlapping" means one thing.
class Trace {
 public:
  explicit Trace(const TraceSpec& spec) : spec_(spec), side_m_(spec.box_side_m()) {
    Rng rng(spec.seed, static_cast<std::uint64_t>(spec.entities) * 2 + (spec.layout == Layout::packed));
    const auto n = static_cast<std::size_t>(spec.entities);
    centre_m_.resize(n);
    velocity_mpf_.resize(n);
    half_m_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      centre_m_[i] = Vec3(rng.uniform(0, side_m_), rng.uniform(0, side_m_), rng.uniform(0, side_m_));
      velocity_mpf_[i] = rng.uniform(0, spec.max_speed_mpf) * rng.unit_vector();
      half_m_[i] = rng.uniform(spec.min_half_m, spec.max_half_m);
    }
    boxes_.resize(n);
    fill_boxes();
  }

  const TraceSpec& spec() const { return spec_; }
  double box_side_m() const { return side_m_; }
  /// The cubes of the current frame.
  const std::vector<Aabb>& boxes() const { return boxes_; }

  void advance() {
    for (std::size_t i = 0; i < centre_m_.size(); ++i) {
      Vec3& c = centre_m_[i];
      Vec3& v = velocity_mpf_[i];
      c += v;
      for (int k = 0; k < 3; ++k) {
        if (c[k] < 0) { c[k] = -c[k]; v[k] = -v[k]; }
        if (c[k] > side_m_) { c[k] = 2 * side_m_ - c[k]; v[k] = -v[k]; }
      }
    }
    fill_boxes();
  }

 private:
  void fill_boxes() {
    for (std::size_t i = 0; i < centre_m_.size(); ++i)
      for (int k = 0; k < 3; ++k) {
        boxes_[i].min_m[k] = bound_key::float_at_or_below(centre_m_[i][k] - half_m_[i]);
        boxes_[i].max_m[k] = bound_key::float_at_or_above(centre_m_[i][k] + half_m_[i]);
      }
  }

  TraceSpec spec_;
  double side_m_;
  std::vector<Vec3> centre_m_;
  std::vector<Vec3> velocity_mpf_;
  std::vector<double> half_m_;
  std::vector<Aabb> boxes_;
};

}  // namespace fovea::bench

#include "metrics/inaccuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/containers.hpp"
#include "core/thread_pool.hpp"
#include "perception/perceived_gap.hpp"

namespace fovea {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Whether the eye sees either end of a gap past every entity but the gap's own two.
bool sees_either_end(const OcclusionQuery& occlusion, const Vec3& eye_m, const Vec3& end_a_m, const Vec3& end_b_m,
                     const Collision& c) {
  return !occlusion.occluded(eye_m, end_a_m, c.a, c.b) || !occlusion.occluded(eye_m, end_b_m, c.a, c.b);
}

/// The ends of an estimated gap: where the segment between the two spheres' centres leaves
/// each sphere, each kept on the segment.
void estimated_gap_ends(const GapEstimate& g, Vec3& end_a_m, Vec3& end_b_m) {
  const Vec3 ab = g.sphere_b_m - g.sphere_a_m;
  const double d = glm::length(ab);
  if (!(d > 0)) {
    end_a_m = g.sphere_a_m;
    end_b_m = g.sphere_b_m;
    return;
  }
  const Vec3 u = ab / d;
  end_a_m = g.sphere_a_m + std::min(g.radius_a_m, d) * u;
  end_b_m = g.sphere_b_m - std::min(g.radius_b_m, d) * u;
}

}  // namespace

void InaccuracyMeter::set_model(ModelId id, const VoxelModel& model, const Vec3& centre_of_mass_model_m) {
  if (!ground_truth_) return;
  if (exact_shapes_.size() <= id) exact_shapes_.resize(id + 1);
  exact_shapes_[id].emplace(model, centre_of_mass_model_m);
}

void InaccuracyMeter::clear_model(ModelId id) {
  if (id < exact_shapes_.size()) exact_shapes_[id].reset();
}

const InaccuracyMeter::ExactAtFrame& InaccuracyMeter::exact_at_frame(const Collision& c, std::uint32_t slot,
                                                                     std::span<const EntityState> states,
                                                                     const Viewing& viewing) {
  ExactAtFrame& e = exact_[slot];
  // Reused within the frame for the same pair: the other evaluations' narrow phases (other
  // schedulers, other trees) hold the same pairs in the same slots, and the check keeps a
  // slot that held another pair from answering for it.
  const bool placed_so = e.placed_model == &viewing.model && e.placed_x_px == viewing.fixation_x_px &&
                        e.placed_y_px == viewing.fixation_y_px;
  if (e.stamp == frame_stamp_ && e.a == c.a && e.b == c.b) {
    if (placed_so) return e;
  } else {
    e = ExactAtFrame{};
    e.stamp = frame_stamp_;
    e.a = c.a;
    e.b = c.b;
    const ExactPose pa{states[c.a].position_m, states[c.a].orientation};
    const ExactPose pb{states[c.b].position_m, states[c.b].orientation};
    e.contact = exact_contact(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
  }
  // The contact is the pair's at these poses; where it is seen depends on the fixation and f.
  e.placed_model = &viewing.model;
  e.placed_x_px = viewing.fixation_x_px;
  e.placed_y_px = viewing.fixation_y_px;
  if (!e.contact.touching) {
    const Vec3 middle = 0.5 * (e.contact.closest_a_m + e.contact.closest_b_m);
    const PerceivedGap p = perceive_gap(viewing.view, viewing.model, viewing.fixation_x_px, viewing.fixation_y_px, middle,
                                        e.contact.closest_a_m, e.contact.closest_b_m, 0.0);
    e.gap_deg = p.gap_deg;
    e.probability = p.probability;
  }
  return e;
}

CollisionTruth InaccuracyMeter::touching_truth(const Collision& c, std::span<const EntityState> states) const {
  // Only whether they touch matters here; the separation is not computed.
  CollisionTruth t;
  t.checked = true;
  t.separation_m = kNaN;
  const ExactPose pa{states[c.a].position_m, states[c.a].orientation};
  const ExactPose pb{states[c.b].position_m, states[c.b].orientation};
  t.touching = exact_touching(*exact_shapes_[c.model_a], pa, *exact_shapes_[c.model_b], pb);
  return t;
}

void InaccuracyMeter::run_exact_tests(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                                      const Viewing& viewing, bool record_truth, ThreadPool& pool) {
  const std::span<const std::uint32_t> order = narrowphase.order();
  pool.for_ranges(order.size(), 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const std::uint32_t slot = order[k];
      const Collision& c = narrowphase.collision(slot);
      if (c.status == CollisionStatus::colliding) {
        exact_at_frame(c, slot, states, viewing);
      } else if (record_truth) {
        truth_[slot] = touching_truth(c, states);
      }
    }
  });
}

void InaccuracyMeter::set_true_priorities(NarrowPhase& narrowphase, std::span<const EntityState> states,
                                         const Viewing& viewing, ThreadPool* pool) {
  if (!ground_truth_) return;
  reserve_geometric(exact_, narrowphase.slot_count());
  exact_.resize(narrowphase.slot_count());
  if (pool != nullptr && pool->size() > 1) {
    const std::span<const std::uint32_t> order = narrowphase.order();
    pool->for_ranges(order.size(), 16, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) exact_at_frame(narrowphase.collision(order[k]), order[k], states, viewing);
    });
  }
  for (const std::uint32_t slot : narrowphase.order()) {
    Collision& c = narrowphase.collision(slot);
    ExactAtFrame& e = exact_[slot];
    exact_at_frame(c, slot, states, viewing);
    // What leaving it unresolved and repulsed would add to p_true: nothing where the voxels
    // touch.
    c.true_priority = e.contact.touching ? 0.0 : e.probability;
  }
}

bool InaccuracyMeter::estimate_seen(const NarrowPhase& narrowphase, std::uint32_t slot,
                                    std::span<const EntityState> states, const MeasureOptions& options) {
  const Collision& c = narrowphase.collision(slot);
  // The estimate's ends follow from the pair it is placed from (or the entities' centres) and
  // the frame's poses alone, so a pair already asked about this frame answers again.
  constexpr std::uint32_t kNoPair = 0xffffffffu;
  SpherePair pair{kNoPair, kNoPair};
  narrowphase.deepest_pair(slot, pair);
  const std::size_t first = static_cast<std::size_t>(slot) * kSeenWays;
  if (estimate_seen_.size() < first + kSeenWays) {
    reserve_geometric(estimate_seen_, first + kSeenWays);
    estimate_seen_.resize(first + kSeenWays);
  }
  std::size_t oldest = first;
  for (std::size_t i = first; i < first + kSeenWays; ++i) {
    const EstimateSeen& e = estimate_seen_[i];
    if (e.stamp == frame_stamp_ && e.a == c.a && e.b == c.b && e.pair.node_a == pair.node_a && e.pair.node_b == pair.node_b)
      return e.seen;
    if (e.stamp < estimate_seen_[oldest].stamp) oldest = i;
  }
  Vec3 end_a, end_b;
  estimated_gap_ends(narrowphase.gap_estimate(slot, states), end_a, end_b);
  const bool seen = sees_either_end(*options.occlusion, options.eye_m, end_a, end_b, c);
  estimate_seen_[oldest] = EstimateSeen{frame_stamp_, c.a, c.b, pair, seen};
  return seen;
}

FrameMetrics InaccuracyMeter::measure(const NarrowPhase& narrowphase, std::span<const EntityState> states,
                                      const Viewing& viewing, const MeasureOptions& options, EpisodeMeter& episodes,
                                      std::size_t entity_count, bool record_truth) {
  FrameMetrics m;
  const std::size_t room = std::max(narrowphase.slot_count(), entity_count);
  if (record_truth) {
    reserve_geometric(truth_, room);
    truth_.resize(narrowphase.slot_count());
  }
  if (ground_truth_) {
    reserve_geometric(exact_, room);
    exact_.resize(narrowphase.slot_count());
  }
  const bool visibility = options.occlusion != nullptr;
  m.nabla_true_m = ground_truth_ ? 0.0 : kNaN;
  m.p_true = ground_truth_ ? 0.0 : kNaN;
  m.p_true_supra = ground_truth_ ? 0.0 : kNaN;
  m.p_est_visible = visibility ? 0.0 : kNaN;
  m.p_true_visible = visibility && ground_truth_ ? 0.0 : kNaN;
  m.gaze_collision_deg = kNaN;
  episode_inputs_.clear();
  reserve_geometric(episode_inputs_, room);
  const bool tested_ahead = ground_truth_ && options.pool != nullptr && options.pool->size() > 1;
  if (tested_ahead) run_exact_tests(narrowphase, states, viewing, record_truth, *options.pool);

  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    if (c.visible && !(m.gaze_collision_deg <= c.eccentricity_deg)) m.gaze_collision_deg = c.eccentricity_deg;
    const bool accepted = c.status == CollisionStatus::colliding;
    if (c.interrupted) {
      ++m.interrupted;
    } else {
      ++(accepted ? m.resolved_colliding : m.resolved_not_colliding);
    }
    const bool unresolved_accepted = accepted && c.interrupted;
    EpisodeInput episode{slot, c.first_frame, unresolved_accepted, 0.0, 0.0};
    if (unresolved_accepted) {
      m.nabla_est_m += c.gap_bound_m;
      m.p_est += c.probability;
      episode.f_est = c.probability;
      if (c.probability >= options.min_f) m.p_est_supra += c.probability;
      if (visibility && c.probability > 0 && estimate_seen(narrowphase, slot, states, options))
        m.p_est_visible += c.probability;
    }

    if (!ground_truth_) {
      if (record_truth) truth_[slot] = CollisionTruth{};
      episode_inputs_.push_back(episode);
      continue;
    }
    if (!accepted) {
      if (record_truth) {
        if (!tested_ahead) truth_[slot] = touching_truth(c, states);
        if (truth_[slot].touching) ++m.missed_collisions;
      }
      episode_inputs_.push_back(episode);
      continue;
    }
    ExactAtFrame& e = exact_[slot];
    exact_at_frame(c, slot, states, viewing);
    if (!e.contact.touching) ++m.false_collisions;
    if (record_truth) {
      CollisionTruth& t = truth_[slot];
      t = CollisionTruth{};
      t.checked = true;
      t.touching = e.contact.touching;
      t.separation_m = e.contact.separation_m;
      if (unresolved_accepted && !e.contact.touching) {
        t.gap_deg = e.gap_deg;
        t.probability = e.probability;
      }
    }
    if (unresolved_accepted && !e.contact.touching) {
      m.nabla_true_m += e.contact.separation_m;
      m.p_true += e.probability;
      episode.f_true = e.probability;
      if (e.probability >= options.min_f) m.p_true_supra += e.probability;
      if (visibility && e.probability > 0) {
        if (e.visible < 0)
          e.visible = sees_either_end(*options.occlusion, options.eye_m, e.contact.closest_a_m, e.contact.closest_b_m, c)
                          ? 1
                          : 0;
        if (e.visible == 1) m.p_true_visible += e.probability;
      }
    }
    episode_inputs_.push_back(episode);
  }

  const EpisodeMeter::Ended ended = episodes.frame(episode_inputs_);
  m.episodes_ended = ended.episodes;
  m.p_episodes_est = ended.p_est;
  m.p_episodes_true = ground_truth_ ? ended.p_true : kNaN;
  return m;
}

}  // namespace fovea

#include "prioritise/fast_priority.hpp"

#include <cmath>
#include <functional>
#include <numbers>

#include "core/thread_pool.hpp"
#include "narrowphase/descent_memory.hpp"
#include "perception/perceived_gap.hpp"

namespace fovea {
namespace {

/// The frame's terms of the fast placement: the camera's axes, focal length and screen, and
/// one degrees-per-pixel scale, the screen centre's (small angles: a pixel's visual angle
/// falls off the axis as cos^2, 1.6 % at 7 degrees, 13 % at 20, which only ordering reads).
struct FastTerms {
  Vec3 position_m, forward, right, up;
  double focal_px, width_px, height_px, fixation_x_px, fixation_y_px, deg_per_px;

  explicit FastTerms(const Viewing& viewing) {
    const View& view = viewing.view;
    const ScreenSettings& screen = view.settings().screen;
    position_m = view.camera_position_m();
    forward = view.camera_forward();
    right = view.camera_right();
    up = view.camera_up();
    focal_px = view.focal_px();
    width_px = screen.width_px;
    height_px = screen.height_px;
    fixation_x_px = viewing.fixation_x_px;
    fixation_y_px = viewing.fixation_y_px;
    const double cm_per_px = 0.5 * (screen.width_cm / screen.width_px + screen.height_cm / screen.height_px);
    deg_per_px = cm_per_px / screen.viewing_distance_cm * (180 / std::numbers::pi);
  }
};

/// A batch of collisions placed the fast way, their f worked out together
/// (PerceptionModel::probabilities), then written as priorities.
class FastPlacer {
 public:
  FastPlacer(NarrowPhase& narrowphase, const Viewing& viewing) : narrowphase_(narrowphase), model_(viewing.model), t_(viewing) {}

  void add(std::uint32_t slot, const GapEstimate& g) {
    // The centre of collision projected (View::project's arithmetic); the gap as its 3D
    // length across the line of sight at the centre's depth, an upper bound on its length on
    // screen; both angles as pixels times the screen centre's scale.
    const Vec3 d = g.centre_m - t_.position_m;
    const double depth = glm::dot(d, t_.forward);
    const double scale = t_.focal_px / depth;
    const double x = 0.5 * t_.width_px + scale * glm::dot(d, t_.right);
    const double y = 0.5 * t_.height_px - scale * glm::dot(d, t_.up);
    const bool visible = depth > View::kNearLimit_m && x >= 0 && x <= t_.width_px && y >= 0 && y <= t_.height_px;
    if (!visible) {
      narrowphase_.collision(slot).priority = -1;
      return;
    }
    const Vec3 w = g.sphere_b_m - g.sphere_a_m;
    const double gap_px = (std::sqrt(glm::dot(w, w)) + g.slack_m) * scale;
    const double dx = x - t_.fixation_x_px, dy = y - t_.fixation_y_px;
    slots_[size_] = slot;
    eccentricity_deg_[size_] = std::sqrt(dx * dx + dy * dy) * t_.deg_per_px;
    gap_deg_[size_] = gap_px * t_.deg_per_px;
    if (++size_ == kCapacity) flush();
  }

  void flush() {
    model_.probabilities(eccentricity_deg_, gap_deg_, f_, size_);
    for (std::size_t i = 0; i < size_; ++i) {
      const double f = f_[i];
      narrowphase_.collision(slots_[i]).priority = f >= 0 ? f : -1.0;  // a NaN is -1, as start_priority says
    }
    size_ = 0;
  }

 private:
  static constexpr std::size_t kCapacity = 64;
  NarrowPhase& narrowphase_;
  const PerceptionModel& model_;
  FastTerms t_;
  std::size_t size_ = 0;
  std::uint32_t slots_[kCapacity];
  double eccentricity_deg_[kCapacity];
  double gap_deg_[kCapacity];
  double f_[kCapacity];
};

}  // namespace

void age_priorities(NarrowPhase& narrowphase, const DescentMemory& memory, std::span<const std::uint32_t> slots) {
  for (const std::uint32_t slot : slots) {
    Collision& c = narrowphase.collision(slot);
    const RememberedDescent* last = memory.recall(slot, c);
    if (last == nullptr || last->unnoticed >= 1 || c.priority < 0) continue;
    c.priority = 1 - (1 - c.priority) * last->unnoticed;
  }
}

void prioritise_for_order(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                          const PriorityOptions& options, std::span<const std::uint32_t> slots, bool from_deepest) {
  // The fast placement reads the frame start's bound even mid-frame: a frontier's bound
  // (NarrowPhase::gap_estimate) costs a pair bound per hit on it, up to 64 a collision after
  // one level, which under a wall budget costs more than it orders (results/studies/realtime).
  const bool frontier = from_deepest && !options.fast;
  const auto estimate = [&](std::uint32_t slot) {
    return tighter_with_memory(narrowphase, slot, states, options.refined_from,
                               frontier ? narrowphase.gap_estimate(slot, states)
                                        : narrowphase.initial_gap_estimate(slot, states));
  };
  if (options.fast) {
    // In chunks over the threads, each with its own placer: each collision is placed and
    // written alone, so the chunks change no bit.
    for_ranges(options.pool, slots.size(), kCollisionsPerTask, [&](std::size_t begin, std::size_t end) {
      FastPlacer placer(narrowphase, viewing);
      for (std::size_t i = begin; i < end; ++i) placer.add(slots[i], estimate(slots[i]));
      placer.flush();
    });
  } else {
    // By reference: a std::function holding the lambda itself would allocate every frame.
    set_priorities(narrowphase, viewing, slots, std::ref(estimate), options.pool);
  }
  if (options.aged_from != nullptr) age_priorities(narrowphase, *options.aged_from, slots);
}

void prioritise_at_frame_start(NarrowPhase& narrowphase, std::span<const EntityState> states, const Viewing& viewing,
                               const PriorityOptions& options) {
  if (options.fast) {
    prioritise_for_order(narrowphase, states, viewing, options, narrowphase.order(), false);
    return;
  }
  perceive_at_frame_start(narrowphase, states, viewing, options.refined_from, options.pool);
  if (options.aged_from != nullptr) age_priorities(narrowphase, *options.aged_from, narrowphase.order());
}

}  // namespace fovea

// The hybrid scheduler: round robin first, so no collision is left at its roots, then by
// priority placed again from what those levels found.

#include <chrono>
#include <stdexcept>
#include <vector>

#include "core/budget.hpp"
#include "schedule/scheduler.hpp"
#include "schedule/sorted_slots.hpp"
#include "schedule/walks.hpp"

namespace fovea {
namespace {

/// Every collision its first `levels` levels in round robin, so none is repulsed at its roots
/// while another is refined to its leaves; then the rest of the budget sequentially by
/// priority, placed again from what those levels found (the reprioritiser), where the gap
/// bounds are much tighter than at the roots.
class HybridScheduler final : public Scheduler {
 public:
  explicit HybridScheduler(const ScheduleSettings& settings)
      : Scheduler(SchedulerKind::hybrid), levels_(settings.hybrid_levels) {}

  void run(NarrowPhase& narrowphase, Budget& budget, const ScheduleContext& context) override {
    collect_active(narrowphase, active_);
    // The first part: `levels_` passes of round robin, one step of every active collision
    // each: a level, or the chain of last frame's deepest pair (coherence), which either
    // resolves the collision, leaves it below that pair, or sends it back to its roots.
    round_robin(narrowphase, budget, active_, levels_);
    // The second part, by priority now; not if the passes spent the budget exactly (the
    // budget learns it is spent only when asked).
    if (budget.was_exhausted() || active_.empty() || budget.exhausted()) return;
    // Under a wall budget, placing the rest costs time the descent could use: where the time
    // left would go mostly to placing them, ordering cannot pay, and the rest goes on in round
    // robin, which costs nothing to order (issue 40). The cost a collision is measured here,
    // frame after frame. A work budget counts sphere tests only: it always orders.
    if (budget.is_wall() && context.reprioritiser != nullptr) {
      const double left_ns = std::chrono::duration<double, std::nano>(budget.deadline() - Budget::Clock::now()).count();
      if (static_cast<double>(active_.size()) * placing_ns_ > kOrderingShare * left_ns) {
        round_robin(narrowphase, budget, active_);
        return;
      }
    }
    if (context.reprioritiser != nullptr) {
      const auto start = Budget::Clock::now();
      context.reprioritiser->reprioritise(narrowphase, active_);
      const double ns = std::chrono::duration<double, std::nano>(Budget::Clock::now() - start).count();
      placing_ns_ = 0.75 * placing_ns_ + 0.25 * ns / static_cast<double>(active_.size());
    }
    order_.sort(narrowphase, active_, [](const Collision& c) { return c.priority; });
    sequential(narrowphase, budget, order_.slots());
  }

 private:
  /// The most of a wall budget's time left that placing the rest may take.
  static constexpr double kOrderingShare = 1.0 / 3.0;
  /// What placing one collision took, ns: a running mean over frames, from a first guess of
  /// about ten sphere tests (docs/perception.md, "What perceiving costs").
  double placing_ns_ = 70;
  int levels_;
  std::vector<std::uint32_t> active_;
  SortedSlots order_;
};

}  // namespace

std::unique_ptr<Scheduler> make_hybrid_scheduler(const ScheduleSettings& settings, std::uint64_t) {
  if (settings.hybrid_levels < 0) throw std::invalid_argument("schedule: hybrid_levels must be >= 0");
  return std::make_unique<HybridScheduler>(settings);
}

}  // namespace fovea

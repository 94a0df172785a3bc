#include "psychophysics/clip_run.hpp"

#include "demos/demo.hpp"
#include "frame/animation.hpp"

namespace fovea {

ClipPlayer::ClipPlayer(const ClipRunSettings& settings, const PerceptionModel& observer,
                       const GazeEnvironment& environment)
    : observer_(observer), clip_frames_(settings.clip_frames) {
  AnimationSettings world = settings.world;
  world.ground_truth = true;
  // The warm-up: full resolution, so every clip of this seed starts from the same state.
  world.budget.mode = BudgetMode::unlimited;
  auto animation = std::make_unique<Animation>(world, settings.world_seed, environment);
  std::unique_ptr<Demo> demo = Demo::make(*animation, settings.demo, settings.world_seed);
  stepper_ = std::make_unique<Stepper>(std::move(animation), std::move(demo));
  for (int i = 0; i < settings.warmup_frames; ++i) stepper_->step();
  ScheduleSettings schedule = world.schedule;
  schedule.kind = settings.scheduler;
  stepper_->world().set_schedule(schedule);
  BudgetSettings budget = world.budget;
  if (settings.budget_tests > 0) {
    budget.mode = BudgetMode::work;
    budget.tests = settings.budget_tests;
  }
  stepper_->world().set_budget(budget);
}

void ClipPlayer::step(std::vector<EpisodeInput>* log) {
  const RunFrame& frame = stepper_->step();
  sphere_tests_ += frame.stats.sphere_tests;
  ++frames_;
  const Animation& world = stepper_->world();
  const NarrowPhase& narrowphase = world.narrowphase();
  inputs_.clear();
  for (const std::uint32_t slot : narrowphase.order()) {
    const Collision& c = narrowphase.collision(slot);
    EpisodeInput in{slot, c.first_frame, c.status == CollisionStatus::colliding && c.interrupted, 0.0, 0.0};
    if (in.unresolved) {
      // The gap the observer sees: the exact voxel test's, at the collision's eccentricity as
      // placed at the frame's end; nothing when off the screen or touching (a real contact).
      const CollisionTruth& truth = world.meter().truth(slot);
      if (c.visible && truth.checked && !truth.touching && truth.gap_deg > 0)
        in.f_true = observer_.probability(c.eccentricity_deg, truth.gap_deg);
    }
    inputs_.push_back(in);
  }
  noticing_.frame(inputs_);
  if (log != nullptr) log->insert(log->end(), inputs_.begin(), inputs_.end());
}

ClipSeen play_clip(const ClipRunSettings& settings, const PerceptionModel& observer,
                   std::vector<std::vector<EpisodeInput>>* log) {
  ClipPlayer player(settings, observer);
  while (!player.done()) {
    std::vector<EpisodeInput>* frame_log = nullptr;
    if (log != nullptr) frame_log = &log->emplace_back();
    player.step(frame_log);
  }
  return player.finish();
}

}  // namespace fovea

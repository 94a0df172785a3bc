#include "run/collision_log.hpp"

namespace fovea {

std::vector<std::string> CollisionLog::columns(bool ground_truth) {
  std::vector<std::string> c = {"frame",       "entity_a",    "entity_b",        "first_frame",      "status",
                                "interrupted", "levels",      "sphere_tests",    "queue",            "priority",
                                "visible",     "centre_x_px", "centre_y_px",     "eccentricity_deg", "gap_bound_m",
                                "gap_deg",     "probability", "episode_frames", "p_episode_est"};
  if (ground_truth)
    for (const char* name : {"touching", "separation_m", "gap_true_deg", "p_true", "p_episode_true"}) c.push_back(name);
  return c;
}

CollisionLog::CollisionLog(const std::string& path, bool ground_truth)
    : ground_truth_(ground_truth), csv_(path, columns(ground_truth)) {}

void CollisionLog::write(std::int64_t frame, const Animation& world) {
  const NarrowPhase& np = world.narrowphase();
  for (const std::uint32_t slot : np.order()) {
    const Collision& c = np.collision(slot);
    csv_.cell(frame)
        .cell(std::int64_t{c.a})
        .cell(std::int64_t{c.b})
        .cell(c.first_frame)
        .cell(c.status == CollisionStatus::colliding ? "colliding" : "not_colliding")
        .cell(std::int64_t{c.interrupted ? 1 : 0})
        .cell(std::int64_t{c.levels_done})
        .cell(c.sphere_tests)
        .cell(std::int64_t{c.queue})
        .cell(c.priority)
        .cell(std::int64_t{c.visible ? 1 : 0});
    // Screen positions of a centre behind the camera mean nothing: empty cells.
    if (c.visible) {
      csv_.cell(c.centre_x_px).cell(c.centre_y_px).cell(c.eccentricity_deg);
    } else {
      csv_.cell_missing().cell_missing().cell_missing();
    }
    csv_.cell(c.gap_bound_m).cell(c.gap_deg).cell(c.probability);
    // The episode it is in (accepted unresolved frame after frame): its frames so far and the
    // chance a viewer has noticed it by now, 1 - prod(1 - f) (metrics/episodes.hpp).
    const EpisodeMeter::Running episode = world.meter().episodes().running(slot, c.first_frame);
    csv_.cell(episode.frames);
    if (episode.frames > 0) {
      csv_.cell(episode.p_est);
    } else {
      csv_.cell_missing();
    }
    if (ground_truth_) {
      const CollisionTruth& t = world.meter().truth(slot);
      csv_.cell(std::int64_t{t.touching ? 1 : 0});
      csv_.cell_or_missing(t.separation_m);
      // The true gap on screen is measured for the collisions accepted unresolved only.
      if (c.interrupted && c.status == CollisionStatus::colliding && !t.touching) {
        csv_.cell(t.gap_deg).cell(t.probability);
      } else {
        csv_.cell_missing().cell_missing();
      }
      if (episode.frames > 0) {
        csv_.cell(episode.p_true);
      } else {
        csv_.cell_missing();
      }
    }
    csv_.end_row(CsvWriter::Flush::later);
  }
  csv_.flush();  // the frame's rows reach the file together
}

}  // namespace fovea

#pragma once

#include <cstdint>
#include <vector>

namespace fovea {

/// One collision's part in a frame's episodes: its slot and the first frame of its overlap
/// (together they name the pair, a slot being reused once a pair stops overlapping), and
/// whether it was accepted unresolved this frame, with its f, estimated and true.
struct EpisodeInput {
  std::uint32_t slot = 0;          ///< the collision's slot in the narrow phase's list
  std::int64_t first_frame = 0;    ///< frame number in which the pair began to overlap
  bool unresolved = false;  ///< accepted unresolved (interrupted and treated as colliding)
  double f_est = 0;         ///< f at the estimated gap; used when unresolved
  double f_true = 0;        ///< f at the true gap (0 when touching or unknown); used when unresolved
};

/// The perceived inaccuracy of episodes (docs/metrics.md, "Episodes"): a pair accepted
/// unresolved over consecutive frames leaves one gap, which a viewer either notices or not.
/// Over an episode of frames 1..n with f_1..f_n, the chance it is noticed is
/// 1 - (1 - f_1) (1 - f_2) ... (1 - f_n), counted once, in the frame the episode ends: the
/// first frame in which the pair is no longer accepted unresolved, or no longer overlaps.
/// 004's P counts f_1 + ... + f_n over the same frames, which exceeds 1 for a long episode.
///
/// Frames are fed in order; an episode still open after the last frame fed is never counted
/// (feed an empty frame to end them all).
/// Independent frames are assumed, as 004's sum assumes.
class EpisodeMeter {
 public:
  /// What ended this frame.
  struct Ended {
    std::int64_t episodes = 0;  ///< episodes that ended in this frame (count)
    double p_est = 0;   ///< sum over the episodes that ended of 1 - prod(1 - f_est)
    double p_true = 0;  ///< the same with the true f
    /// prod over the episodes that ended of prod(1 - f_est), and of prod(1 - f_true): the
    /// chance none of them is noticed (a clip's, psychophysics/clip_observer.hpp)
    double unnoticed_est = 1;
    double unnoticed_true = 1;  ///< prod(1 - f_true) over the same: the chance with the true f
  };

  /// One frame's collisions, each once, any order. Returns the episodes that ended in it.
  Ended frame(const std::vector<EpisodeInput>& collisions);

  /// The episode a collision is in after the last frame fed (collisions.csv's episode columns).
  struct Running {
    std::int64_t frames = 0;  ///< frames it has lasted, this one included; 0: in none (not accepted unresolved)
    double p_est = 0;         ///< 1 - prod(1 - f_est) over them: the chance it has been noticed so far
    double p_true = 0;        ///< the same with the true f
  };
  /// The episode of the collision in `slot` (first overlapping in `first_frame`) after the
  /// last frame fed; frames 0 when it was not accepted unresolved in it.
  Running running(std::uint32_t slot, std::int64_t first_frame) const;

 private:
  struct Open {
    std::int64_t first_frame = 0;
    double unnoticed_est = 1;   ///< prod(1 - f_est) so far
    double unnoticed_true = 1;  ///< prod(1 - f_true) so far
    std::int64_t stamp = -1;    ///< the frame it was last continued in
    std::int64_t frames = 0;    ///< frames it has lasted
    bool open = false;
  };
  std::vector<Open> by_slot_;
  std::vector<std::uint32_t> open_slots_;
  std::vector<std::uint32_t> still_open_;  // scratch
  std::int64_t frame_ = 0;
};

}  // namespace fovea

#pragma once

// The observer of a clip comparison (docs/psychophysics.md, "Clip comparison"): the chance a
// clip's errors are seen, from the episode model (metrics/episodes.hpp, docs/metrics.md
// "Episodes"), and a simulated observer that answers from it so the whole study runs in CI.

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/episodes.hpp"

namespace fovea {

/// What the observer could see of one clip.
struct ClipSeen {
  std::int64_t episodes = 0;           ///< unresolved episodes in the clip, those still open at its end included
  std::int64_t unresolved_frames = 0;  ///< collision-frames accepted unresolved
  double p_seen = 0;                   ///< 1 - prod over the episodes of (1 - p_episode)
};

/// P(an error is seen in a clip) = 1 - prod(1 - p_i) over the clip's unresolved episodes i,
/// p_i = 1 - prod(1 - f) over the episode's frames, f the observer's f(e, g) at the true gap
/// (004 section 3.4.2's f; the episodes of docs/metrics.md). The episodes are independent
/// looks, as the frames within one are. An episode still open when the clip ends counts with
/// the frames it was shown: the gap was on the screen, whether or not it would have lasted.
class ClipNoticing {
 public:
  /// One frame's collisions, each once (EpisodeInput::f_true is the observer's f; f_est is
  /// not used).
  void frame(const std::vector<EpisodeInput>& collisions);
  /// The clip so far, its open episodes ended; call once, after the last frame.
  ClipSeen finish();

 private:
  EpisodeMeter meter_;
  ClipSeen seen_;
  double unnoticed_ = 1;
};

/// The 2IFC answer: which clip the observer says looked wrong.
enum class ClipChoice { first /**< the clip shown first */, second /**< the clip shown second */ };

/// A simulated observer (`fovea experiment --observer model.yaml` on a clip comparison).
/// 2IFC: each clip's error is seen independently with its p_seen; the observer picks the
/// clip seen wrong when exactly one was, and guesses each clip with probability 1/2 when both
/// or neither were. Yes/no: yes with the clip's p_seen. Each answer depends only on the
/// seed, the participant and the trial's index and attempt, so a resumed session answers as
/// an unbroken one would.
class ClipObserver {
 public:
  /// Answers drawn from `seed` mixed with a hash of `participant`: each participant answers differently.
  ClipObserver(std::uint64_t seed, const std::string& participant);
  /// 2IFC: the clip said to look wrong, given each clip's p_seen (probability 0-1).
  ClipChoice two_interval(double p_first, double p_second, int trial, int attempt) const;
  /// Yes/no: true ("I saw an error") with probability `p`, the clip's p_seen.
  bool yes_no(double p, int trial, int attempt) const;

 private:
  std::uint64_t seed_;
};

}  // namespace fovea

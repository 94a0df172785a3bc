#include "metrics/episodes.hpp"

namespace fovea {

EpisodeMeter::Ended EpisodeMeter::frame(const std::vector<EpisodeInput>& collisions) {
  Ended ended;
  const auto close = [&](Open& o) {
    ended.episodes += 1;
    ended.p_est += 1 - o.unnoticed_est;
    ended.p_true += 1 - o.unnoticed_true;
    ended.unnoticed_est *= o.unnoticed_est;
    ended.unnoticed_true *= o.unnoticed_true;
    o.open = false;
  };
  const std::int64_t now = frame_++;
  for (const EpisodeInput& c : collisions) {
    if (!c.unresolved) continue;
    if (by_slot_.size() <= c.slot) by_slot_.resize(c.slot + std::size_t{1});
    Open& o = by_slot_[c.slot];
    if (o.open && o.first_frame != c.first_frame) {
      // The slot was reused by another pair: the old pair stopped overlapping, so its
      // episode ended. The slot is listed already; the new pair's episode starts in it.
      close(o);
      o = Open{c.first_frame, 1, 1, now, 0, true};
    } else if (!o.open) {
      o = Open{c.first_frame, 1, 1, now, 0, true};
      open_slots_.push_back(c.slot);
    }
    o.unnoticed_est *= 1 - c.f_est;
    o.unnoticed_true *= 1 - c.f_true;
    o.stamp = now;
    ++o.frames;
  }
  // The episodes not continued this frame have ended.
  still_open_.clear();
  for (const std::uint32_t slot : open_slots_) {
    Open& o = by_slot_[slot];
    if (o.stamp == now) {
      still_open_.push_back(slot);
    } else {
      close(o);
    }
  }
  open_slots_.swap(still_open_);
  return ended;
}

EpisodeMeter::Running EpisodeMeter::running(std::uint32_t slot, std::int64_t first_frame) const {
  if (slot >= by_slot_.size()) return {};
  const Open& o = by_slot_[slot];
  if (!o.open || o.stamp != frame_ - 1 || o.first_frame != first_frame) return {};
  return {o.frames, 1 - o.unnoticed_est, 1 - o.unnoticed_true};
}

}  // namespace fovea

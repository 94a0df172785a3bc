#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "narrowphase/collision.hpp"

namespace fovea {

/// Every collision's sphere hits of one frame, in one array: a collision's current level is
/// the run [hits_begin, hits_end) of it and the next level it is making the run
/// [next_begin, next_end) (collision.hpp). Cleared at the start of a frame; a step appends its
/// collision's next level as one contiguous run at the end (no other collision runs until it
/// finishes, or until the budget stops everything). It grows geometrically to the largest
/// frame seen, so in the steady state no frame allocates.
class SphereHitPool {
 public:
  /// Empties the pool for a new frame, with room for `expected_hits` (the storage is kept).
  void clear(std::size_t expected_hits) {
    end_ = 0;
    room(expected_hits);
  }
  /// One past the last hit of the pool.
  std::uint32_t end() const { return end_; }
  /// Room for `n` hits past end(): where they go. Pointers into the pool may move (it grows
  /// by doubling, as reserve_geometric).
  SphereHit* room(std::size_t n) {
    if (end_ + n > hits_.size()) grow(n);
    return hits_.data() + end_;
  }
  /// Takes the hits a scan wrote into room() into the pool: end() becomes `end`.
  void set_end(std::uint32_t end) { end_ = end; }
  /// The pool's first hit, for scans that write past end(); moves when room() grows the pool.
  SphereHit* data() { return hits_.data(); }
  /// Hit `i` of the pool, i < end().
  const SphereHit& operator[](std::uint32_t i) const { return hits_[i]; }

  /// Starts collision `c`'s current level as the one hit `first`, at the end of the pool,
  /// with an empty next level after it.
  void start_level(Collision& c, const SphereHit& first) {
    c.hits_begin = c.cursor = end_;
    push(first);
    c.hits_end = c.next_begin = c.next_end = end_;
  }
  /// Makes collision `c`'s next level end at end(), so a scan can append to it: the next
  /// level stays one run of the pool.
  void open_next_run(Collision& c);

  /// The current level's sphere hits of `c`, processed or not.
  std::span<const SphereHit> hits(const Collision& c) const {
    return {hits_.data() + c.hits_begin, c.hits_end - c.hits_begin};
  }
  /// The next level's sphere hits of `c` made so far.
  std::span<const SphereHit> next_hits(const Collision& c) const {
    return {hits_.data() + c.next_begin, c.next_end - c.next_begin};
  }

 private:
  /// Room for `n` more hits past end(), by doubling at least: rare, so out of line.
  void grow(std::size_t n);
  /// By value: `hit` may be in the pool, which room() may move.
  void push(SphereHit hit) {
    *room(1) = hit;
    ++end_;
  }

  // [0, end_) holds the frame's hits. The rest is room, each hit written before it is read:
  // a step scans straight into it, with no resize a hit (NarrowPhase::step).
  std::vector<SphereHit> hits_;
  std::uint32_t end_ = 0;
};

}  // namespace fovea

#include "narrowphase/sphere_hit_pool.hpp"

#include <algorithm>

namespace fovea {

void SphereHitPool::grow(std::size_t n) { hits_.resize(std::max(end_ + n, 2 * hits_.size())); }

void SphereHitPool::open_next_run(Collision& c) {
  const std::uint32_t end = end_;
  if (c.next_begin == c.next_end) {
    c.next_begin = c.next_end = end;
  } else if (c.next_end != end) {
    // Another collision appended since this level began: possible only when a caller
    // resumes this collision after a budget stopped it part-way and something else ran in
    // between (the schedulers never do; tests do). Move the run to the end.
    const std::uint32_t count = c.next_end - c.next_begin;
    for (std::uint32_t i = 0; i < count; ++i) push(hits_[c.next_begin + i]);  // a copy: the pool may move
    c.next_begin = end;
    c.next_end = end + count;
  }
}

}  // namespace fovea

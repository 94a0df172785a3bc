#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace fovea {

/// Room for `n` elements, growing by doubling. reserve(n) alone would allocate again for
/// every new largest size (a list that grows by one pair a frame would allocate every
/// frame); doubling lets a list reach its size in the first frames and stay there, so the
/// frame loop's steady state allocates nothing.
template <class T>
void reserve_geometric(std::vector<T>& v, std::size_t n) {
  if (v.capacity() < n) v.reserve(std::max(n, 2 * v.capacity()));
}

}  // namespace fovea

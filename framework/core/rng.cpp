#include "core/rng.hpp"

#include <cmath>
#include <numbers>

namespace fovea {

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t splitmix64(std::uint64_t& x) { return mix64(x += 0x9e3779b97f4a7c15ULL); }

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed, std::uint64_t stream) {
  // Mix the stream into the seed through splitmix64 so nearby (seed, stream) pairs give
  // unrelated states; xoshiro's state must not be all zero, which splitmix64 never yields
  // for four consecutive outputs.
  std::uint64_t x = seed;
  std::uint64_t mixed = splitmix64(x) ^ (stream * 0xd1342543de82ef95ULL);
  for (auto& s : state_) s = splitmix64(mixed);
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  // Lemire's method would be faster; rejection keeps it obviously unbiased.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do {
    x = next_u64();
  } while (x >= limit);
  return x % n;
}

Vec3 Rng::unit_vector() {
  for (;;) {
    const Vec3 v(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
    const double len2 = glm::dot(v, v);
    if (len2 > 1e-12 && len2 <= 1.0) return v / std::sqrt(len2);
  }
}

Quat Rng::rotation() {
  const double u1 = uniform(), u2 = uniform(), u3 = uniform();
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  const double t2 = 2 * std::numbers::pi * u2, t3 = 2 * std::numbers::pi * u3;
  // glm::dquat(w, x, y, z)
  return glm::normalize(Quat(b * std::cos(t3), a * std::sin(t2), a * std::cos(t2), b * std::sin(t3)));
}

}  // namespace fovea

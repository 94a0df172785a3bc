#include "psychophysics/clip_observer.hpp"

#include "core/hash.hpp"
#include "core/rng.hpp"

namespace fovea {
namespace {

/// A participant's name as a number, the same on every machine (as session.cpp's).
std::uint64_t name_hash(const std::string& name) {
  ByteHash h;
  h.add(name);
  return h.value();
}

Rng answer_stream(std::uint64_t seed, int trial, int attempt) {
  return Rng(seed, rng_stream(RngStream::observer, (static_cast<std::uint64_t>(trial) << 8) |
                                                       static_cast<std::uint64_t>(attempt & 0xff)));
}

}  // namespace

void ClipNoticing::frame(const std::vector<EpisodeInput>& collisions) {
  for (const EpisodeInput& c : collisions) seen_.unresolved_frames += c.unresolved ? 1 : 0;
  const EpisodeMeter::Ended ended = meter_.frame(collisions);
  seen_.episodes += ended.episodes;
  unnoticed_ *= ended.unnoticed_true;
}

ClipSeen ClipNoticing::finish() {
  frame({});  // a frame with no collisions ends every open episode
  seen_.p_seen = 1 - unnoticed_;
  return seen_;
}

ClipObserver::ClipObserver(std::uint64_t seed, const std::string& participant) : seed_(seed ^ name_hash(participant)) {}

ClipChoice ClipObserver::two_interval(double p_first, double p_second, int trial, int attempt) const {
  Rng rng = answer_stream(seed_, trial, attempt);
  const bool first_seen = rng.uniform() < p_first;
  const bool second_seen = rng.uniform() < p_second;
  const bool guess_first = rng.uniform() < 0.5;  // drawn always, so the stream does not depend on the outcome
  if (first_seen != second_seen) return first_seen ? ClipChoice::first : ClipChoice::second;
  return guess_first ? ClipChoice::first : ClipChoice::second;
}

bool ClipObserver::yes_no(double p, int trial, int attempt) const {
  Rng rng = answer_stream(seed_, trial, attempt);
  return rng.uniform() < p;
}

}  // namespace fovea

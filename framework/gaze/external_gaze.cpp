#include "gaze/external_gaze.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/format.hpp"
#include "gaze/gaze.hpp"

namespace fovea {
namespace {

/// "" when `s` can be accepted after a newest accepted time of `newest_time_s` (none when
/// `any` is false), with the run's clock at `clock_s`, else why not.
std::string rejection(const GazeSample& s, bool any, double newest_time_s, double clock_s) {
  if (!std::isfinite(s.time_s)) return "time_s is " + format_number(s.time_s) + ": a sample needs a finite time";
  if (!(s.confidence >= 0 && s.confidence <= 1))
    return "confidence is " + format_number(s.confidence) + ": it must lie in [0, 1]";
  if (s.valid && !std::isfinite(s.x_px))
    return "x_px is " + format_number(s.x_px) + ": a valid sample needs finite coordinates";
  if (s.valid && !std::isfinite(s.y_px))
    return "y_px is " + format_number(s.y_px) + ": a valid sample needs finite coordinates";
  // Before the time order: a time from the far future must not become the newest.
  if (s.time_s > clock_s + ExternalGazeSource::kMaxAheadS)
    return "time_s " + format_number(s.time_s) + " s is more than " + format_number(ExternalGazeSource::kMaxAheadS) +
           " s ahead of the run's clock (" + format_number(clock_s) +
           " s, the frame's time): a glitched time stamp, or one not mapped onto the run's clock";
  if (any && s.time_s < newest_time_s)
    return "time_s " + format_number(s.time_s) + " s is before the newest sample's " + format_number(newest_time_s) +
           " s: samples must come in time order, on the run's clock";
  return "";
}

}  // namespace

void ExternalGazeSource::Ring::push_back(const GazeSample& sample) {
  if (count == kCapacity) pop_front();
  slots[(first + count) % kCapacity] = sample;
  ++count;
}

void ExternalGazeSource::Ring::pop_front() {
  first = (first + 1) % kCapacity;
  --count;
}

bool ExternalGazeSource::push(const GazeSample& sample) {
  const std::lock_guard lock(mutex_);
  std::string why = rejection(sample, any_accepted_, newest_time_s_, clock_s_);
  if (!why.empty()) {
    ++dropped_;
    last_rejection_ = std::move(why);
    return false;
  }
  any_accepted_ = true;
  newest_time_s_ = sample.time_s;
  ahead_.push_back(sample);
  recent_.push_back(sample);
  return true;
}

std::string ExternalGazeSource::last_rejection() const {
  const std::lock_guard lock(mutex_);
  return last_rejection_;
}

GazeSample ExternalGazeSource::sample(double now_s) {
  // The same tolerance Gaze::at grants: a sample it would take as current is due now.
  const double due_by_s = now_s + Gaze::kFutureToleranceMs / 1000.0;
  const std::lock_guard lock(mutex_);
  clock_s_ = std::max(clock_s_, now_s);
  if (ahead_.count == 0) return GazeSample{};
  while (ahead_.count >= 2 && ahead_[1].time_s <= due_by_s) ahead_.pop_front();
  return ahead_[0];
}

std::uint64_t ExternalGazeSource::dropped() const {
  const std::lock_guard lock(mutex_);
  return dropped_;
}

void ExternalGazeSource::take_recent(std::vector<GazeSample>& out) {
  const std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < recent_.count; ++i) out.push_back(recent_[i]);
  recent_.count = 0;
  recent_.first = 0;
}

}  // namespace fovea

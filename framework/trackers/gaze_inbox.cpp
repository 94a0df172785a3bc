#include "trackers/gaze_inbox.hpp"

#include <algorithm>
#include <cmath>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <thread>
#include <utility>

namespace fovea {

void GazeInbox::publish(const GazeSample& given) {
  GazeSample sample = given;
  if (std::isnan(sample.arrival_s)) sample.arrival_s = gaze_wall_clock_s();
  const std::lock_guard lock(mutex_);
  newest_ = sample;
  ring_[ring_next_] = sample;
  ring_next_ = (ring_next_ + 1) % kRecentCapacity;
  ring_count_ = std::min(ring_count_ + 1, kRecentCapacity);
}

void GazeInbox::post(std::string message) {
  const std::lock_guard lock(mutex_);
  if (messages_.size() == kMessageCapacity) messages_.erase(messages_.begin());
  messages_.push_back(std::move(message));
}

GazeSample GazeInbox::newest() const {
  const std::lock_guard lock(mutex_);
  return newest_;
}

void GazeInbox::take_messages(std::vector<std::string>& out) {
  const std::lock_guard lock(mutex_);
  for (auto& m : messages_) out.push_back(std::move(m));
  messages_.clear();
}

void GazeInbox::take_recent(std::vector<GazeSample>& out) {
  const std::lock_guard lock(mutex_);
  const std::size_t first = (ring_next_ + kRecentCapacity - ring_count_) % kRecentCapacity;
  for (std::size_t i = 0; i < ring_count_; ++i) out.push_back(ring_[(first + i) % kRecentCapacity]);
  ring_count_ = 0;
}

void block_signals_on_this_thread() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

bool sleep_unless_stopped(const std::stop_token& stop, double seconds) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (!stop.stop_requested()) {
    const Clock::time_point now = Clock::now();
    if (now >= end) return true;
    std::this_thread::sleep_for(std::min<Clock::duration>(end - now, std::chrono::milliseconds(10)));
  }
  return false;
}

}  // namespace fovea

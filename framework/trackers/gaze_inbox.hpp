#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "gaze/gaze_source.hpp"

namespace fovea {

/// What a tracker's receiver thread hands to the frame thread: the newest samples in a
/// bounded ring (a flooding tracker overwrites the oldest, never grows memory), the count
/// of dropped inputs and the status messages. Every call is short and takes one mutex, so
/// the frame thread never waits on the network, only on another short critical section.
class GazeInbox {
 public:
  /// Samples kept between two take_recent calls: two seconds of a 250 Hz tracker.
  static constexpr std::size_t kRecentCapacity = 512;
  /// Status messages kept until taken; older ones are discarded first.
  static constexpr std::size_t kMessageCapacity = 32;

  /// Receiver side: a new sample, valid or not, becomes the newest; its arrival_s is now
  /// (gaze_wall_clock_s) unless the receiver stamped it.
  void publish(const GazeSample& sample);
  /// Receiver side: `count` inputs were malformed, rejected, or lost with a connection.
  void count_dropped(std::uint64_t count = 1) { dropped_.fetch_add(count, std::memory_order_relaxed); }
  /// Receiver side: a state change to say once ("connected to ...", "lost ...").
  void post(std::string message);

  /// Frame side: the newest sample; invalid with time 0 before the first.
  GazeSample newest() const;
  /// Frame side: inputs counted by count_dropped since the start, never reset (counts).
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  /// Frame side: moves the messages posted since the last call, oldest first, to the end of `out`.
  void take_messages(std::vector<std::string>& out);
  /// Frame side: the samples published since the last call, oldest first, appended to
  /// `out` (at most kRecentCapacity: the newest ones when more came).
  void take_recent(std::vector<GazeSample>& out);

 private:
  mutable std::mutex mutex_;
  GazeSample newest_;
  std::array<GazeSample, kRecentCapacity> ring_{};
  std::size_t ring_next_ = 0;   ///< where the next sample goes
  std::size_t ring_count_ = 0;  ///< samples not yet taken, <= kRecentCapacity
  std::vector<std::string> messages_;
  std::atomic<std::uint64_t> dropped_{0};
};

/// What a tracker is to the frame loop: a GazeSource whose samples a receiver thread leaves
/// in an inbox, on the wall clock. A tracker derives from it and starts its thread with
/// run_receiver(stop, inbox_, connected_, ...), declaring the std::jthread as its own last
/// member: a derived class's members are destroyed before its base, so the thread stops
/// and joins while the inbox it writes still exists.
class TrackerSource : public GazeSource {
 public:
  /// The newest sample, valid or not, whatever `now_s`; invalid with time 0 before the first.
  GazeSample sample(double /*now_s*/) override { return inbox_.newest(); }
  /// Wall: the receiver stamps samples with gaze_wall_clock_s() (s).
  GazeClock clock() const override { return GazeClock::wall; }
  /// Inputs the receiver dropped since the start: malformed, rejected, or lost with a connection.
  std::uint64_t dropped() const override { return inbox_.dropped(); }
  /// The receiver's status messages since the last call, appended to `out` (GazeInbox::take_messages).
  void take_messages(std::vector<std::string>& out) override { inbox_.take_messages(out); }
  /// The samples received since the last call, oldest first, appended (GazeInbox::take_recent).
  void take_recent(std::vector<GazeSample>& out) override { inbox_.take_recent(out); }
  /// True while connected to the tracker with its data flowing; false before the first
  /// connection and from a detected loss until the next one.
  bool connected() const { return connected_.load(std::memory_order_relaxed); }

 protected:
  GazeInbox inbox_;
  std::atomic<bool> connected_{false};
};

/// Delays between reconnection attempts: first_s, doubling up to max_s; reset() after a
/// success. A tracker that is not running costs one short attempt per delay, not a busy loop.
class Backoff {
 public:
  /// Delays start at `first_s` and double up to `max_s` (s).
  Backoff(double first_s = 0.1, double max_s = 2.0) : first_s_(first_s), max_s_(max_s), next_s_(first_s) {}
  /// The delay to wait before the next attempt (s); the one after it is twice this, at most max_s.
  double next_delay_s() {
    const double d = next_s_;
    next_s_ = next_s_ * 2 < max_s_ ? next_s_ * 2 : max_s_;
    return d;
  }
  /// After a successful connection: the next delay is first_s again.
  void reset() { next_s_ = first_s_; }

 private:
  double first_s_, max_s_, next_s_;
};

/// How a tracker's receiver thread reconnects: Backoff's delays between attempts, and how long
/// a connection may stay silent before it counts as stalled (what a tracker then does, its
/// class says). The defaults suit a tracker on the same machine or LAN, which answers in about
/// a millisecond; tests shorten them so a fault shows within a fraction of a second.
struct ReconnectTimings {
  double backoff_first_s = 0.1;  ///< delay before the first reconnection attempt, doubling after each failure ...
  double backoff_max_s = 2.0;    ///< ... up to this
  double stall_timeout_s = 1.0;  ///< silence that makes a connection stalled
  /// Every interval > 0, and backoff_max_s >= backoff_first_s.
  bool valid() const { return backoff_first_s > 0 && backoff_max_s >= backoff_first_s && stall_timeout_s > 0; }
  /// A fresh Backoff from backoff_first_s to backoff_max_s.
  Backoff backoff() const { return Backoff(backoff_first_s, backoff_max_s); }
};

/// Sleeps `seconds` in slices of at most 10 ms; returns false early when a stop is
/// requested, so a receiver thread ends within 10 ms of its source's destruction.
bool sleep_unless_stopped(const std::stop_token& stop, double seconds);

/// Blocks every blockable signal on the calling thread. A receiver thread calls it first:
/// SIGINT and SIGTERM then reach the frame thread, whose handler stops the run, instead of
/// interrupting a ZeroMQ call here with EINTR (which cppzmq throws as an error).
void block_signals_on_this_thread();

/// The body of a tracker's receiver thread: `receive(stop)` until a stop is requested, with
/// signals blocked. An exception out of it (out of memory, out of file descriptors) is not
/// allowed to end the process: it becomes one message, `connected` goes false, and after a
/// second's pause the receiver starts over, so the run goes on with the fallback.
template <class Receive>
void run_receiver(const std::stop_token& stop, GazeInbox& inbox, std::atomic<bool>& connected, const char* name,
                  Receive&& receive) {
  block_signals_on_this_thread();
  while (!stop.stop_requested()) {
    try {
      receive(stop);
      return;
    } catch (const std::exception& e) {
      connected.store(false, std::memory_order_relaxed);
      try {
        inbox.post(std::string(name) + ": the receiver failed (" + e.what() + "); using the fallback and starting over");
      } catch (...) {
        // No memory even for the message: starting over is all that is left.
      }
    }
    sleep_unless_stopped(stop, 1.0);
  }
}

}  // namespace fovea

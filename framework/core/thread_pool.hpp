#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

// The frame's phases split their work over a few threads (docs/scale.md, "Threads"). The
// pool is fovea's own and small on purpose: it runs one batch of independent tasks at a
// time, the calling thread working alongside, and allocates nothing per batch, so a frame
// stays allocation-free in the steady state (tests/run/frame_log_test.cpp counts). Results
// never depend on which thread ran a task: a task writes only its own outputs, and whatever
// is summed over tasks is summed afterwards, in task order.

namespace fovea {

/// A fixed set of worker threads running one batch of independent tasks at a time (see above).
class ThreadPool {
 public:
  /// `threads` in all, the calling thread included: 1 runs everything on the caller, 0 means
  /// the machine's cores (std::thread::hardware_concurrency, at least 1).
  explicit ThreadPool(int threads = 1);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Threads that run tasks, the caller included.
  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Runs task(i) for every i in [0, task_count), spread over the threads, and returns when
  /// all have finished. Tasks must not depend on each other's order. The first exception a
  /// task throws is rethrown here, after the batch (the remaining tasks still run). A task
  /// that calls run() on the same pool gets that batch run inline, on its own thread, in
  /// order (its exception thrown at once): the workers are busy with the batch it is in.
  template <typename Task>
  void run(std::size_t task_count, const Task& task) {
    run_erased(task_count, [](const void* context, std::size_t i) { (*static_cast<const Task*>(context))(i); }, &task);
  }

  /// Runs body(begin, end) over [0, count) cut into contiguous chunks of at least
  /// `min_chunk` items, about four per thread (so a slow chunk is evened out): for loops
  /// over entities whose items are independent.
  template <typename Body>
  void for_ranges(std::size_t count, std::size_t min_chunk, const Body& body) {
    for_chunks(count, min_chunk, [&](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
  }

  /// As for_ranges, with the chunk's number as well, body(chunk, begin, end), chunk <
  /// max_chunk_count(): for loops that keep scratch per chunk. Chunks are in item order, so
  /// whatever they collect, read chunk after chunk, is in item order too.
  template <typename Body>
  void for_chunks(std::size_t count, std::size_t min_chunk, const Body& body) {
    const std::size_t chunks = chunk_count(count, min_chunk);
    if (chunks <= 1) {
      if (count > 0) body(std::size_t{0}, std::size_t{0}, count);
      return;
    }
    run(chunks, [&](std::size_t c) { body(c, count * c / chunks, count * (c + 1) / chunks); });
  }

  /// How many chunks for_ranges() cuts `count` items into.
  std::size_t chunk_count(std::size_t count, std::size_t min_chunk) const {
    if (size() == 1 || count == 0) return count > 0 ? 1 : 0;
    const std::size_t by_size = count / std::max<std::size_t>(min_chunk, 1);
    return std::clamp<std::size_t>(by_size, 1, max_chunk_count());
  }
  /// The most chunks chunk_count() ever gives: scratch per chunk can be made once, up front.
  std::size_t max_chunk_count() const { return size() == 1 ? 1 : static_cast<std::size_t>(size()) * 4; }

 private:
  using Erased = void (*)(const void* context, std::size_t i);
  void run_erased(std::size_t task_count, Erased call, const void* context);
  void work(std::uint64_t& seen_generation);
  void drain();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;      ///< workers wait here for a new batch
  std::condition_variable finished_;  ///< the caller waits here for the batch's end
  std::uint64_t generation_ = 0;      ///< batches started; guarded by mutex_
  bool stopping_ = false;             ///< guarded by mutex_
  int busy_workers_ = 0;              ///< workers inside the current batch; guarded by mutex_
  // The batch in progress.
  Erased call_ = nullptr;
  const void* context_ = nullptr;
  std::size_t task_count_ = 0;
  std::atomic<std::size_t> next_task_{0};
  std::exception_ptr error_;  ///< the first task exception; guarded by mutex_
};

/// The machine's cores as the pool counts them: hardware_concurrency, at least 1.
int machine_threads();

/// ThreadPool::for_chunks on `pool`, or on the caller's thread alone (one chunk) without one.
template <typename Body>
void for_chunks(ThreadPool* pool, std::size_t count, std::size_t min_chunk, const Body& body) {
  if (pool != nullptr)
    pool->for_chunks(count, min_chunk, body);
  else if (count > 0)
    body(std::size_t{0}, std::size_t{0}, count);
}

/// ThreadPool::for_ranges on `pool`, or on the caller's thread alone (one range) without one.
template <typename Body>
void for_ranges(ThreadPool* pool, std::size_t count, std::size_t min_chunk, const Body& body) {
  for_chunks(pool, count, min_chunk, [&](std::size_t, std::size_t begin, std::size_t end) { body(begin, end); });
}

/// ThreadPool::max_chunk_count of `pool`, 1 without one: how much per-chunk scratch to make.
inline std::size_t max_chunk_count(const ThreadPool* pool) { return pool != nullptr ? pool->max_chunk_count() : 1; }

}  // namespace fovea

#include "core/thread_pool.hpp"

namespace fovea {
namespace {

/// The pool whose task this thread is running, if any: a task that asks the same pool to
/// run a batch (a part that splits its work, called from a part already split) gets it run
/// inline, on its own thread, instead of waiting for workers busy with the batch it is in.
thread_local const ThreadPool* g_running_task_of = nullptr;

}  // namespace

int machine_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

ThreadPool::ThreadPool(int threads) {
  const int total = threads <= 0 ? machine_threads() : threads;
  workers_.reserve(static_cast<std::size_t>(total - 1));
  for (int i = 1; i < total; ++i)
    workers_.emplace_back([this] {
      std::uint64_t seen_generation = 0;
      work(seen_generation);
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::drain() {
  // Marks this thread as running this pool's tasks until the batch has none left; a task's
  // exception is caught below, so nothing leaves the loop but its end.
  const ThreadPool* const outer = g_running_task_of;
  g_running_task_of = this;
  for (;;) {
    const std::size_t i = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (i >= task_count_) break;
    try {
      call_(context_, i);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
  g_running_task_of = outer;
}

void ThreadPool::work(std::uint64_t& seen_generation) {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
      if (stopping_) return;
      seen_generation = generation_;
      ++busy_workers_;
    }
    drain();
    {
      std::lock_guard lock(mutex_);
      --busy_workers_;
    }
    finished_.notify_one();
  }
}

void ThreadPool::run_erased(std::size_t task_count, Erased call, const void* context) {
  if (task_count == 0) return;
  if (workers_.empty() || task_count == 1 || g_running_task_of == this) {
    for (std::size_t i = 0; i < task_count; ++i) call(context, i);
    return;
  }
  {
    // A worker that woke for the last batch only after it ended may still be looking for a
    // task in it: the batch's fields change only once it has left.
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return busy_workers_ == 0; });
    call_ = call;
    context_ = context;
    task_count_ = task_count;
    next_task_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain();
  std::exception_ptr error;
  {
    // Every task has been claimed; wait for the workers still running one. A worker that
    // wakes only now finds no task left and leaves at once, so it is waited for too before
    // the batch's context (on the caller's stack) goes away.
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return busy_workers_ == 0; });
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace fovea

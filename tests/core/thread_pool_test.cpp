#include "core/thread_pool.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "support/allocation_counter.hpp"

using namespace fovea;

TEST_CASE("ThreadPool: every task runs once, over many batches, at 1 to 4 threads", "[thread_pool]") {
  for (const int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    CHECK(pool.size() == threads);
    std::vector<int> runs(1000, 0);
    for (int batch = 0; batch < 200; ++batch) {
      const std::size_t count = static_cast<std::size_t>(batch % 37) * 27;  // includes empty batches
      pool.run(count, [&](std::size_t i) { ++runs[i]; });
      for (std::size_t i = 0; i < runs.size(); ++i) {
        REQUIRE(runs[i] == (i < count ? 1 : 0));
        runs[i] = 0;
      }
    }
  }
}

TEST_CASE("ThreadPool: for_ranges cuts 0 to n into contiguous chunks that cover it once", "[thread_pool]") {
  ThreadPool pool(3);
  for (const std::size_t n : {0, 1, 5, 63, 64, 1000, 100003}) {
    std::vector<int> seen(n, 0);
    std::vector<std::size_t> begins(pool.chunk_count(n, 64), n + 1);
    pool.for_ranges(n, 64, [&](std::size_t begin, std::size_t end) {
      REQUIRE(begin < end);
      for (std::size_t i = begin; i < end; ++i) ++seen[i];
    });
    CHECK(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(n));
    // Small loops stay on one chunk: below min_chunk there is nothing worth waking a thread for.
    if (n < 128) CHECK(pool.chunk_count(n, 64) <= 1);
    CHECK(pool.chunk_count(n, 64) <= 12);
  }
}

TEST_CASE("ThreadPool: a task's exception reaches the caller after the batch, and the pool goes on", "[thread_pool]") {
  ThreadPool pool(2);
  std::vector<int> runs(100, 0);
  CHECK_THROWS_WITH(pool.run(100,
                             [&](std::size_t i) {
                               ++runs[i];
                               if (i == 17) throw std::runtime_error("task 17 failed");
                             }),
                    "task 17 failed");
  CHECK(std::accumulate(runs.begin(), runs.end(), 0) == 100);  // the other tasks still ran
  long sum = 0;
  std::vector<long> parts(10, 0);
  pool.run(10, [&](std::size_t i) { parts[i] = static_cast<long>(i); });
  for (long p : parts) sum += p;
  CHECK(sum == 45);
}

TEST_CASE("ThreadPool: a task that runs a batch on its own pool gets it inline, every task once", "[thread_pool]") {
  // Before, such a batch deadlocked (a worker waiting for itself) or, from the caller's
  // thread, overwrote the outer batch and lost its tasks.
  for (const int threads : {2, 4}) {
    ThreadPool pool(threads);
    constexpr std::size_t kOuter = 16, kInner = 50;
    std::vector<std::vector<int>> runs(kOuter, std::vector<int>(kInner, 0));
    for (int batch = 0; batch < 20; ++batch) {
      pool.run(kOuter, [&](std::size_t i) {
        pool.for_ranges(kInner, 4, [&](std::size_t begin, std::size_t end) {
          for (std::size_t j = begin; j < end; ++j) ++runs[i][j];
        });
      });
    }
    for (const std::vector<int>& row : runs)
      for (const int r : row) REQUIRE(r == 20);
    // And the pool goes on splitting batches over its threads after.
    std::vector<int> after(1000, 0);
    pool.run(after.size(), [&](std::size_t i) { ++after[i]; });
    CHECK(std::all_of(after.begin(), after.end(), [](int r) { return r == 1; }));
  }
}

TEST_CASE("ThreadPool: 0 threads means the machine's cores", "[thread_pool]") {
  ThreadPool pool(0);
  CHECK(pool.size() == machine_threads());
  CHECK(machine_threads() >= 1);
}

TEST_CASE("ThreadPool: a batch allocates nothing", "[thread_pool]") {
  ThreadPool pool(2);
  std::vector<double> out(4096, 0.0);
  pool.for_ranges(out.size(), 64, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = static_cast<double>(i);
  });
  const long before = test::allocations();
  for (int batch = 0; batch < 100; ++batch)
    pool.for_ranges(out.size(), 64, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) out[i] += 1.0;
    });
  const long allocated = test::allocations() - before;
  CHECK(allocated == 0);
  CHECK(out[4095] == 4095.0 + 100.0);
}

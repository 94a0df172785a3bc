#include "support/fifo.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <exception>
#include <thread>

namespace fovea::test {

void make_fifo(const std::filesystem::path& path) { REQUIRE(::mkfifo(path.c_str(), 0644) == 0); }

std::optional<std::string> returns_within(const std::function<void()>& read, const std::filesystem::path& fifo,
                                          std::chrono::milliseconds limit) {
  std::atomic<bool> done{false};
  std::string result = "accepted";
  std::thread reader([&] {
    try {
      read();
    } catch (const std::exception& e) {
      result = e.what();
    }
    done = true;
  });
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const bool in_time = done;
  // A writer released by a reader that then closes gets SIGPIPE at its next write: ignored,
  // so that the call fails by EPIPE and the test goes on to report it.
  if (!in_time) std::signal(SIGPIPE, SIG_IGN);
  while (!done) {
    for (const int flags : {O_WRONLY | O_NONBLOCK, O_RDONLY | O_NONBLOCK}) {
      const int descriptor = ::open(fifo.c_str(), flags | O_CLOEXEC);
      if (descriptor >= 0) ::close(descriptor);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reader.join();
  if (!in_time) return std::nullopt;
  return result;
}

}  // namespace fovea::test

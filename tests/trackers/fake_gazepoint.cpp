#include "trackers/fake_gazepoint.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace fovea::test {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double timeout_s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
}

/// Milliseconds left until `deadline`, at most 10 so that a wait re-checks its condition.
int slice_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::max<long long>(0, std::min<long long>(10, left)));
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

FakeGazepoint::FakeGazepoint(std::uint16_t port) { listen_on(port); }

FakeGazepoint::~FakeGazepoint() { stop(); }

void FakeGazepoint::listen_on(std::uint16_t port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener_ < 0) throw std::runtime_error(std::string("fake gazepoint: socket: ") + std::strerror(errno));
  // The reconnection test listens again on the port it just closed, whose connections may
  // still be in TIME_WAIT.
  const int yes = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 4) != 0) {
    const std::string error = std::strerror(errno);
    close_fd(listener_);
    throw std::runtime_error("fake gazepoint: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + error);
  }
  socklen_t length = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
}

bool FakeGazepoint::accept_client(double timeout_s) {
  if (listener_ < 0) return false;
  const auto deadline = deadline_after(timeout_s);
  do {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, slice_ms(deadline)) > 0) {
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      close_fd(client_);
      client_ = fd;
      received_.clear();
      // A send to a client that stopped reading fails after 5 s instead of hanging the test.
      const timeval limit{5, 0};
      ::setsockopt(client_, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
      return true;
    }
  } while (Clock::now() < deadline);
  return false;
}

void FakeGazepoint::drain() {
  std::array<char, 4096> chunk{};
  while (client_ >= 0) {
    const ssize_t n = ::recv(client_, chunk.data(), chunk.size(), MSG_DONTWAIT);
    if (n <= 0) return;
    received_.append(chunk.data(), static_cast<std::size_t>(n));
  }
}

std::vector<std::string> FakeGazepoint::commands() const {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = received_.find("\r\n", start)) != std::string::npos; start = end + 2)
    lines.push_back(received_.substr(start, end - start));
  return lines;
}

bool FakeGazepoint::wait_for_commands(std::size_t count, double timeout_s) {
  const auto deadline = deadline_after(timeout_s);
  do {
    drain();
    if (commands().size() >= count) return true;
    if (client_ < 0) return false;
    pollfd p{client_, POLLIN, 0};
    ::poll(&p, 1, slice_ms(deadline));
  } while (Clock::now() < deadline);
  drain();
  return commands().size() >= count;
}

bool FakeGazepoint::send(std::string_view bytes) {
  while (client_ >= 0 && !bytes.empty()) {
    const ssize_t n = ::send(client_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return client_ >= 0;
}

void FakeGazepoint::close_client() {
  // Read what is pending first: closing a socket with unread data sends a reset, and the
  // tests mean an orderly close, as a tracker that quits.
  drain();
  close_fd(client_);
}

void FakeGazepoint::stop() {
  close_client();
  close_fd(listener_);
}

void FakeGazepoint::restart() {
  if (listener_ < 0) listen_on(port_);
}

}  // namespace fovea::test

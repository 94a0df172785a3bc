#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fovea::test {

/// A stand-in for Gazepoint Control's Open Gaze server, on 127.0.0.1 only, driven by the
/// test's own thread: nothing happens between calls (the kernel's backlog completes a
/// client's connection before accept_client takes it), so the fake has no thread and no
/// locks of its own. Every wait is bounded by the timeout it is given.
class FakeGazepoint {
 public:
  /// Listens on 127.0.0.1:`port`; 0 picks a free port (port() says which). Throws
  /// std::runtime_error when the port cannot be bound.
  explicit FakeGazepoint(std::uint16_t port = 0);
  ~FakeGazepoint();
  FakeGazepoint(const FakeGazepoint&) = delete;
  FakeGazepoint& operator=(const FakeGazepoint&) = delete;

  std::uint16_t port() const { return port_; }
  bool listening() const { return listener_ >= 0; }

  /// Takes the next pending connection within `timeout_s`, replacing the current client.
  /// What the new client sends is recorded from empty.
  bool accept_client(double timeout_s);
  /// Reads what the client sent until `count` whole lines (CRLF) have arrived or `timeout_s`
  /// passes; true when they have.
  bool wait_for_commands(std::size_t count, double timeout_s);
  /// Every byte the current client has sent so far (read by wait_for_commands).
  const std::string& received() const { return received_; }
  /// The complete lines of received(), without their CRLF.
  std::vector<std::string> commands() const;

  /// Sends all of `bytes` to the client; false when there is none or it has gone.
  bool send(std::string_view bytes);
  /// Closes the client's connection, as a tracker that stops does; keeps listening.
  void close_client();
  /// Closes the client's connection and the listening socket: nothing answers on the port.
  void stop();
  /// Listens again on the same port (SO_REUSEADDR); throws std::runtime_error if it cannot.
  void restart();

 private:
  void listen_on(std::uint16_t port);
  /// Reads what the client has sent so far, without waiting.
  void drain();

  int listener_ = -1;
  int client_ = -1;
  std::uint16_t port_ = 0;
  std::string received_;
};

}  // namespace fovea::test

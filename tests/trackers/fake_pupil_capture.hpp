#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

namespace fovea::test {

/// One entry of a surface message's gaze_on_surfaces.
struct FakeSurfaceGaze {
  double x_norm = 0.5;     ///< surface coordinates: origin bottom-left, y up
  double y_norm = 0.5;
  double confidence = 1.0;
  bool on_surf = true;
  double timestamp_s = 0;  ///< on the fake's clock (FakePupilCapture::now_s)
};

/// Pupil Capture's network API on loopback, for PupilGaze's tests: Pupil Remote (a REP socket
/// answering SUB_PORT, t, and anything else with an error string, on its own thread) and the
/// IPC backbone's PUB socket, which the test thread publishes on. Messages are built with
/// msgpack-cxx's packer the way Pupil Capture 3 shapes them. Destroying the fake (or stop())
/// is the tracker quitting; a new fake on the same Remote port is the tracker restarting.
class FakePupilCapture {
 public:
  static constexpr double kDefaultClockOffset_s = 1234.5;

  /// Binds Pupil Remote on 127.0.0.1:`remote_port` (0: a free port) and the PUB on a free
  /// port other than `avoid_pub_port` (to make a restart's new PUB port certain). Throws
  /// zmq::error_t when the Remote port cannot be bound.
  explicit FakePupilCapture(int remote_port = 0, double clock_offset_s = kDefaultClockOffset_s,
                            int avoid_pub_port = 0);
  ~FakePupilCapture();
  FakePupilCapture(const FakePupilCapture&) = delete;
  FakePupilCapture& operator=(const FakePupilCapture&) = delete;

  int remote_port() const { return remote_port_; }
  int pub_port() const { return pub_port_; }
  /// Moves the fake's clock, as Pupil Remote's `T` command does (another client resetting it).
  void set_clock_offset(double offset_s) { clock_offset_s_.store(offset_s); }
  /// The fake's clock, what `t` answers: gaze_wall_clock_s() + the clock offset.
  double now_s() const;

  /// Publishes a surface message (topic "surfaces.<surface>") with these entries.
  void publish_surface(const std::string& surface, const std::vector<FakeSurfaceGaze>& entries);
  /// Publishes a gaze datum on "gaze.3d.01.", with one pupil datum as base_data.
  void publish_gaze(double x_norm, double y_norm, double confidence, double timestamp_s);
  /// Publishes these frames as one multipart message, byte for byte.
  void publish_frames(const std::vector<std::string>& frames);

  /// Stops (false) or resumes (true) answering: while stopped, requests wait unread, as
  /// with a Pupil Capture that hangs.
  void set_answering(bool answering) { answering_.store(answering); }
  /// The next request `command` gets `reply` instead of the true answer (once per call).
  void answer_next(const std::string& command, std::string reply);
  /// The same with a reply of several parts (a multipart message), sent byte for byte.
  void answer_next_parts(const std::string& command, std::vector<std::string> parts);
  /// Requests `command` answered so far.
  int requests(const std::string& command) const;
  /// Closes both sockets: the tracker quit. Idempotent.
  void stop();

 private:
  /// Pupil Remote's loop on the server thread.
  void serve(const std::stop_token& stop, zmq::socket_t& remote);
  std::vector<std::string> answer(const std::string& command);

  std::atomic<double> clock_offset_s_;
  int remote_port_ = 0;
  int pub_port_ = 0;
  zmq::context_t context_;
  zmq::socket_t pub_;  ///< used by the test thread only
  std::atomic<bool> answering_{true};
  mutable std::mutex mutex_;  ///< guards overrides_ and requests_
  std::map<std::string, std::deque<std::vector<std::string>>> overrides_;  ///< queued replies' parts
  std::map<std::string, int> requests_;
  /// Owns the REP socket; declared last so it stops before the rest goes.
  std::jthread server_;
};

}  // namespace fovea::test

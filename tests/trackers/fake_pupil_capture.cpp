#include "fake_pupil_capture.hpp"

#include <chrono>
#include <msgpack.hpp>
#include <string_view>
#include <utility>

#include "core/format.hpp"
#include "trackers/gaze_inbox.hpp"
#include "gaze/gaze_source.hpp"

namespace fovea::test {
namespace {

/// The port of a socket's last bound endpoint ("tcp://127.0.0.1:43517").
int bound_port(const zmq::socket_t& socket) {
  const std::string endpoint = socket.get(zmq::sockopt::last_endpoint);
  return std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
}

void send_frames(zmq::socket_t& socket, const std::vector<std::string>& frames) {
  for (std::size_t i = 0; i < frames.size(); ++i)
    socket.send(zmq::buffer(frames[i]), i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
}

using Packer = msgpack::packer<msgpack::sbuffer>;

void pack_pair(Packer& packer, double a, double b) {
  packer.pack_array(2);
  packer.pack(a);
  packer.pack(b);
}

/// A 3 x 3 homography, as Pupil sends surf_to_img_trans: nested arrays the parser must skip.
void pack_identity_3x3(Packer& packer) {
  packer.pack_array(3);
  for (int row = 0; row < 3; ++row) {
    packer.pack_array(3);
    for (int column = 0; column < 3; ++column) packer.pack(row == column ? 1.0 : 0.0);
  }
}

}  // namespace

FakePupilCapture::FakePupilCapture(int remote_port, double clock_offset_s, int avoid_pub_port)
    : clock_offset_s_(clock_offset_s), pub_(context_, zmq::socket_type::pub) {
  zmq::socket_t remote(context_, zmq::socket_type::rep);
  remote.set(zmq::sockopt::linger, 0);
  remote.bind("tcp://127.0.0.1:" + (remote_port == 0 ? std::string("*") : std::to_string(remote_port)));
  remote_port_ = bound_port(remote);

  pub_.set(zmq::sockopt::linger, 0);
  pub_.bind("tcp://127.0.0.1:*");
  pub_port_ = bound_port(pub_);
  if (pub_port_ == avoid_pub_port) {
    // Bound again before letting go of the first, so the system cannot hand it back.
    const std::string first = pub_.get(zmq::sockopt::last_endpoint);
    pub_.bind("tcp://127.0.0.1:*");
    pub_port_ = bound_port(pub_);
    pub_.unbind(first);
  }
  // The socket moves to the server thread; starting a thread orders the two.
  server_ = std::jthread([this, socket = std::move(remote)](std::stop_token stop) mutable {
    block_signals_on_this_thread();  // the tests' signals are for the source under test
    serve(stop, socket);
  });
}

FakePupilCapture::~FakePupilCapture() { stop(); }

void FakePupilCapture::stop() {
  if (server_.joinable()) {
    server_.request_stop();
    server_.join();
  }
  pub_.close();
  // Waits until libzmq has closed every socket, so the Remote port is free for a restart.
  context_.close();
}

double FakePupilCapture::now_s() const { return gaze_wall_clock_s() + clock_offset_s_.load(); }

void FakePupilCapture::serve(const std::stop_token& stop, zmq::socket_t& remote) {
  while (!stop.stop_requested()) {
    if (!answering_.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      continue;
    }
    zmq::pollitem_t item{remote.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(5));
    if (!(item.revents & ZMQ_POLLIN)) continue;
    zmq::message_t request;
    std::string command;
    bool first = true;
    do {
      if (!remote.recv(request)) break;
      if (first) command = request.to_string();
      first = false;
    } while (request.more());
    send_frames(remote, answer(command));
  }
}

std::vector<std::string> FakePupilCapture::answer(const std::string& command) {
  {
    const std::lock_guard lock(mutex_);
    ++requests_[command];
    auto& queued = overrides_[command];
    if (!queued.empty()) {
      std::vector<std::string> reply = std::move(queued.front());
      queued.pop_front();
      return reply;
    }
  }
  // Pupil Remote answers SUB_PORT with str(port) and t with repr(time): shortest round-trip text.
  if (command == "SUB_PORT") return {std::to_string(pub_port_)};
  if (command == "t") return {format_number(now_s())};
  return {"Unknown command."};
}

void FakePupilCapture::answer_next(const std::string& command, std::string reply) {
  answer_next_parts(command, {std::move(reply)});
}

void FakePupilCapture::answer_next_parts(const std::string& command, std::vector<std::string> parts) {
  const std::lock_guard lock(mutex_);
  overrides_[command].push_back(std::move(parts));
}

int FakePupilCapture::requests(const std::string& command) const {
  const std::lock_guard lock(mutex_);
  const auto found = requests_.find(command);
  return found == requests_.end() ? 0 : found->second;
}

void FakePupilCapture::publish_surface(const std::string& surface, const std::vector<FakeSurfaceGaze>& entries) {
  const std::string topic = "surfaces." + surface;
  msgpack::sbuffer buffer;
  Packer packer(buffer);
  packer.pack_map(6);
  packer.pack("topic");
  packer.pack(topic);
  packer.pack("name");
  packer.pack(surface);
  packer.pack("surf_to_img_trans");
  pack_identity_3x3(packer);
  packer.pack("gaze_on_surfaces");
  packer.pack_array(static_cast<std::uint32_t>(entries.size()));
  double newest_s = 0;
  for (const FakeSurfaceGaze& entry : entries) {
    packer.pack_map(6);
    packer.pack("topic");
    packer.pack("gaze.3d.01._on_surface");
    packer.pack("norm_pos");
    pack_pair(packer, entry.x_norm, entry.y_norm);
    packer.pack("confidence");
    packer.pack(entry.confidence);
    packer.pack("on_surf");
    packer.pack(entry.on_surf);
    packer.pack("base_data");
    packer.pack_array(2);
    packer.pack("gaze.3d.01.");
    packer.pack(entry.timestamp_s);
    packer.pack("timestamp");
    packer.pack(entry.timestamp_s);
    newest_s = entry.timestamp_s;
  }
  packer.pack("fixations_on_surfaces");
  packer.pack_array(0);
  packer.pack("timestamp");
  packer.pack(newest_s);
  publish_frames({topic, std::string(buffer.data(), buffer.size())});
}

void FakePupilCapture::publish_gaze(double x_norm, double y_norm, double confidence, double timestamp_s) {
  const std::string topic = "gaze.3d.01.";
  msgpack::sbuffer buffer;
  Packer packer(buffer);
  packer.pack_map(6);
  packer.pack("topic");
  packer.pack(topic);
  packer.pack("norm_pos");
  pack_pair(packer, x_norm, y_norm);
  packer.pack("confidence");
  packer.pack(confidence);
  packer.pack("timestamp");
  packer.pack(timestamp_s);
  packer.pack("gaze_point_3d");
  packer.pack_array(3);
  packer.pack(12.5);
  packer.pack(-3.0);
  packer.pack(500.0);
  packer.pack("base_data");
  packer.pack_array(1);
  packer.pack_map(5);
  packer.pack("topic");
  packer.pack("pupil.0.3d");
  packer.pack("id");
  packer.pack(0);
  packer.pack("confidence");
  packer.pack(confidence);
  packer.pack("timestamp");
  packer.pack(timestamp_s);
  packer.pack("ellipse");
  packer.pack_map(2);
  packer.pack("center");
  pack_pair(packer, 96.0, 96.0);
  packer.pack("axes");
  pack_pair(packer, 40.0, 36.0);
  publish_frames({topic, std::string(buffer.data(), buffer.size())});
}

void FakePupilCapture::publish_frames(const std::vector<std::string>& frames) { send_frames(pub_, frames); }

}  // namespace fovea::test
